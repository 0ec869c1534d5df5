"""Chandra and LightOnOCR: every fact, with where upstream says it.

Chandra (github.com/datalab-to/chandra; chandra-ocr 0.2.0 and 0.1.8 wheels):

* prompt ``prompts.OCR_LAYOUT_PROMPT``; image part, then text (``model/vllm.py``);
* PDF pages at max(192 DPI, a 1024 px short side); **image files upscaled to a 1536 px short
  side** (``settings.MIN_IMAGE_DIM``, ``input.py load_image``); at most 3072x2048 pixels, at
  least 1792x28, on a 28 px grid (``model/util.py scale_to_fit``);
* temperature 0, top_p 0.1; on a detected repeat **up to 6 retries** at temperature
  min(0.2 n, 0.8), top_p 0.95 (0.2.0; 0.1.8: 6 retries at 0.3) — 7 attempts in all;
* max tokens 12,384 (Chandra 2, settings) and 8,192 (Chandra 1, the 0.1.8 wheel it shipped
  with; repo master raised it to 12,384 in 6072052 for every model);
* vLLM: ``--max-model-len 18000 --gpu-memory-utilization .85 --enable-prefix-caching
  --mm-processor-kwargs {"min_pixels":3136,"max_pixels":6291456} --dtype bfloat16``
  (``scripts/vllm.py``).

LightOnOCR (github.com/lightonai/LightOnOCR @36755d4: README, ``lightonocr/models.py``,
``client.py``, ``grounding.py``, ``postprocess/fix_escaped_dollars.py``):

* plain mode (1B-1025, 2-1B): the image alone; grounding mode (3-*): image then "grounding";
* pages at a 1540 px (1B models) / 2048 px (3-0.8B, 3-4B) longest edge, never upscaled;
* temperature 0.2; top_p 0.9 (plain) / 1.0 (grounding); ``chat_template_kwargs
  {"enable_thinking": false}`` per request; the server also takes
  ``--default-chat-template-kwargs``, a **frontend-only** flag (not an EngineArgs field);
* context: **16,384** for LightOnOCR-2-1B (``text_config.max_position_embeddings``; LightOn's
  ``benchmarks/ocr_bench/config.py``: "the model's 16384-token context"), served at 16,384 for
  3-1B and 18,000 for 3-0.8B/4B (Qwen3.5 decoders, 262,144 positions); LightOnOCR-1B-1025:
  a config copy says **8,192** (the checkpoint itself could not be read here: the smaller,
  startable value is used);
* the client repairs escaped dollars (``\\$x\\$`` -> ``$x$``) in every output.
"""

from __future__ import annotations

from dataclasses import replace

from workbench.models.architectures import GB, Architecture, gdn_state
from workbench.models.prompts import LIGHTON_GROUNDING_PROMPT, chandra_prompt
from workbench.models.spec import ModelSpec, PageSizing
from workbench.schema import Sampling

_CHANDRA_SRC = (
    "https://github.com/datalab-to/chandra (prompts.py, settings.py, input.py, model/util.py, "
    "model/vllm.py, scripts/vllm.py)",
    "https://pypi.org/project/chandra-ocr/ (0.2.0, 0.1.8)",
)
_LIGHTON_SRC = (
    "https://github.com/lightonai/LightOnOCR (README, lightonocr/models.py, client.py, "
    "grounding.py, postprocess/fix_escaped_dollars.py, benchmarks/ocr_bench/config.py)",
)
_NO_CACHE = {"mm_processor_cache_gb": 0, "enable_prefix_caching": False}
_NO_THINKING = {"enable_thinking": False}


def ladder(temps: list[float], top_p: float, max_tokens: int) -> tuple[Sampling, ...]:
    return tuple(Sampling(temperature=t, top_p=top_p, max_tokens=max_tokens) for t in temps)


# Qwen3-VL / Qwen3.5 image processor bounds (preprocessor_config ``size``), and Chandra's
# ``--mm-processor-kwargs`` (scripts/vllm.py), which replace them for Chandra OCR 2.
QWEN3_MIN_PIXELS, QWEN3_MAX_PIXELS = 65_536, 16_777_216
CHANDRA_MM_KWARGS = {"min_pixels": 3136, "max_pixels": 6291456}

