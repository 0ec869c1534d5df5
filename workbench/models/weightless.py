"""A weightless model folder: everything vLLM reads from a checkpoint except the weights.

:func:`build_model_folder` writes, for a registry model, the files vLLM needs to build the
model's config, tokenizer and multimodal processor, so that ``vllm.LLM(model=ID,
load_format="dummy")`` starts (random weights) and the ``vllm_contract`` lane can count a
page's prompt tokens, with no download:

* ``config.json``: the committed checkpoint config (``tests/data/model_configs/<name>/``),
  which carries the checkpoint's own ``model_type`` (LightOnOCR: ``mistral3``); plus
  ``generation_config.json`` (the fixture's, or the family's stop tokens);
* ``tokenizer.json``: a synthetic byte-level BPE tokenizer (no merges: one token a UTF-8
  byte, so it over-counts text), filler tokens up to the family's first added token, then the
  checkpoint's added tokens **at their real ids** (``<|image_pad|>``, ``<|vision_start|>``, …);
  ``tokenizer_config.json``; ``chat_template.jinja``, written here with the structure of the
  model's template (system turn, image part, generation prompt), not copied;
* the image processor the checkpoint's processor expects: Pixtral for LightOnOCR 1/2/3-1B;
  Qwen2-VL's for Qwen2.5-VL (olmOCR 2), Qwen3-VL (Chandra 1) and Qwen3.5 (Chandra OCR 2,
  LightOnOCR-3-0.8B/4B), with the real patch size, merge size and pixel bounds.

With ``hf_cache`` the folder is laid out as the Hugging Face cache
(``<out>/hub/models--org--name/snapshots/<rev>``, ``refs/main``): with ``HF_HOME=<out>`` and
``HF_HUB_OFFLINE=1`` the plain model id resolves. Only the ``tokenizers`` package is needed
(imported when the tokenizer is built). CLI: ``python -m workbench.models.weightless --model
ID --out DIR``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.models.registry import get_spec
from workbench.models.spec import ModelSpec

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "data" / "model_configs"
FOLDER_VERSION = "1"  # part of the snapshot revision: bump when the files written change

# Qwen's added tokens in id order (tokenizer_config ``added_tokens_decoder``), special or not.
# Qwen2/2.5 stop at <|file_sep|>; Qwen3 and Qwen3.5 add the tool-response and think markers.
_QWEN2_ADDED: tuple[tuple[str, bool], ...] = (
    ("<|endoftext|>", True), ("<|im_start|>", True), ("<|im_end|>", True),
    ("<|object_ref_start|>", True), ("<|object_ref_end|>", True),
    ("<|box_start|>", True), ("<|box_end|>", True),
    ("<|quad_start|>", True), ("<|quad_end|>", True),
    ("<|vision_start|>", True), ("<|vision_end|>", True),
    ("<|vision_pad|>", True), ("<|image_pad|>", True), ("<|video_pad|>", True),
    ("<tool_call>", False), ("</tool_call>", False),
    ("<|fim_prefix|>", False), ("<|fim_middle|>", False), ("<|fim_suffix|>", False),
    ("<|fim_pad|>", False), ("<|repo_name|>", False), ("<|file_sep|>", False),
)  # fmt: skip
_QWEN3_ADDED = (*_QWEN2_ADDED, ("<tool_response>", False), ("</tool_response>", False),
                ("<think>", False), ("</think>", False))  # fmt: skip
QWEN2_BASE = 151_643  # <|endoftext|> in Qwen2/2.5/3 and Qwen2.5-VL/Qwen3-VL tokenizers
QWEN35_BASE = 248_044  # <|endoftext|> in Qwen3.5's (the same list, 96,401 ids higher)

CLIP_MEAN = [0.48145466, 0.4578275, 0.40821073]  # OpenAI CLIP: Pixtral and Qwen2/2.5-VL
CLIP_STD = [0.26862954, 0.26130258, 0.27577711]
HALF = [0.5, 0.5, 0.5]  # Qwen3-VL and Qwen3.5

_IMAGE_PART = "{% if part['type'] in ['image', 'image_url', 'image_pil'] %}"


def _template(
    image: str, default_system: str | None, thinking: bool, empty_system: bool = False
) -> str:
    """ChatML with the image part as ``image`` and, per family, a default system turn
    (Qwen2.5-VL: "You are a helpful assistant."; LightOnOCR: an empty one) and Qwen3.5's
    thinking switch on the generation prompt."""
    system = ""
    if default_system is not None or empty_system:
        body = default_system or ""
        sep = "\n" if default_system else ""
        system = (
            "{% if loop.first and message['role'] != 'system' %}"
            f"<|im_start|>system{sep}{body}<|im_end|>\n{{% endif %}}"
        )
    gen = "<|im_start|>assistant\n"
    if thinking:
        gen += (
            "{% if enable_thinking is defined and enable_thinking is false %}"
            "<think>\n\n</think>\n\n{% else %}<think>\n{% endif %}"
        )
    return (
        "{% for message in messages %}" + system + "<|im_start|>{{ message['role'] }}\n"
        "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
        "{% for part in message['content'] %}" + _IMAGE_PART + image
        + "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}"
        "{% endif %}<|im_end|>\n{% endfor %}"
        "{% if add_generation_prompt %}" + gen + "{% endif %}"
    )  # fmt: skip


@dataclass(frozen=True)
class FolderKind:
    """What a checkpoint family's folder holds besides config.json (keyed by model_type)."""

    base: int  # id of the first added token; filler tokens fill the ids below it
    added: tuple[tuple[str, bool], ...]
    chat_template: str
    preprocessor: dict[str, Any]
    processor: dict[str, Any]  # processor_config.json; {} = none
    video_preprocessor: dict[str, Any]  # video_preprocessor_config.json; {} = none
    processor_class: str
    tokenizer_extra: dict[str, Any]


