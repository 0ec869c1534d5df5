"""vLLM's own multimodal processor counts a real page's prompt, and the planner agrees.

For every planned model this vLLM supports: a weightless model folder
(:mod:`workbench.models.weightless`: the checkpoint's config, a synthetic tokenizer with the
checkpoint's special-token ids, the checkpoint's processor config), vLLM's renderer built from
it as ``LLM.chat`` builds it (chat template, ``image_pil`` part, multimodal processor), and a
real page (``sf424_page2.pdf``, US letter) at the size the planner plans for, sent with the
workbench's own request messages (:func:`workbench.engines.messages.build_messages`).

Checked per model, in this vLLM:

* the page's vision tokens (the image placeholders vLLM expands, with the model's vision
  markers) equal :meth:`Architecture.vision_tokens` of the planned page, the planner's number;
* the rest of the prompt decodes to the prompt text, and its scaffolding (template and special
  tokens, counted by the planner's own rule of 3 characters a token) fits the planner's
  allowance (:func:`workbench.gpu.planner.prompt_token_estimate`: 32 beyond the text).

The synthetic tokenizer has one token a byte, so vLLM's raw total over-counts the text; the
totals are printed for the record (``-s``) and the exact check is on the vision tokens.
"""

from __future__ import annotations

import importlib.metadata
import math
from pathlib import Path
from typing import Any

import pytest

from tests.vllm_contract.conftest import CONFIGS
from workbench.engines.base import PageRequest
from workbench.engines.messages import build_messages, image_pil_part
from workbench.gpu.planner import prompt_token_estimate
from workbench.models import ModelSpec, fit_size, get_spec, planned_page
from workbench.models.weightless import build_model_folder, folder_kind

pytest.importorskip("vllm")
pytest.importorskip("tokenizers")
pdfium = pytest.importorskip("pypdfium2")

VLLM = importlib.metadata.version("vllm")
PAGE = CONFIGS.parent / "sf424_page2.pdf"  # US letter, public domain (SOURCES.md)

PLANNED = [
    "lightonai/LightOnOCR-1B-1025",
    "lightonai/LightOnOCR-2-1B",
    "lightonai/LightOnOCR-3-1B",
    "lightonai/LightOnOCR-3-0.8B",
    "lightonai/LightOnOCR-3-4B",
    "datalab-to/chandra",
    "datalab-to/chandra-ocr-2",
    "allenai/olmOCR-2-7B-1025",
]
# (vLLM version prefix, model) -> why this vLLM cannot serve it: the test skips with the reason.
UNSUPPORTED: dict[tuple[str, str], str] = {}
# The tokens each family adds around or inside the image, counted as vision tokens by the
# planner (Qwen: <|vision_start|>/<|vision_end|> from the chat template).
VISION_IDS = ("<|image_pad|>", "<|vision_start|>", "<|vision_end|>")
SPECIALS = ("<|im_start|>", "<|im_end|>", "<think>", "</think>")


def _unsupported(model: str) -> str | None:
    for (prefix, name), reason in UNSUPPORTED.items():
        if name == model and VLLM.startswith(prefix):
            return reason
    return None


def unfix_mistral_regex(folder: Path) -> None:
    """Under transformers 4 (vLLM 0.17 requires <5) the tokenizer config's
    ``fix_mistral_regex`` (the checkpoints' own) replaces ``pre_tokenizer[0]`` with Mistral's
    split regex (``tokenization_utils_base.py``); the synthetic byte tokenizer's pre-tokenizer
    is a bare ByteLevel with no item 0 ("object does not support item assignment"). It
    changes how text splits, never the image placeholders counted here. No effect under
    transformers 5."""
    import json

    if int(importlib.metadata.version("transformers").split(".")[0]) >= 5:
        return
    for path in folder.glob("tokenizer_config.json"):
        config = json.loads(path.read_text())
        config.pop("fix_mistral_regex", None)
        path.write_text(json.dumps(config))


@pytest.fixture(scope="module")
def hf_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hf")


def page_image(spec: ModelSpec) -> Any:
    """sf424_page2.pdf page 1 rendered at the model's DPI and sized as the pipeline sizes it
    (:func:`fit_size`): for this letter page, the planner's planned page."""
    dpi = spec.sizing.dpi or 200
    page = pdfium.PdfDocument(str(PAGE))[0]
    image = page.render(scale=dpi / 72).to_pil().convert("RGB")
    size = fit_size(*image.size, spec.sizing, is_image=False)
    return image.resize(size)


