"""VllmLocalEngine: the code path against a fake ``vllm`` module, and the real thing on a GPU."""

from __future__ import annotations

import gc
import importlib.util
import os
import sys
import types
import weakref
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image, ImageDraw

from workbench.engines.base import Engine, PageRequest
from workbench.engines.vllm_local import INSTALL_HINT, VllmLocalEngine
from workbench.errors import EngineUnavailable
from workbench.schema import Sampling

LOOP = "| a | b |\n" * 100


@dataclass
class FakeSamplingParams:  # unknown keywords raise TypeError, like the real one
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 16
    repetition_penalty: float = 1.0
    top_k: int = -1


class FakeLLM:
    last: FakeLLM | None = None

    def __init__(self, model: str, **kwargs: Any) -> None:
        if kwargs.get("gpu_memory_utilization", 0.5) > 1:
            raise ValueError("gpu_memory_utilization must be at most 1")
        self.model, self.kwargs = model, kwargs
        self.calls: list[tuple[list[Any], list[FakeSamplingParams], dict[str, Any] | None]] = []
        self.shutdowns = 0
        chosen = kwargs["max_model_len"] if kwargs["max_model_len"] > 0 else 32768
        self.llm_engine = SimpleNamespace(
            vllm_config=SimpleNamespace(
                model_config=SimpleNamespace(max_model_len=chosen),
                cache_config=SimpleNamespace(num_gpu_blocks=2000, block_size=16),
            ),
            engine_core=SimpleNamespace(shutdown=self._shutdown),
        )
        FakeLLM.last = self

    def _shutdown(self) -> None:
        self.shutdowns += 1

    def chat(
        self,
        messages: list[Any],
        sampling_params: list[FakeSamplingParams],
        use_tqdm: bool = True,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> list[Any]:
        self.calls.append((messages, sampling_params, chat_template_kwargs))
        outputs = []
        for conversation, params in zip(messages, sampling_params, strict=True):
            user = conversation[-1]["content"]
            image = user[0]["image_pil"]
            prompt = user[1]["text"] if len(user) > 1 else ""
            if prompt == "BAD":
                raise ValueError("prompt is longer than max_model_len")
            if prompt == "LOOP" and params.temperature == 0:
                text, finish = LOOP, "length"
            else:
                text, finish = f"width {image.width}", "stop"
            completion = SimpleNamespace(text=text, finish_reason=finish, token_ids=[1] * 7)
            outputs.append(SimpleNamespace(outputs=[completion]))
        return outputs


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    cleanups = SimpleNamespace(count=0)

    def cleanup() -> None:
        cleanups.count += 1

    vllm = types.ModuleType("vllm")
    vllm.LLM = FakeLLM  # type: ignore[attr-defined]
    vllm.SamplingParams = FakeSamplingParams  # type: ignore[attr-defined]
    distributed = types.ModuleType("vllm.distributed")
    parallel_state = types.ModuleType("vllm.distributed.parallel_state")
    parallel_state.cleanup_dist_env_and_memory = cleanup  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", vllm)
    monkeypatch.setitem(sys.modules, "vllm.distributed", distributed)
    monkeypatch.setitem(sys.modules, "vllm.distributed.parallel_state", parallel_state)
    return cleanups


def _page(i: int, prompt: str = "OCR", **kw: Any) -> PageRequest:
    return PageRequest(key=f"p{i}", image=Image.new("RGB", (50 + i, 40)), prompt=prompt, **kw)


def test_without_vllm_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` raise ImportError
    with pytest.raises(EngineUnavailable) as info:
        VllmLocalEngine("some/model")
    assert str(info.value) == INSTALL_HINT


def test_engine_args_and_what_vllm_chose(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr", {"gpu_memory_utilization": 0.8, "max_num_seqs": 64})
    assert isinstance(engine, Engine)
    llm = FakeLLM.last
    assert llm is not None and llm.model == "m/ocr"
    assert llm.kwargs == {"max_model_len": -1, "gpu_memory_utilization": 0.8, "max_num_seqs": 64}
    assert engine.actual == {
        "max_model_len": 32768,
        "num_gpu_blocks": 2000,
        "block_size": 16,
        "kv_tokens": 32000,
    }
    described = engine.describe()
    assert described["max_model_len"] == "32768" and described["kv_tokens"] == "32000"
    assert described["gpu_memory_utilization"] == "0.8"
    VllmLocalEngine("m/ocr", {"max_model_len": 4096}, max_model_len=8192)
    assert FakeLLM.last is not None and FakeLLM.last.kwargs["max_model_len"] == 8192


def test_load_failure_is_engine_unavailable(fake_vllm: SimpleNamespace) -> None:
    with pytest.raises(EngineUnavailable, match="could not load m/ocr: gpu_memory_utilization"):
        VllmLocalEngine("m/ocr", {"gpu_memory_utilization": 1.5})


def test_all_pages_go_in_one_chat_call(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    sampling = Sampling(temperature=0.1, top_p=0.9, max_tokens=900, extra={"top_k": 5})
    outputs = {o.key: o for o in engine.run([_page(i, sampling=sampling) for i in range(6)])}
    llm = FakeLLM.last
    assert llm is not None and len(llm.calls) == 1
    conversations, params, _ = llm.calls[0]
    assert len(conversations) == 6 and len(params) == 6
    assert params[0] == FakeSamplingParams(temperature=0.1, top_p=0.9, max_tokens=900, top_k=5)
    assert [part["type"] for part in conversations[0][0]["content"]] == ["image_pil", "text"]
    for i in range(6):
        out = outputs[f"p{i}"]
        assert out.ok and out.raw == f"width {50 + i}" and out.tokens == 7
        assert len(out.attempts) == 1 and out.attempts[0].finish_reason == "stop"


def test_looping_pages_are_retried_together(fake_vllm: SimpleNamespace) -> None:
    retry = (Sampling(temperature=0.3, top_p=0.95),)
    pages = [_page(i, "LOOP" if i in (1, 3) else "OCR", retry_sampling=retry) for i in range(5)]
    engine = VllmLocalEngine("m/ocr")
    order = [o.key for o in engine.run(pages)]
    outputs = {o.key: o for o in engine.run(pages)}
    llm = FakeLLM.last
    assert llm is not None and len(llm.calls) == 4  # two runs of (first pass + one retry call)
    retry_conversations, retry_params, _ = llm.calls[1]
    assert len(retry_conversations) == 2
    assert [p.temperature for p in retry_params] == [0.3, 0.3]
    assert order[-2:] == ["p1", "p3"]  # clean pages are yielded before the retry call
    for key in ("p1", "p3"):
        assert [(a.temperature, a.repeated) for a in outputs[key].attempts] == [
            (0.0, True),
            (0.3, False),
        ]
        assert outputs[key].raw.startswith("width")
    assert len(outputs["p0"].attempts) == 1


def test_a_failing_page_does_not_sink_the_batch(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    outputs = {o.key: o for o in engine.run([_page(0), _page(1, "BAD"), _page(2)])}
    assert outputs["p0"].ok and outputs["p2"].ok
    assert "prompt is longer than max_model_len" in (outputs["p1"].error or "")


def test_chat_template_kwargs_split_calls(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    thinking = {"enable_thinking": False}
    list(engine.run([_page(0), _page(1, chat_template_kwargs=thinking), _page(2)]))
    llm = FakeLLM.last
    assert llm is not None
    assert sorted((len(c[0]), c[2] is not None) for c in llm.calls) == [(1, True), (2, False)]
    assert [c[2] for c in llm.calls if c[2]] == [thinking]


def test_close_releases_and_is_idempotent(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    llm = FakeLLM.last
    assert llm is not None
    alive = weakref.ref(llm)
    FakeLLM.last = None
    del llm
    engine.close()
    gc.collect()
    assert alive() is None  # the engine no longer holds the LLM
    assert fake_vllm.count == 1
    engine.close()
    assert fake_vllm.count == 1
    [out] = list(engine.run([_page(0)]))
    assert out.error == "the vLLM engine was closed"


def test_close_calls_engine_core_shutdown(fake_vllm: SimpleNamespace) -> None:
    engine = VllmLocalEngine("m/ocr")
    llm = FakeLLM.last
    assert llm is not None
    engine.close()
    engine.close()
    assert llm.shutdowns == 1


def _has_vllm_and_gpu() -> bool:
    if importlib.util.find_spec("vllm") is None or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


@pytest.mark.vllm
@pytest.mark.skipif(not _has_vllm_and_gpu(), reason="needs the vllm package and a CUDA GPU")
def test_real_vllm_reads_a_page_and_frees_memory() -> None:
    import torch

    model = os.environ.get("WORKBENCH_VLLM_TEST_MODEL", "lightonai/LightOnOCR-2-1B")
    image = Image.new("RGB", (800, 300), "white")
    ImageDraw.Draw(image).text((40, 120), "INVOICE 2024-117", fill="black", font_size=48)
    free_before = torch.cuda.mem_get_info()[0]
    engine = VllmLocalEngine(
        model,
        {"gpu_memory_utilization": 0.5, "max_num_seqs": 4, "enforce_eager": True},
        max_model_len=8192,
    )
    try:
        assert engine.actual["max_model_len"] == 8192
        assert (engine.actual["num_gpu_blocks"] or 0) > 0
        [out] = list(engine.run([PageRequest(key="p", image=image, sampling=Sampling(0.1))]))
        assert out.ok and "2024" in out.raw
    finally:
        engine.close()
    assert torch.cuda.mem_get_info()[0] > free_before - 2 * 2**30  # at most 2 GiB kept
