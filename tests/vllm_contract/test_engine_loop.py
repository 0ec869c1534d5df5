"""The calls :mod:`workbench.engines.loop` makes into ``vllm.LLM``, checked on the real
classes of each supported release (no GPU: signatures and the id rule, read from the code)."""

from __future__ import annotations

import inspect

import pytest

from workbench.engines.loop import external_id

vllm = pytest.importorskip("vllm")


def _params(function: object) -> set[str]:
    return set(inspect.signature(function).parameters)  # type: ignore[arg-type]


def test_llm_enqueues_one_chat_with_its_template_kwargs() -> None:
    """``enqueue_chat`` (0.26 and later), or on 0.17 the two steps its ``LLM.chat`` takes."""
    if hasattr(vllm.LLM, "enqueue_chat"):
        params = _params(vllm.LLM.enqueue_chat)
        wanted = {"messages", "sampling_params", "use_tqdm", "chat_template_kwargs", "priority"}
        assert wanted <= params
        return
    assert {"conversation", "chat_template_kwargs"} <= _params(vllm.LLM._preprocess_chat_one)
    assert {"prompts", "params", "priorities"} <= _params(vllm.LLM._render_and_add_requests)


def test_priority_scheduling_is_an_engine_argument_the_release_takes() -> None:
    """The engine asks for ``scheduling_policy="priority"`` (a newcomer's page first)."""
    from vllm.config import SchedulerConfig
    from vllm.engine.arg_utils import EngineArgs

    assert "scheduling_policy" in inspect.signature(EngineArgs).parameters
    assert "policy" in inspect.signature(SchedulerConfig).parameters
    assert "priority" in inspect.getsource(EngineArgs).split("scheduling_policy", 1)[1][:2000] or (
        "priority" in str(inspect.signature(SchedulerConfig).parameters["policy"].annotation)
    )


def test_the_engine_steps_aborts_and_counts_as_the_loop_calls_it() -> None:
    from vllm.v1.engine.llm_engine import LLMEngine

    assert _params(LLMEngine.step) == {"self"}
    assert {"request_ids", "internal"} <= _params(LLMEngine.abort_request)
    assert _params(LLMEngine.has_unfinished_requests) == {"self"}
    assert _params(LLMEngine.get_num_unfinished_requests) == {"self"}


def test_a_finished_output_carries_the_id_before_the_random_suffix() -> None:
    """``enqueue_chat`` returns vLLM's internal id (``assign_request_id``: the external id, a
    dash and 8 random characters); the finished ``RequestOutput`` carries the external one."""
    from vllm.v1.engine.input_processor import InputProcessor

    source = inspect.getsource(InputProcessor.assign_request_id)
    assert 'f"{request.external_req_id}-{random_uuid():.8}"' in source
    assert external_id("17-1a2b3c4d") == "17" and external_id("17") == "17"
    from vllm.v1.engine import output_processor

    assert "request_id=external_req_id" in inspect.getsource(output_processor)


def test_the_offline_llm_asks_for_the_final_output_only() -> None:
    """What keeps the loop's per-step work small: vLLM's offline path sets FINAL_ONLY on every
    request it adds (the loop relies on ``enqueue_chat`` doing so)."""
    llm_source = inspect.getsource(vllm.LLM)
    bases = "".join(inspect.getsource(base) for base in vllm.LLM.__mro__[1:-1])
    assert "RequestOutputKind.FINAL_ONLY" in llm_source + bases


def test_a_first_token_is_read_from_the_output_processor() -> None:
    """The loop's pacing reads a request's first token as "its prompt is prefilled". The
    offline path asks FINAL_ONLY, so steps return finished requests only; the first token is
    read from the output processor's ``RequestState`` of the request, by internal id
    (``is_prefilling`` False from its first token, ``prompt_len``), which every output goes
    through whatever its kind. The step's token budget must be a scheduler setting."""
    from vllm.config import SchedulerConfig
    from vllm.v1.engine.llm_engine import LLMEngine
    from vllm.v1.engine.output_processor import OutputProcessor, RequestState

    assert "self.output_processor" in inspect.getsource(LLMEngine.__init__)
    assert "self.request_states" in inspect.getsource(OutputProcessor.__init__)
    state = inspect.getsource(RequestState.__init__)
    assert "self.is_prefilling = True" in state and "self.prompt_len" in state
    assert "is_prefilling = False" in inspect.getsource(OutputProcessor.process_outputs)
    assert "max_num_batched_tokens" in inspect.signature(SchedulerConfig).parameters
