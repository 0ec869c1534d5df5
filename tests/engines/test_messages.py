"""The chat messages and sampling the VLM engines send (per-model order, vLLM field names)."""

from __future__ import annotations

from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.messages import build_messages, chat_body, sampling_params_kwargs
from workbench.models import get_spec
from workbench.pipeline.process import build_request


def _request(model: str) -> PageRequest:
    return build_request(get_spec(model), "doc#1", Image.new("RGB", (16, 20), "white"))


def test_olmocr_sends_the_prompt_before_the_image() -> None:
    parts = build_messages(_request("allenai/olmOCR-2-7B-1025"))[0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]


def test_other_models_send_the_image_first() -> None:
    for model in (
        "datalab-to/chandra-ocr-2",
        "rednote-hilab/dots.ocr",
        "lightonai/LightOnOCR-3-1B",
    ):
        parts = build_messages(_request(model))[0]["content"]
        assert [p["type"] for p in parts] == ["image_url", "text"]
    parts = build_messages(_request("lightonai/LightOnOCR-2-1B"))[0]["content"]
    assert [p["type"] for p in parts] == ["image_url"]  # plain mode: the image alone


def test_deepseek_ngram_args_are_extra_args_in_process_and_vllm_xargs_over_http() -> None:
    request = _request("deepseek-ai/DeepSeek-OCR")
    local = sampling_params_kwargs(request.sampling)
    assert "vllm_xargs" not in local
    assert local["extra_args"]["window_size"] == 90 and local["skip_special_tokens"] is False
    body = chat_body("deepseek-ai/DeepSeek-OCR", request, request.sampling)
    assert body["vllm_xargs"]["ngram_size"] == 30 and "extra_args" not in body


def test_olmocr_repetition_penalty_reaches_both_paths() -> None:
    request = _request("allenai/olmOCR-2-7B-1025")
    assert sampling_params_kwargs(request.sampling)["repetition_penalty"] == 1.05
    assert chat_body("olmocr", request, request.sampling)["repetition_penalty"] == 1.05
