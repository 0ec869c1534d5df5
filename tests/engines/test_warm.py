"""The sampler warm-up (:mod:`workbench.engines.warm`): what it sends a freshly built engine,
and that a failing warm-up never stops one that loaded."""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image

from tests.fakes import fake_vllm as fv
from tests.fakes.fake_vllm import FakeLLM
from workbench.engines import warm
from workbench.engines.base import PageRequest
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.models.registry import get_spec
from workbench.schema import Sampling


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    parallel_state = types.ModuleType("vllm.distributed.parallel_state")
    parallel_state.cleanup_dist_env_and_memory = lambda: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setitem(sys.modules, "vllm.distributed", types.ModuleType("vllm.distributed"))
    monkeypatch.setitem(sys.modules, "vllm.distributed.parallel_state", parallel_state)


def test_only_samplings_that_reach_the_kernel_are_warmed_each_once() -> None:
    greedy = Sampling(temperature=0.0, top_p=0.1, max_tokens=900)  # vLLM: greedy, no kernel
    top_p = Sampling(temperature=0.2, top_p=0.9, max_tokens=900)
    again = Sampling(temperature=0.2, top_p=0.9, max_tokens=12)  # the same once shortened
    top_k = Sampling(temperature=0.7, top_p=1.0, max_tokens=900, extra={"top_k": 20})
    plain = Sampling(temperature=0.7, top_p=1.0, max_tokens=900)  # neither: no kernel
    assert warm.cases([greedy, top_p, again, top_k, plain]) == [
        Sampling(temperature=0.2, top_p=0.9, max_tokens=warm.TOKENS),
        Sampling(temperature=0.7, top_p=1.0, max_tokens=warm.TOKENS, extra={"top_k": 20}),
    ]
    assert warm.cases([greedy]) == []  # a greedy model compiles nothing to warm
    assert warm.cases([]) == list(warm.GENERIC)  # nothing named: top-p, top-k and both


def test_each_case_goes_at_both_batch_sizes_as_token_prompts(fake_vllm: None) -> None:
    sampling = Sampling(temperature=0.2, top_p=0.9, max_tokens=4096)
    engine = VllmLocalEngine("m/ocr", samplings=[sampling])
    llm = FakeLLM.last
    assert llm is not None
    assert [n for n, _ in llm.generated] == list(warm.BATCHES)
    assert 1 in warm.BATCHES and any(n % 16 == 0 for n in warm.BATCHES)
    assert any(n % 16 and n >= 8 for n in warm.BATCHES)  # 0.26: the kernel from 8 rows on
    for _, params in llm.generated:
        assert (params.temperature, params.top_p, params.max_tokens) == (0.2, 0.9, warm.TOKENS)
    assert engine.describe()["sampler warm-up (s)"] == f"{engine.warm_s:.2f}"
    assert llm.rendered == []  # no page went in: the engine's pages start after it


def test_a_failing_warm_up_leaves_a_working_engine(
    fake_vllm: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no generate today")

    monkeypatch.setattr(FakeLLM, "generate", refuse)
    engine = VllmLocalEngine("m/ocr")
    assert "sampler warm-up failed" in caplog.text
    page = PageRequest(key="p0", image=Image.new("RGB", (50, 40)), prompt="OCR")
    [out] = list(engine.run([page]))
    assert out.ok, out.error
    engine.close()


def test_the_plan_names_the_models_first_try_and_first_retry() -> None:
    from workbench.engines.factory import LocalOptions
    from workbench.gpu.launch import planned_options

    spec = get_spec("lightonai/LightOnOCR-2-1B")
    launch = SimpleNamespace(spec=spec, kwargs={}, plan=SimpleNamespace(pages_in_flight=7))
    planned = planned_options(LocalOptions(spec.id), launch)  # type: ignore[arg-type]
    assert planned.samplings == (spec.sampling, *spec.retry_sampling[:1])
    mine = (Sampling(temperature=0.5, top_p=0.5),)
    again = planned_options(LocalOptions(spec.id, samplings=mine), launch)  # type: ignore[arg-type]
    assert again.samplings == mine