_QWEN35_4B = Architecture(
    params_b=4.7, weight_bytes=int(9.4 * GB), kv_layers=8, kv_heads=4, head_dim=256,
    context=262_144, hidden_size=2560, intermediate_size=9216, vocab_size=248_320,
    px_per_token=32, token_rule="smart_resize", min_pixels=QWEN3_MIN_PIXELS,
    max_pixels=QWEN3_MAX_PIXELS, vision_hidden=1024, vision_intermediate=4096, hybrid=True,
    state_bytes_per_seq=gdn_state(24, 32),
    unverified=("32 px a vision token", "GDN state size", "weight bytes (~4.7 B params)"),
)  # fmt: skip
_LIGHTON_1B = Architecture(
    params_b=1.0, weight_bytes=2_023_960_576, kv_layers=28, kv_heads=8, head_dim=128,
    context=16_384,
    hidden_size=1024, intermediate_size=3072, vocab_size=151_936, px_per_token=28,
    token_rule="grid", extra_vision_tokens=0, vision_hidden=1024, vision_intermediate=4096,
    vision_attention="dense_mask",  # Pixtral's encoder (vllm/model_executor/models/pixtral.py)
    # weight_bytes: what vLLM 0.26 loaded (load_format=dummy, the real architecture) on the H200
    unverified=(),
)  # fmt: skip

CHANDRA_2 = ModelSpec(
    id="datalab-to/chandra-ocr-2", display="Chandra OCR 2", family="chandra", parser="chandra2",
    prompt=chandra_prompt(2),
    sizing=PageSizing(dpi=192, min_short_edge=1024, image_min_short_edge=1536,
                      max_pixels=3072 * 2048, grid=28, min_pixels=1792 * 28),
    sampling=Sampling(temperature=0.0, top_p=0.1, max_tokens=12384),
    retry_sampling=ladder([0.2, 0.4, 0.6, 0.8, 0.8, 0.8], 0.95, 12384),
    output_format="HTML: one <div data-bbox data-label> a layout block", coord_scale="0-1000",
    aliases=("chandra-ocr-2", "chandra2", "chandra"),
    vllm_args={"max_model_len": 18000, "gpu_memory_utilization": 0.85,
               "enable_prefix_caching": True, "dtype": "bfloat16",
               "mm_processor_kwargs": CHANDRA_MM_KWARGS},
    arch=replace(_QWEN35_4B, min_pixels=CHANDRA_MM_KWARGS["min_pixels"],
                 max_pixels=CHANDRA_MM_KWARGS["max_pixels"]),
    notes="Served as 'chandra' by chandra_vllm. The prompt is 2,161 characters.",
    sources=_CHANDRA_SRC,
)  # fmt: skip

CHANDRA_1 = ModelSpec(
    id="datalab-to/chandra", display="Chandra 1", family="chandra", parser="chandra1",
    prompt=chandra_prompt(1),
    sizing=PageSizing(dpi=192, min_short_edge=1024, image_min_short_edge=1536,
                      max_pixels=3072 * 2048),
    sampling=Sampling(temperature=0.0, top_p=0.1, max_tokens=8192),
    retry_sampling=ladder([0.3] * 6, 0.95, 8192),
    output_format="HTML: one <div data-bbox data-label> a layout block", coord_scale="0-1024",
    aliases=("chandra1", "chandra-1"),
    vllm_args={"max_model_len": 32768, "max_num_batched_tokens": 65536, "max_num_seqs": 32,
               "gpu_memory_utilization": 0.9, "dtype": "bfloat16"},
    arch=Architecture(
        # weight_bytes: vLLM 0.26 "Model loading took 16.7 GiB" (dummy weights, real
        # architecture, RTX 4090 probe); 16.97 GiB on the H200 probe (allocator slack)
        params_b=8.8, weight_bytes=17_931_185_766, kv_layers=36, kv_heads=8, head_dim=128,
        context=262_144, hidden_size=4096, intermediate_size=12_288, vocab_size=151_936,
        px_per_token=32, token_rule="smart_resize", min_pixels=QWEN3_MIN_PIXELS,
        max_pixels=QWEN3_MAX_PIXELS, vision_hidden=1152, vision_intermediate=4304,
        unverified=("context (Qwen3-VL-8B base default)",),
    ),
    sources=_CHANDRA_SRC,
)  # fmt: skip


