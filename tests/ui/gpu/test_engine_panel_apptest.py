"""The vLLM telemetry panel (issue 36) in AppTest: the GPU page's section and the sidebar's
lines move with a fake vLLM server's /metrics, say in one line when it is gone, and are absent
for an engine that is not vLLM."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.fakes import fake_vllm as fv
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.vllm_metrics import VllmMetrics
from workbench.engines.base import PageRequest
from workbench.engines.factory import LocalOptions, ServerOptions
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.schema import Sampling
from workbench.ui.engines import EngineChoice

PAGE = Path(__file__).resolve().parents[3] / "pages" / "gpu.py"


def _page(base_url: str | None) -> AppTest:
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = "generic-24gb"
    if base_url is not None:
        at.session_state["engine_choice"] = EngineChoice(
            "vllm-server", ServerOptions(base_url=base_url, concurrency=12)
        )
    return at


def _metrics(at: AppTest) -> dict[str, str]:
    return {m.label: str(m.value) for m in at.metric}


def test_the_gpu_page_shows_vllms_numbers_as_they_move() -> None:
    with FakeOpenAIServer() as server:
        server.vllm_metrics = metrics = VllmMetrics(kv_blocks=1000)
        metrics.set_load(3, 1, 0.25)
        server.max_running = 10**6  # metrics_page() sets the load from completions: none here
        server.metrics_page = metrics.text  # type: ignore[method-assign]  # the test's load
        at = _page(server.base_url).run()
        assert not at.exception, at.exception
        first = _metrics(at)
        assert (first["Running"], first["Waiting"], first["Preemptions"]) == ("3", "1", "0")
        assert any("vLLM KV cache 25%" in p.proto.text for p in at.get("progress"))
        metrics.set_load(9, 4, 0.75)
        metrics.preempt(2)
        for _ in range(3):
            metrics.finish("length", 1000, 4096, 0.3)
        at.run()
        moved = _metrics(at)
        assert (moved["Running"], moved["Waiting"], moved["Preemptions"]) == ("9", "4", "2")
        assert moved["Cut off (length)"] == "3"
        assert moved["Tokens/s out"] not in ("…", "0")  # a rate between the two readings
        plan = at.dataframe[-1].value
        assert plan["plan"].iloc[0] == 12  # the workbench's pages in flight, beside vLLM's
        assert "2 preemptions" in plan["note"].iloc[0]
    at.run()  # the server is gone: one line, no exception
    assert not at.exception
    gone = f"{server.base_url.removesuffix('/v1')}/metrics does not answer"
    assert any(gone in i.value for i in at.info)


def test_no_vllm_no_panel() -> None:
    at = _page(None).run()
    assert not at.exception
    assert "Running" not in _metrics(at)
    assert any("Pick a vLLM engine" in c.value for c in at.caption)


def test_the_in_process_engine_is_watched_once_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """``vllm`` in process: nothing is loaded to show numbers; once the engine exists its own
    ``stats()`` (vLLM's ``get_metrics()``, here the fake vLLM's) fill the section."""
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setattr(fv.FakeLLM, "step_s", 0.002)
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = "generic-24gb"
    at.session_state["engine_choice"] = EngineChoice("vllm", LocalOptions(model=fv.MODEL))
    at.run()
    assert not at.exception, at.exception
    assert any("loads with the first page" in i.value for i in at.info)
    engine = VllmLocalEngine(fv.MODEL, {"max_num_seqs": 16})
    try:
        at.session_state["engine_override"] = engine
        at.run()
        assert _metrics(at)["Cut off (length)"] == "0"
        loop = PageRequest("loop", Image.new("RGB", (30, 30)), prompt="LOOP",
                           sampling=Sampling(0.0, max_tokens=8))  # fmt: skip
        engine.max_attempts = 1
        list(engine.run([loop]))
        at.run()
        assert not at.exception, at.exception
        assert _metrics(at)["Cut off (length)"] == "1"
        assert at.dataframe[-1].value["vLLM"].iloc[1] == 32_000  # the KV cache vLLM reports
    finally:
        engine.close()


def test_a_server_without_vllm_metrics_is_said_so_not_lost() -> None:
    """A server that answers (its models list, its pages) but publishes no /metrics is told
    apart from one that does not answer (a walkthrough: "…/metrics does not answer (server
    lost or not vLLM)" beside a server that was reading pages): a neutral caption, no alarm."""
    with FakeOpenAIServer() as server:  # an OpenAI-compatible server, no /metrics
        at = _page(server.base_url).run()
        assert not at.exception, at.exception
        said = [c.value for c in at.caption]
        assert any("this server publishes no vLLM metrics" in c for c in said), said
        assert not any("does not answer" in i.value for i in at.info)
        assert "Running" not in _metrics(at)