def _qwen_vision(processor_class: str, patch: int, mean: list[float], std: list[float],
                 min_pixels: int, max_pixels: int) -> dict[str, Any]:  # fmt: skip
    return {
        "image_processor_type": "Qwen2VLImageProcessorFast", "processor_class": processor_class,
        "do_convert_rgb": True, "do_normalize": True, "do_rescale": True, "do_resize": True,
        "image_mean": mean, "image_std": std, "rescale_factor": 1 / 255, "resample": 3,
        "patch_size": patch, "temporal_patch_size": 2, "merge_size": 2,
        "min_pixels": min_pixels, "max_pixels": max_pixels,
        "size": {"shortest_edge": min_pixels, "longest_edge": max_pixels},
    }  # fmt: skip


def _qwen3_video(patch: int) -> dict[str, Any]:
    """Qwen3-VL's video processor (Qwen3VLProcessor loads one even for images)."""
    return {
        "video_processor_type": "Qwen3VLVideoProcessor", "processor_class": "Qwen3VLProcessor",
        "do_convert_rgb": True, "do_normalize": True, "do_rescale": True, "do_resize": True,
        "do_sample_frames": True, "fps": 2, "min_frames": 4, "max_frames": 768,
        "image_mean": HALF, "image_std": HALF, "rescale_factor": 1 / 255, "resample": 3,
        "patch_size": patch, "temporal_patch_size": 2, "merge_size": 2,
        "size": {"shortest_edge": 4096, "longest_edge": 25_165_824},
    }  # fmt: skip


_QWEN_TOKENIZER = {"tokenizer_class": "Qwen2Tokenizer", "eos_token": "<|im_end|>",
                   "pad_token": "<|endoftext|>", "fix_mistral_regex": True}  # fmt: skip

