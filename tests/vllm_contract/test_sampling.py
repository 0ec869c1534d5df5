"""Every model's sampling and retry sampling, as vLLM 0.33 receives them.

In-process: the engine's own ``SamplingParams`` construction. Over HTTP: the chat body the
server engine posts (messages included: image part, text part, in the model's order)
validates as vLLM's ``ChatCompletionRequest`` and converts to ``SamplingParams`` the way the
server does, with the model's generation_config defaults (``ModelConfig.
get_diff_sampling_param`` on the config fixture). Both paths must give the same parameters.

vLLM's own chat-message parser for the in-process ``image_pil`` part
(``parse_chat_messages``) needs the model's tokenizer files to build its multimodal
processor, which no fixture can stand in for offline; the HTTP messages are checked instead.
"""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

from tests.vllm_contract.conftest import OLD_VLLM_STREAM_INTERVAL, fixture_dir
from tests.vllm_contract.test_engine_args import SPECS
from workbench.engines.base import PageRequest
from workbench.engines.messages import STREAM_INTERVAL, chat_body, streamed
from workbench.engines.vllm_local import VllmLocalEngine

vllm = pytest.importorskip("vllm")


def _samplings(spec: Any) -> list[Any]:
    return [spec.sampling, *spec.retry_sampling]


_DEFAULTS: dict[str, dict[str, Any]] = {}


def _server_defaults(spec: Any) -> dict[str, Any]:
    """What ``vllm serve`` fills in from the checkpoint's generation_config.json."""
    if spec.id not in _DEFAULTS:
        from vllm.config import ModelConfig

        config = ModelConfig(
            model=str(fixture_dir(spec.id)), skip_tokenizer_init=True, trust_remote_code=True
        )
        _DEFAULTS[spec.id] = config.get_diff_sampling_param()
    return _DEFAULTS[spec.id]


def _local_engine() -> VllmLocalEngine:
    engine = VllmLocalEngine.__new__(VllmLocalEngine)  # no model load: only the params path
    engine._sampling_params = vllm.SamplingParams
    return engine


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_in_process_sampling_params_construct(spec: Any) -> None:
    engine = _local_engine()
    for sampling in _samplings(spec):
        params = engine._params(sampling)
        assert params.max_tokens == sampling.max_tokens
        assert params.temperature == pytest.approx(sampling.temperature)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_server_body_validates_as_vllm_chat_request(spec: Any) -> None:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    image = Image.new("RGB", (64, 80), "white")
    for sampling in _samplings(spec):
        request = PageRequest(
            key="p1",
            image=image,
            prompt=spec.prompt,
            sampling=sampling,
            system=spec.system,
            chat_template_kwargs=dict(spec.chat_template_kwargs),
        )
        body = chat_body(spec.id, request, sampling)
        parsed = ChatCompletionRequest(**body)
        params = parsed.to_sampling_params(sampling.max_tokens, _server_defaults(spec))
        assert params.max_tokens == sampling.max_tokens
        assert params.temperature == pytest.approx(sampling.temperature)
        local = _local_engine()._params(sampling)
        for field in ("temperature", "top_p", "max_tokens", "repetition_penalty", "top_k",
                      "skip_special_tokens", "extra_args"):  # fmt: skip
            assert getattr(local, field) == getattr(params, field), (spec.id, field)


def test_olmocr_server_and_in_process_apply_the_checkpoints_repetition_penalty() -> None:
    spec = next(s for s in SPECS if s.id == "allenai/olmOCR-2-7B-1025")
    assert _server_defaults(spec).get("repetition_penalty") == 1.05
    assert _local_engine()._params(spec.sampling).repetition_penalty == 1.05


@OLD_VLLM_STREAM_INTERVAL
def test_the_streamed_body_asks_vllm_for_16_tokens_an_event_with_running_usage() -> None:
    """What the server engine sends (streamed): vLLM's own request model takes the fields
    into the SamplingParams (stream_interval) and its stream options, not as ignored extras."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    spec = SPECS[0]
    request = PageRequest(key="p1", image=Image.new("RGB", (64, 80), "white"), prompt="OCR")
    body = streamed(chat_body(spec.id, request, spec.sampling))
    parsed = ChatCompletionRequest(**body)
    assert parsed.model_extra == {}  # every field is one vLLM knows
    assert parsed.stream and parsed.stream_options is not None
    assert parsed.stream_options.include_usage and parsed.stream_options.continuous_usage_stats
    params = parsed.to_sampling_params(spec.sampling.max_tokens, _server_defaults(spec))
    assert params.stream_interval == STREAM_INTERVAL == 16
    plain = ChatCompletionRequest(
        **streamed(chat_body(spec.id, request, spec.sampling), vllm=False)
    )
    assert plain.to_sampling_params(spec.sampling.max_tokens, {}).stream_interval is None