def renderer_for(folder: Path, spec: ModelSpec) -> Any:
    """vLLM's renderer (chat template + multimodal processor) for ``folder``, as ``vllm.LLM``
    builds it from these engine arguments, on the CPU (no device is touched)."""
    from vllm.config import DeviceConfig, VllmConfig
    from vllm.engine.arg_utils import EngineArgs
    from vllm.renderers.registry import renderer_from_config

    assert spec.arch is not None
    args = EngineArgs(
        model=str(folder),
        max_model_len=min(spec.arch.context, 32_768),
        limit_mm_per_prompt={"image": 1, "video": 0},
        mm_processor_cache_gb=0,
        mm_processor_kwargs=spec.vllm_args.get("mm_processor_kwargs"),
    )
    config = VllmConfig(model_config=args.create_model_config(), device_config=DeviceConfig("cpu"))
    return renderer_from_config(config)


def count_prompt(spec: ModelSpec, folder: Path) -> tuple[list[int], Any]:
    """The prompt token ids vLLM builds for the page, as ``LLM.chat`` does
    (``offline_utils._preprocess_chat``: the generation prompt on, the spec's
    ``chat_template_kwargs``), and the tokenizer."""
    from vllm.renderers.params import ChatParams

    image = page_image(spec)
    request = PageRequest(
        key="sf424_page2.pdf#1", image=image, prompt=spec.prompt, system=spec.system,
        prompt_first=spec.prompt_first, chat_template_kwargs=dict(spec.chat_template_kwargs),
    )  # fmt: skip
    messages = build_messages(request, image_pil_part(image))
    renderer = renderer_for(folder, spec)
    kwargs = {**spec.chat_template_kwargs, "add_generation_prompt": True,
              "continue_final_message": False, "tools": None, "tokenize": False}  # fmt: skip
    _, prompts = renderer.render_chat([messages], ChatParams(chat_template_kwargs=kwargs))
    return list(prompts[0]["prompt_token_ids"]), renderer.get_tokenizer()


@pytest.mark.parametrize("model", PLANNED)
def test_vllm_counts_the_planned_page_as_the_planner_does(model: str, hf_home: Path) -> None:
    spec = get_spec(model)
    reason = _unsupported(model)
    if reason:
        pytest.skip(f"vLLM {VLLM}: {reason}")
    assert spec.arch is not None
    folder = build_model_folder(spec, hf_home)
    unfix_mistral_regex(folder)
    ids, tokenizer = count_prompt(spec, folder)

    width, height = planned_page(spec.sizing)
    assert page_image(spec).size == (width, height)
    planned_vision = spec.arch.vision_tokens(width, height)
    kind = folder_kind(spec)
    vision_ids = {kind.base + i for i, (c, _) in enumerate(kind.added) if c in VISION_IDS}
    vision = sum(1 for i in ids if i in vision_ids)
    text_ids = [i for i in ids if i not in vision_ids]
    prompt_text = (spec.system or "") + (spec.prompt or "")
    scaffold = tokenizer.decode(text_ids)
    for part in (spec.system, spec.prompt):
        if part:
            assert part in scaffold, f"{model}: the prompt text is not in what vLLM sends"
            scaffold = scaffold.replace(part, "", 1)
    specials = sum(1 for i in text_ids if i >= kind.base)
    for token in SPECIALS:  # counted above as one token each, not as their characters
        scaffold = scaffold.replace(token, "")
    scaffold_tokens = specials + math.ceil(len(scaffold.encode()) / 3)
    allowance = prompt_token_estimate(spec) - len(prompt_text) // 3
    print(
        f"\nvLLM {VLLM} {model} {width}x{height}: prompt {len(ids):,} tokens "
        f"(synthetic byte tokenizer), vision {vision:,} (planner {planned_vision:,}), "
        f"scaffold ~{scaffold_tokens} (planner allows {allowance})"
    )
    assert vision == planned_vision, (
        f"{model}: vLLM {vision} vision tokens, planner's {planned_vision}"
    )
    assert scaffold_tokens <= allowance


def test_the_plain_model_id_resolves_offline_from_the_cache(tmp_path: Path) -> None:
    """With HF_HOME at the folder's cache and the Hub offline, vLLM finds the model by id."""
    import os
    import subprocess
    import sys

    build_model_folder("lightonai/LightOnOCR-2-1B", tmp_path)
    code = (
        "from vllm.engine.arg_utils import EngineArgs\n"
        "c = EngineArgs(model='lightonai/LightOnOCR-2-1B', max_model_len=16384)"
        ".create_model_config()\n"
        "print(c.hf_config.model_type, c.max_model_len)\n"
    )
    env = {**os.environ, "HF_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["mistral3", "16384"]