KINDS: dict[str, FolderKind] = {
    # LightOnOCR 1/2/3-1B: Pixtral ViT (14 px patches, 2x2 merge, longest edge 1540) + Qwen3.
    "mistral3": FolderKind(
        base=QWEN2_BASE, added=_QWEN3_ADDED,
        chat_template=_template("<|image_pad|>", None, thinking=False, empty_system=True),
        preprocessor={
            "image_processor_type": "PixtralImageProcessorFast",
            "processor_class": "PixtralProcessor", "do_convert_rgb": True,
            "do_normalize": True, "do_rescale": True, "do_resize": True,
            "image_mean": CLIP_MEAN, "image_std": CLIP_STD, "patch_size": 14, "resample": 3,
            "rescale_factor": 1 / 255, "size": {"longest_edge": 1540},
        },
        processor={"processor_class": "PixtralProcessor", "image_token": "<|image_pad|>",
                   "image_break_token": "<|vision_pad|>", "image_end_token": "<|vision_end|>",
                   "patch_size": 14, "spatial_merge_size": 2},
        video_preprocessor={}, processor_class="PixtralProcessor",
        tokenizer_extra=_QWEN_TOKENIZER,
    ),
    # olmOCR 2: Qwen2.5-VL (14 px patches, 2x2 merge, 3,136..12,845,056 pixels).
    "qwen2_5_vl": FolderKind(
        base=QWEN2_BASE, added=_QWEN2_ADDED,
        chat_template=_template("<|vision_start|><|image_pad|><|vision_end|>",
                                "You are a helpful assistant.", thinking=False),
        preprocessor=_qwen_vision("Qwen2_5_VLProcessor", 14, CLIP_MEAN, CLIP_STD,
                                  3136, 12_845_056),
        processor={}, video_preprocessor={}, processor_class="Qwen2_5_VLProcessor",
        tokenizer_extra=_QWEN_TOKENIZER,
    ),
    # Chandra 1: Qwen3-VL (16 px patches, 2x2 merge, 65,536..16,777,216 pixels).
    "qwen3_vl": FolderKind(
        base=QWEN2_BASE, added=_QWEN3_ADDED,
        chat_template=_template("<|vision_start|><|image_pad|><|vision_end|>", None,
                                thinking=False),
        preprocessor=_qwen_vision("Qwen3VLProcessor", 16, HALF, HALF, 65_536, 16_777_216),
        processor={}, video_preprocessor=_qwen3_video(16), processor_class="Qwen3VLProcessor",
        tokenizer_extra=_QWEN_TOKENIZER,
    ),
    # Chandra OCR 2, LightOnOCR-3-0.8B/4B: Qwen3.5 (Qwen3-VL's processor, Qwen3.5 token ids).
    "qwen3_5": FolderKind(
        base=QWEN35_BASE, added=_QWEN3_ADDED,
        chat_template=_template("<|vision_start|><|image_pad|><|vision_end|>", None,
                                thinking=True),
        preprocessor=_qwen_vision("Qwen3VLProcessor", 16, HALF, HALF, 65_536, 16_777_216),
        processor={}, video_preprocessor=_qwen3_video(16), processor_class="Qwen3VLProcessor",
        tokenizer_extra=_QWEN_TOKENIZER,
    ),
}  # fmt: skip


def fixture_config(spec: ModelSpec) -> dict[str, Any]:
    """The committed checkpoint config of ``spec`` (``tests/data/model_configs/<name>``)."""
    path = FIXTURES / spec.id.rsplit("/", 1)[-1] / "config.json"
    if not path.is_file():
        raise FileNotFoundError(f"no committed config.json for {spec.id} at {path}")
    config: dict[str, Any] = json.loads(path.read_text())
    return config


def folder_kind(spec: ModelSpec) -> FolderKind:
    """The folder recipe of ``spec``'s checkpoint family; ``ValueError`` names the ones known."""
    model_type = str(fixture_config(spec).get("model_type"))
    if model_type not in KINDS:
        known = ", ".join(sorted(KINDS))
        raise ValueError(
            f"{spec.id}: no weightless folder recipe for model_type {model_type!r} ({known})"
        )
    return KINDS[model_type]


def build_tokenizer(kind: FolderKind) -> Any:
    """A ``tokenizers.Tokenizer``: 256 byte symbols, fillers ``<f{id}>`` up to ``kind.base``,
    then ``kind.added`` at ids ``kind.base``, ``kind.base + 1``, …"""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    vocab.update({f"<f{i}>": i for i in range(len(vocab), kind.base)})
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], fuse_unk=False, byte_fallback=False))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    for content, special in kind.added:
        token = AddedToken(content, special=special, normalized=False)
        if special:
            tok.add_special_tokens([token])
        else:
            tok.add_tokens([token])
    for offset, (content, _) in enumerate(kind.added):
        if tok.token_to_id(content) != kind.base + offset:
            raise RuntimeError(f"{content} landed at {tok.token_to_id(content)}")
    return tok