def _lighton_plain(repo: str, display: str, context: int) -> ModelSpec:
    arch = _LIGHTON_1B
    if context != arch.context:
        unverified = ("context (a config copy; checkpoint unread)",
                      "decoder shape assumed equal to LightOnOCR-2-1B")  # fmt: skip
        arch = replace(arch, context=context, unverified=unverified)
    return ModelSpec(
        id=repo, display=display, family="lighton", parser="lighton_plain", prompt=None,
        sizing=PageSizing(dpi=200, longest_edge=1540),
        sampling=Sampling(temperature=0.2, top_p=0.9, max_tokens=4096),
        retry_sampling=ladder([0.4, 0.6], 0.9, 4096),  # LightOn has no retry; ours, hotter
        boxes=False, output_format="Markdown (HTML tables, LaTeX math), no boxes",
        aliases=(display, display.lower()),
        vllm_args={"limit_mm_per_prompt": {"image": 1}, **_NO_CACHE},
        arch=arch,
        notes="Temperature 0.2 / top_p 0.9 as the card and client; the README suggests 0.1, "
              "never greedy.",
        sources=_LIGHTON_SRC,
    )  # fmt: skip


def _lighton_3(size: str, edge: int, served_len: int, arch: Architecture) -> ModelSpec:
    name = f"LightOnOCR-3-{size}"
    return ModelSpec(
        id=f"lightonai/{name}", display=name, family="lighton", parser="lighton_grounding",
        prompt=LIGHTON_GROUNDING_PROMPT,  # plain mode is the image alone
        sizing=PageSizing(dpi=200, longest_edge=edge),
        sampling=Sampling(temperature=0.2, top_p=1.0, max_tokens=12288),
        retry_sampling=ladder([0.4, 0.6], 1.0, 12288),
        output_format="Markdown, ![label](x1,y1,x2,y2) before each block; label+ continues",
        coord_scale="0-1000",
        aliases=(name, name.lower()),
        vllm_args={"limit_mm_per_prompt": {"image": 1}, "max_model_len": served_len, **_NO_CACHE},
        serve_args={"default_chat_template_kwargs": _NO_THINKING} if size != "1B" else {},
        chat_template_kwargs=_NO_THINKING,
        arch=arch,
        sources=_LIGHTON_SRC,
    )  # fmt: skip


SPECS: tuple[ModelSpec, ...] = (
    CHANDRA_2,
    CHANDRA_1,
    _lighton_plain("lightonai/LightOnOCR-1B-1025", "LightOnOCR-1B-1025", 8192),
    _lighton_plain("lightonai/LightOnOCR-2-1B", "LightOnOCR-2-1B", 16_384),
    _lighton_3("1B", 1540, 16_384, _LIGHTON_1B),
    _lighton_3("0.8B", 2048, 18_000, Architecture(
        params_b=0.9, weight_bytes=int(1.8 * GB), kv_layers=6, kv_heads=2, head_dim=256,
        context=262_144, hidden_size=1024, intermediate_size=3584, vocab_size=248_320,
        px_per_token=32, token_rule="smart_resize", min_pixels=QWEN3_MIN_PIXELS,
        max_pixels=QWEN3_MAX_PIXELS, vision_hidden=768, vision_intermediate=3072, hybrid=True,
        state_bytes_per_seq=gdn_state(18, 16),
        unverified=("32 px a vision token", "GDN state size", "hidden/intermediate/vocab"),
    )),
    _lighton_3("4B", 2048, 18_000, replace(_QWEN35_4B, params_b=4.75,
                                            weight_bytes=int(9.5 * GB))),
)  # fmt: skip
