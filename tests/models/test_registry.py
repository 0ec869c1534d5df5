import hashlib

import pytest

from workbench.models.registry import CPU_SPEC, all_specs, get_spec, match_served_model
from workbench.parsers import parser_names
from workbench.schema import Sampling

# sha256 of the upstream prompt strings, computed from chandra-ocr 0.2.0 / 0.1.8
# (prompts.OCR_LAYOUT_PROMPT) and olmocr 0.4.27 (build_no_anchoring_v4_yaml_prompt()).
UPSTREAM_PROMPT_SHA256 = {
    "datalab-to/chandra-ocr-2": "025935f3e1de1acdfadd4c7d581ab17eb82e8caaffef7b64962621c80b7ca9a8",
    "datalab-to/chandra": "3cdbeed4e2b12e40455738f8106b1fc7b4bb91d326f88d32178d5c5bbb178567",
    "allenai/olmOCR-2-7B-1025": "c12f21aca8c6c5599cea6176edd974b7ea6a05cf451497abd6370dd449db3979",
}


@pytest.mark.parametrize(("model", "digest"), UPSTREAM_PROMPT_SHA256.items())
def test_prompts_are_verbatim(model, digest):
    assert hashlib.sha256(get_spec(model).prompt.encode()).hexdigest() == digest


def test_prompt_contents():
    assert "normalized 0-1000" in get_spec("datalab-to/chandra-ocr-2").prompt
    assert (
        "[x0, y0, x1, y1] format.  Bboxes are normalized 0-1024"
        in get_spec("datalab-to/chandra").prompt
    )
    assert (
        "'Section-header', 'Table', 'Text', 'Title']" in get_spec("rednote-hilab/dots.ocr").prompt
    )
    assert (
        get_spec("deepseek-ai/DeepSeek-OCR").prompt
        == "<image>\n<|grounding|>Convert the document to markdown."
    )
    assert get_spec("lightonai/LightOnOCR-3-1B").prompt == "grounding"
    assert get_spec("lightonai/LightOnOCR-2-1B").prompt is None  # plain mode: the image alone


@pytest.mark.parametrize(
    ("served", "expected"),
    [
        ("chandra-ocr-2", "datalab-to/chandra-ocr-2"),
        ("datalab-to/chandra-ocr-2", "datalab-to/chandra-ocr-2"),
        ("chandra", "datalab-to/chandra-ocr-2"),  # chandra_vllm's --served-model-name
        ("LightOnOCR-2-1B", "lightonai/LightOnOCR-2-1B"),
        ("lightonai/lightonocr-3-0.8b", "lightonai/LightOnOCR-3-0.8B"),
        ("olmocr", "allenai/olmOCR-2-7B-1025"),  # the olmOCR pipeline's served name
        ("allenai/olmOCR-2-7B-1025-FP8", "allenai/olmOCR-2-7B-1025-FP8"),
        ("/models/olmOCR-2-7B-1025-FP8", "allenai/olmOCR-2-7B-1025-FP8"),
        ("rednote-hilab/dots.ocr", "rednote-hilab/dots.ocr"),
        ("deepseek-ai/DeepSeek-OCR", "deepseek-ai/DeepSeek-OCR"),
    ],
)
def test_match_served_model(served, expected):
    spec = match_served_model(served)
    assert spec is not None and spec.id == expected


def test_unknown_served_model():
    assert match_served_model("meta-llama/Llama-3-8B") is None
    with pytest.raises(KeyError):
        get_spec("nope")


def test_every_spec_names_a_registered_parser_and_sane_sampling():
    names = set(parser_names())
    specs = [s for s in all_specs() if s is not CPU_SPEC]
    assert len(specs) >= 10
    for spec in specs:
        assert spec.parser in names, spec.id
        assert spec.sampling.max_tokens > 0
        for retry in spec.retry_sampling:
            assert isinstance(retry, Sampling)
            assert retry.temperature >= spec.sampling.temperature  # hotter or equal, never colder