def _generation_config(spec: ModelSpec, kind: FolderKind) -> dict[str, Any]:
    ids = {content: kind.base + i for i, (content, _) in enumerate(kind.added)}
    stops = {"bos_token_id": ids["<|endoftext|>"], "pad_token_id": ids["<|endoftext|>"],
             "eos_token_id": [ids["<|im_end|>"], ids["<|endoftext|>"]]}  # fmt: skip
    path = FIXTURES / spec.id.rsplit("/", 1)[-1] / "generation_config.json"
    fixture = json.loads(path.read_text()) if path.is_file() else {}
    return {**stops, **spec.generation_config, **fixture}


def folder_files(spec: ModelSpec) -> dict[str, str]:
    """Every file of the folder (name -> text) except tokenizer.json."""
    kind = folder_kind(spec)
    added = {
        str(kind.base + i): {"content": c, "lstrip": False, "normalized": False,
                             "rstrip": False, "single_word": False, "special": s}
        for i, (c, s) in enumerate(kind.added)
    }  # fmt: skip
    tokenizer_config = {
        "added_tokens_decoder": added,
        "additional_special_tokens": [c for c, s in kind.added if s][1:],
        "bos_token": None, "unk_token": None, "clean_up_tokenization_spaces": False,
        "errors": "replace", "model_max_length": 262_144, "split_special_tokens": False,
        "add_bos_token": False, "processor_class": kind.processor_class,
        **kind.tokenizer_extra,
    }  # fmt: skip
    files = {
        "config.json": fixture_config(spec),
        "generation_config.json": _generation_config(spec, kind),
        "tokenizer_config.json": tokenizer_config,
        "preprocessor_config.json": kind.preprocessor,
        "processor_config.json": kind.processor,
        "video_preprocessor_config.json": kind.video_preprocessor,
    }
    out = {name: json.dumps(body, indent=2) + "\n" for name, body in files.items() if body}
    out["chat_template.jinja"] = kind.chat_template
    return out


def snapshot_revision(spec: ModelSpec) -> str:
    """A stable 40-hex revision for the cache layout: the same folder, the same name."""
    return hashlib.sha1(f"weightless/{FOLDER_VERSION}/{spec.id}".encode()).hexdigest()


def build_model_folder(spec_or_id: ModelSpec | str, out_dir: str | Path, *,
                       hf_cache: bool = True) -> Path:  # fmt: skip
    """Write the weightless folder of a registry model; return the folder holding the files.

    ``hf_cache``: ``out_dir`` is an ``HF_HOME``; the files go to
    ``out_dir/hub/models--org--name/snapshots/<rev>`` with ``refs/main`` naming ``<rev>``.
    Otherwise the files go into ``out_dir`` itself. ``KeyError`` for an unknown model,
    ``ValueError`` for a family without a recipe, ``FileNotFoundError`` without a fixture."""
    spec = get_spec(spec_or_id) if isinstance(spec_or_id, str) else spec_or_id
    files = folder_files(spec)  # raises before anything is written
    out = Path(out_dir)
    if hf_cache:
        repo = out / "hub" / ("models--" + spec.id.replace("/", "--"))
        rev = snapshot_revision(spec)
        folder = repo / "snapshots" / rev
        (repo / "refs").mkdir(parents=True, exist_ok=True)
        (repo / "refs" / "main").write_text(rev)
    else:
        folder = out
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    build_tokenizer(folder_kind(spec)).save(str(folder / "tokenizer.json"))
    return folder


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m workbench.models.weightless",
        description="Write a weightless model folder (config, synthetic tokenizer, processor "
        "config) for vLLM's load_format='dummy'.",
    )
    ap.add_argument("--model", required=True, action="append", help="registry id (repeatable)")
    ap.add_argument("--out", required=True, help="HF_HOME to fill (or the folder, --flat)")
    ap.add_argument("--flat", action="store_true", help="files straight into --out, no cache")
    args = ap.parse_args(argv)
    for model in args.model:
        try:
            folder = build_model_folder(model, args.out, hf_cache=not args.flat)
        except (KeyError, ValueError, FileNotFoundError) as exc:
            print(f"error: {exc}")
            return 2
        print(f"{model}: {folder}")
    if not args.flat:
        print(f"use: HF_HOME={args.out} HF_HUB_OFFLINE=1 (the model ids resolve offline)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
