"""The weightless model folder: cache layout, the checkpoint's token ids, the chat structure.

vLLM building its processor from these folders and counting a page's tokens is checked in
``tests/vllm_contract/test_processor_tokens.py``; here, what can be checked without vLLM.
"""

from __future__ import annotations

import json
from pathlib import Path

import jinja2
import pytest
from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.messages import build_messages, image_pil_part
from workbench.models import get_spec
from workbench.models.weightless import KINDS, build_model_folder, folder_files, main

PRIORITY = [
    "lightonai/LightOnOCR-2-1B",
    "datalab-to/chandra",
    "datalab-to/chandra-ocr-2",
    "allenai/olmOCR-2-7B-1025",
]


def _ids(files: dict[str, str]) -> dict[str, int]:
    added = json.loads(files["tokenizer_config.json"])["added_tokens_decoder"]
    return {v["content"]: int(k) for k, v in added.items()}


@pytest.mark.parametrize("model", PRIORITY)
def test_the_config_token_ids_are_the_tokenizers(model: str) -> None:
    """Every token id the checkpoint config names is that token in the synthetic tokenizer."""
    files = folder_files(get_spec(model))
    config, ids = json.loads(files["config.json"]), _ids(files)
    assert config["image_token_id"] == ids["<|image_pad|>"]
    for key, token in (("vision_start_token_id", "<|vision_start|>"),
                       ("vision_end_token_id", "<|vision_end|>"),
                       ("video_token_id", "<|video_pad|>")):  # fmt: skip
        if key in config:
            assert config[key] == ids[token], key
    generation = json.loads(files["generation_config.json"])
    assert ids["<|im_end|>"] in generation["eos_token_id"]


def test_lighton_folder_declares_mistral3_and_pixtral() -> None:
    files = folder_files(get_spec("lightonai/LightOnOCR-2-1B"))
    assert json.loads(files["config.json"])["model_type"] == "mistral3"
    processor = json.loads(files["processor_config.json"])
    ids = _ids(files)
    assert (ids[processor["image_break_token"]], ids[processor["image_end_token"]]) == (
        151654,
        151653,
    )
    assert json.loads(files["preprocessor_config.json"])["size"] == {"longest_edge": 1540}


def test_qwen_families_keep_their_patch_and_pixel_bounds() -> None:
    olm = json.loads(folder_files(get_spec("allenai/olmOCR-2-7B-1025"))["preprocessor_config.json"])
    chandra = json.loads(folder_files(get_spec("datalab-to/chandra"))["preprocessor_config.json"])
    assert (olm["patch_size"], olm["merge_size"], olm["max_pixels"]) == (14, 2, 12_845_056)
    assert (chandra["patch_size"], chandra["merge_size"]) == (16, 2)
    assert _ids(folder_files(get_spec("datalab-to/chandra-ocr-2")))["<|image_pad|>"] == 248_056


def _render(model: str, enable_thinking: bool | None = None) -> str:
    spec = get_spec(model)
    request = PageRequest(
        key="p#1", image=Image.new("RGB", (8, 8)), prompt=spec.prompt, system=spec.system,
        prompt_first=spec.prompt_first,
    )  # fmt: skip
    messages = build_messages(request, image_pil_part(request.image))
    template = jinja2.Environment().from_string(folder_files(spec)["chat_template.jinja"])
    extra = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    return template.render(messages=messages, add_generation_prompt=True, **extra)


def test_chat_templates_have_each_models_structure() -> None:
    lighton = _render("lightonai/LightOnOCR-2-1B")
    assert lighton == (
        "<|im_start|>system<|im_end|>\n<|im_start|>user\n<|image_pad|><|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    olm = _render("allenai/olmOCR-2-7B-1025")  # text first, then the image; default system
    assert olm.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n")
    assert olm.index(get_spec("allenai/olmOCR-2-7B-1025").prompt or "?") < olm.index(
        "<|vision_start|><|image_pad|><|vision_end|>"
    )
    chandra = _render("datalab-to/chandra")
    assert chandra.startswith("<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>")
    assert _render("datalab-to/chandra-ocr-2").endswith("<|im_start|>assistant\n<think>\n")
    assert _render("datalab-to/chandra-ocr-2", False).endswith("<think>\n\n</think>\n\n")


def test_hf_cache_layout_resolves_by_refs_main(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    folder = build_model_folder("lightonai/LightOnOCR-2-1B", tmp_path)
    repo = tmp_path / "hub" / "models--lightonai--LightOnOCR-2-1B"
    assert folder == repo / "snapshots" / (repo / "refs" / "main").read_text()
    names = {p.name for p in folder.iterdir()}
    assert {"config.json", "tokenizer.json", "preprocessor_config.json"} <= names


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_synthetic_tokenizer_puts_specials_at_real_ids(kind: str) -> None:
    pytest.importorskip("tokenizers")
    from workbench.models.weightless import build_tokenizer

    recipe = KINDS[kind]
    ids = build_tokenizer(recipe).encode("<|im_start|>user\n<|image_pad|>ab<|im_end|>").ids
    # one token a byte for text, the added tokens whole at base + their place in the list
    assert len(ids) == 1 + 5 + 1 + 2 + 1
    assert (ids[0], ids[6], ids[-1]) == (recipe.base + 1, recipe.base + 12, recipe.base + 2)
    assert all(i < 256 for i in ids[1:6] + ids[7:9])


def test_cli_names_an_unknown_model_and_a_family_without_recipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--model", "no/such-model", "--out", str(tmp_path)]) == 2
    assert "unknown model" in capsys.readouterr().out
    assert main(["--model", "rednote-hilab/dots.ocr", "--out", str(tmp_path)]) == 2
    assert "no weightless folder recipe for model_type 'dots_ocr'" in capsys.readouterr().out
