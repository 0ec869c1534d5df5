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