def test_model_facts():
    c2 = get_spec("datalab-to/chandra-ocr-2")
    assert [s.temperature for s in c2.retry_sampling] == [0.2, 0.4, 0.6, 0.8, 0.8, 0.8]
    assert {s.top_p for s in c2.retry_sampling} == {0.95} and c2.sampling.max_tokens == 12384
    olm = get_spec("olmocr")
    temps = [olm.sampling.temperature] + [s.temperature for s in olm.retry_sampling]
    assert temps == [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0] and olm.sizing.longest_edge == 1288
    assert not olm.boxes and not get_spec("LightOnOCR-2-1B").boxes
    assert get_spec("LightOnOCR-3-4B").sizing.longest_edge == 2048
    assert get_spec("LightOnOCR-3-1B").sizing.longest_edge == 1540
    assert get_spec("dots.ocr").sizing.max_pixels == 11_289_600
    ds = get_spec("deepseek-ai/DeepSeek-OCR")
    assert ds.sampling.extra["skip_special_tokens"] is False
    assert get_spec("CPU") is CPU_SPEC


# ---- one registry: every fact in the spec (issue 8), upstream fidelity (issue 9) ----------
VLM_SPECS = [s for s in all_specs() if s.id != "cpu"]


@pytest.mark.parametrize("spec", VLM_SPECS, ids=lambda s: s.id)
def test_every_model_carries_all_its_facts(spec):
    assert spec.arch is not None and spec.context_length == spec.arch.context
    assert spec.output_format and spec.sources
    assert spec.max_tokens == spec.sampling.max_tokens
    assert spec.boxes == bool(spec.coord_scale)
    assert "default_chat_template_kwargs" not in spec.vllm_args  # server-only: serve_args


def test_one_lookup_for_architecture_and_spec():
    from workbench.models.registry import find_architecture

    for name in ("chandra", "olmocr", "/models/olmOCR-2-7B-1025-FP8", "dots.ocr"):
        spec = match_served_model(name)
        assert spec is not None and find_architecture(name) is spec.arch
    assert find_architecture("acme/unknown") is None


def test_context_lengths_are_the_checkpoints():
    assert get_spec("lightonai/LightOnOCR-2-1B").context_length == 16_384
    assert get_spec("lightonai/LightOnOCR-1B-1025").context_length == 8192
    assert get_spec("lightonai/LightOnOCR-3-1B").context_length == 16_384
    assert get_spec("deepseek-ai/DeepSeek-OCR").context_length == 8192


def test_chandra1_has_one_max_tokens():
    spec = get_spec("datalab-to/chandra")
    assert {s.max_tokens for s in (spec.sampling, *spec.retry_sampling)} == {8192}


def test_olmocr_upstream_schedule_order_and_generation_defaults():
    spec = get_spec("allenai/olmOCR-2-7B-1025")
    temps = [s.temperature for s in (spec.sampling, *spec.retry_sampling)]
    assert temps == [0.1, 0.1, 0.2, 0.3, 0.5, 0.8, 0.9, 1.0]  # TEMPERATURE_BY_ATTEMPT
    assert spec.prompt_first and spec.retry_on_length
    assert all(s.repetition_penalty == 1.05 for s in (spec.sampling, *spec.retry_sampling))


def test_chandra_retries_six_times():
    for model in ("datalab-to/chandra-ocr-2", "datalab-to/chandra"):
        assert len(get_spec(model).retry_sampling) == 6


def test_dots_prompt_has_the_image_prefix():
    prompt = get_spec("rednote-hilab/dots.ocr").prompt
    assert prompt.startswith("<|img|><|imgpad|><|endofimg|>Please output the layout")


def test_deepseek_retry_keeps_the_ngram_guard():
    spec = get_spec("deepseek-ai/DeepSeek-OCR")
    for sampling in (spec.sampling, *spec.retry_sampling):
        assert sampling.extra["vllm_xargs"]["ngram_size"] == 30
        assert sampling.extra["skip_special_tokens"] is False


def test_lighton3_thinking_off_per_request_and_on_the_server_only():
    for size in ("0.8B", "4B"):
        spec = get_spec(f"lightonai/LightOnOCR-3-{size}")
        assert spec.chat_template_kwargs == {"enable_thinking": False}
        assert spec.serve_args == {"default_chat_template_kwargs": {"enable_thinking": False}}
