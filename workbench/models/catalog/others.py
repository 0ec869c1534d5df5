"""olmOCR 2, dots.ocr and DeepSeek-OCR: every fact, with where upstream says it.

olmOCR 2 (github.com/allenai/olmocr @f7cfe4c, 0.4.27):

* prompt ``prompts.build_no_anchoring_v4_yaml_prompt()``, sent **text first, then the image**
  (``pipeline.py build_page_query``, the model card, training configs
  ``train/configs/v0.4.0/*mix_1025*.yaml`` with ``prompt_first: true``);
* pages at a 1288 px longest edge (``--target_longest_image_dim``), small pages not upscaled;
* ``TEMPERATURE_BY_ATTEMPT = [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]``: **8 attempts**; a page
  is retried when invalid, which includes ``finish_reason != "stop"`` (**cut off by
  max_tokens**), as well as on a repetition loop here;
* ``repetition_penalty 1.05`` from the checkpoint's ``generation_config.json`` (the server
  applies it; in-process it is now applied the same way, see ``with_generation_defaults``);
* max tokens 8,000, ``--max-model-len 16384``, ``--limit-mm-per-prompt '{"video": 0}'``.

dots.ocr (github.com/rednote-hilab/dots.ocr @36d7248 and @c3084bd):

* prompt ``prompt_layout_all_en`` prefixed with ``<|img|><|imgpad|><|endofimg|>``
  (``dots_ocr/model/inference.py``: without it vLLM v1 adds a newline);
* PDFs at 200 DPI; ``smart_resize`` on a 28 px grid, 3,136..11,289,600 pixels;
* temperature 0.1, top_p 1.0, 16,384 tokens (``parser.py DotsOCRParser``);
* ``--trust-remote-code --async-scheduling --gpu-memory-utilization 0.95`` (README);
* a JSON list of ``{bbox, category, text}``, boxes in pixels of the resized input.

DeepSeek-OCR (github.com/deepseek-ai/DeepSeek-OCR @e4ac34e; vllm-project/recipes
DeepSeek/DeepSeek-OCR.md):

* prompt ``<image>\\n<|grounding|>Convert the document to markdown.`` (``config.py``);
* PDFs at 144 DPI (``run_dpsk_ocr_pdf.py``); the processor tiles (base 1024 + 640 crops);
* temperature 0, max tokens 8,192 **in an 8,192-token context** (vLLM caps the output at the
  context; the planner's output budget is min(max_tokens, context - prompt - vision));
  ``skip_special_tokens=False``; the n-gram logits processor (size 30, window 90, ``<td>``/
  ``</td>`` whitelisted) with its per-request arguments: ``extra_args`` of ``SamplingParams``
  in-process, ``vllm_xargs`` in the OpenAI request body (both carry the same dict);
* ``--logits_processors …:NGramPerReqLogitsProcessor --no-enable-prefix-caching
  --mm-processor-cache-gb 0``; output ``<|ref|>label<|/ref|><|det|>[[x0,y0,x1,y1]]<|/det|>``,
  0-999; text outside markers is kept (upstream only removes the matched spans).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from workbench.models.architectures import GB, Architecture
from workbench.models.catalog.vlm import ladder
from workbench.models.prompts import (
    DEEPSEEK_PROMPT,
    DOTS_IMAGE_PREFIX,
    DOTS_PROMPT_LAYOUT_ALL_EN,
    OLMOCR_PROMPT,
)
from workbench.models.spec import ModelSpec, PageSizing, with_generation_defaults
from workbench.schema import Sampling

OLMOCR_TEMPS = [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]  # olmocr TEMPERATURE_BY_ATTEMPT
OLMOCR_GENERATION = {"repetition_penalty": 1.05}  # the checkpoint's generation_config.json
# DeepSeek's loop guard: vLLM's n-gram logits processor, <td>/</td> token ids whitelisted.
NGRAM_PROCESSOR = "vllm.model_executor.models.deepseek_ocr:NGramPerReqLogitsProcessor"
NGRAM_ARGS: dict[str, Any] = {"ngram_size": 30, "window_size": 90,
                              "whitelist_token_ids": [128821, 128822]}  # fmt: skip
_NO_CACHE = {"mm_processor_cache_gb": 0, "enable_prefix_caching": False}

_OLMOCR_ARCH = Architecture(
    params_b=8.3, weight_bytes=int(16.6 * GB), kv_layers=28, kv_heads=4, head_dim=128,
    context=128_000, hidden_size=3584, intermediate_size=18_944, vocab_size=152_064,
    px_per_token=28, token_rule="smart_resize", min_pixels=3136, max_pixels=12_845_056,
    vision_hidden=1280, vision_intermediate=3420,  # Qwen2.5-VL's processor bounds
)  # fmt: skip


def _olmocr(repo: str, display: str, arch: Architecture) -> ModelSpec:
    def olm(temp: float) -> Sampling:
        sampling = Sampling(temperature=temp, top_p=1.0, max_tokens=8000)
        return with_generation_defaults(sampling, OLMOCR_GENERATION)

    return ModelSpec(
        id=repo, display=display, family="olmocr", parser="olmocr", prompt=OLMOCR_PROMPT,
        prompt_first=True,
        sizing=PageSizing(longest_edge=1288),
        sampling=olm(OLMOCR_TEMPS[0]),
        retry_sampling=tuple(olm(t) for t in OLMOCR_TEMPS[1:]),
        retry_on_length=True,
        generation_config=OLMOCR_GENERATION,
        boxes=False, output_format="YAML front matter, then Markdown (LaTeX, HTML tables)",
        aliases=(repo.rsplit("/", 1)[-1],) + (("olmocr",) if not repo.endswith("FP8") else ()),
        vllm_args={"max_model_len": 16384, "limit_mm_per_prompt": {"video": 0}},
        arch=arch,
        notes="Served as 'olmocr' by the olmOCR pipeline. YAML front matter gives "
              "rotation_correction. Invalid if finish_reason != 'stop' or > 16384 tokens.",
        sources=("https://github.com/allenai/olmocr (0.4.27 pipeline.py, prompts.py, "
                 "train/configs/v0.4.0)",),
    )  # fmt: skip


_DEEPSEEK_EXTRA: dict[str, Any] = {
    "skip_special_tokens": False,  # keeps the <|ref|>/<|det|> markers
    "vllm_xargs": NGRAM_ARGS,  # HTTP field; the in-process engine sends it as extra_args
}

SPECS: tuple[ModelSpec, ...] = (
    _olmocr("allenai/olmOCR-2-7B-1025", "olmOCR 2 (7B)", _OLMOCR_ARCH),
    _olmocr("allenai/olmOCR-2-7B-1025-FP8", "olmOCR 2 (7B, FP8)", replace(
        # FP8 linear layers (~6.5 B) at 1 byte, embeddings + lm_head (1.09 B) and ViT (0.67 B)
        # left in bf16: 6.5 + 2*1.09 + 2*0.67 ≈ 10.0 GB.
        _OLMOCR_ARCH, weight_bytes=10 * GB,
        unverified=("weight bytes (estimate of which layers stay bf16)",))),
    ModelSpec(
        id="rednote-hilab/dots.ocr", display="dots.ocr", family="dots", parser="dots_ocr",
        prompt=DOTS_IMAGE_PREFIX + DOTS_PROMPT_LAYOUT_ALL_EN,
        sizing=PageSizing(dpi=200, max_pixels=11_289_600, min_pixels=3136, grid=28),
        sampling=Sampling(temperature=0.1, top_p=1.0, max_tokens=16384),
        retry_sampling=ladder([0.3, 0.5], 1.0, 16384),  # dots.ocr has no retry; ours, hotter
        output_format="JSON list of {bbox, category, text}", coord_scale="input pixels",
        aliases=("dots.ocr", "dotsocr", "dots_ocr"),
        vllm_args={"trust_remote_code": True, "async_scheduling": True,
                   "gpu_memory_utilization": 0.95},
        arch=Architecture(
            params_b=3.0, weight_bytes=6 * GB, kv_layers=28, kv_heads=2, head_dim=128,
            context=131_072, hidden_size=1536, intermediate_size=8960, vocab_size=151_936,
            px_per_token=28, vision_hidden=1536, vision_intermediate=4224,
            unverified=("vision hidden/intermediate",),
        ),
        notes="Boxes in pixels of the smart-resized input (28 px grid).",
        sources=("https://github.com/rednote-hilab/dots.ocr (README, dots_ocr/utils, "
                 "dots_ocr/model/inference.py, dots_ocr/parser.py)",),
    ),
    ModelSpec(
        id="deepseek-ai/DeepSeek-OCR", display="DeepSeek-OCR", family="deepseek",
        parser="deepseek_ocr", prompt=DEEPSEEK_PROMPT,
        sizing=PageSizing(dpi=144),  # the processor tiles: 1024 base view + 640 px crops
        sampling=Sampling(temperature=0.0, max_tokens=8192, extra=_DEEPSEEK_EXTRA),
        retry_sampling=(Sampling(temperature=0.3, top_p=0.95, max_tokens=8192,
                                 extra=_DEEPSEEK_EXTRA),),
        output_format="Markdown, <|ref|>label<|/ref|><|det|>[[box]]<|/det|> before blocks",
        coord_scale="0-999",
        aliases=("DeepSeek-OCR", "deepseek-ocr"),
        vllm_args={"max_model_len": 8192, **_NO_CACHE, "logits_processors": [NGRAM_PROCESSOR]},
        arch=Architecture(
            params_b=3.3, weight_bytes=int(6.7 * GB), kv_layers=12, kv_heads=10, head_dim=128,
            context=8192, hidden_size=1280, intermediate_size=6848, vocab_size=129_280,
            px_per_token=16, token_rule="fixed",
            extra_vision_tokens=900,  # base 1024 (273) + 640-px tiles (~630), vllm.md §4
            vision_hidden=1024, vision_intermediate=4096,
            unverified=("activation sizes (MoE)", "tile count varies with the page"),
        ),
        notes="The n-gram processor is DeepSeek's fix for repetition loops (issue #250).",
        sources=("https://github.com/deepseek-ai/DeepSeek-OCR (DeepSeek-OCR-vllm/config.py, "
                 "run_dpsk_ocr_image.py, run_dpsk_ocr_pdf.py)",
                 "https://github.com/vllm-project/recipes (DeepSeek/DeepSeek-OCR.md)"),
    ),
)  # fmt: skip
