"""The engine registry: kinds, typed options, lazy builders, availability."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.engines import factory
from workbench.engines.base import Engine
from workbench.engines.factory import (
    ENGINE_KINDS,
    CpuOptions,
    LocalOptions,
    ServerOptions,
    build_engine,
    engine_kinds,
)
from workbench.engines.llm import INSTALL_HINT
from workbench.engines.server.engine import VllmServerEngine
from workbench.errors import EngineUnavailable
from workbench.settings import Settings


def test_registry_kinds_match_options() -> None:
    assert set(ENGINE_KINDS) == {"cpu", "vllm-server", "vllm"}
    assert CpuOptions().kind == "cpu"
    assert ServerOptions("http://h").kind == "vllm-server"
    assert LocalOptions("m").kind == "vllm"
    for kind, entry in ENGINE_KINDS.items():
        assert entry.kind == kind and entry.description and entry.label


def test_server_options_from_settings() -> None:
    settings = Settings(base_url="http://x:1/v1", concurrency=7, timeout=9)
    options = ServerOptions.from_settings(settings, model="m", timeout=None)
    assert (options.base_url, options.concurrency, options.timeout) == ("http://x:1/v1", 7, 9)
    assert options.model == "m"


def test_build_server_engine_connects_and_picks_the_served_model() -> None:
    with FakeOpenAIServer(models=["org/model-a"]) as server:
        engine = build_engine(ServerOptions(server.base_url, concurrency=3, timeout=5))
        assert isinstance(engine, VllmServerEngine) and isinstance(engine, Engine)
        assert engine.model == "org/model-a" and engine.concurrency == 3
        engine.close()


def test_build_server_engine_unreachable_raises_with_the_fix() -> None:
    with FakeOpenAIServer() as server:
        url = server.base_url
    with pytest.raises(EngineUnavailable, match="is `vllm serve` running"):
        build_engine(ServerOptions(url))


def test_build_local_without_vllm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(EngineUnavailable, match=r"pip install -e '\.\[vllm\]'"):
        build_engine(LocalOptions("lightonai/LightOnOCR-2-1B"))


def test_build_cpu_is_lazy_and_uses_the_cached_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    sentinel = object()
    module = ModuleType("workbench.engines.cpu.engine")
    module.get_cpu_engine = lambda: sentinel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "workbench.engines.cpu.engine", module)
    assert build_engine(CpuOptions()) is sentinel


def test_wrong_options_type_is_a_programming_error() -> None:
    bad = LocalOptions("m")
    object.__setattr__(bad, "kind", "vllm-server")
    with pytest.raises(TypeError, match="vllm-server takes ServerOptions"):
        build_engine(bad)


def test_engine_kinds_report_availability(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "_has", lambda name: name != "vllm")
    statuses = {s.kind: s for s in engine_kinds()}
    assert statuses["vllm"].available is False and statuses["vllm"].hint == INSTALL_HINT
    assert statuses["vllm-server"].available is True and statuses["vllm-server"].hint is None
    assert statuses["cpu"].available is True


def test_vllm_installed_but_no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "_has", lambda name: True)
    monkeypatch.setattr(factory, "_nvidia_gpus", lambda: 0)
    [status] = [s for s in engine_kinds() if s.kind == "vllm"]
    assert not status.available and "no NVIDIA GPU" in (status.hint or "")


def test_a_broken_probe_does_not_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(name: str) -> bool:
        raise RuntimeError("probe exploded")

    monkeypatch.setattr(factory, "_has", boom)
    statuses = {s.kind: s for s in engine_kinds()}
    assert not statuses["cpu"].available and "probe exploded" in (statuses["cpu"].hint or "")


@pytest.mark.slow
def test_the_app_runs_the_cpu_engine_in_a_worker_process() -> None:
    """``own_process``: a one-worker CPU engine is a one-process pool whose worker reads a
    real born-digital page (the app's OCR never runs in the app's own process)."""
    from pathlib import Path

    from workbench.documents import open_document
    from workbench.engines.base import PageRequest
    from workbench.engines.pool import ProcessPoolEngine

    engine = build_engine(CpuOptions(), own_process=True)
    try:
        assert isinstance(engine, ProcessPoolEngine) and engine.concurrency == 1
        pdf = Path(__file__).resolve().parents[1] / "data" / "census_12s0324.pdf"
        page = open_document(pdf.name, pdf.read_bytes(), Settings()).page(1, 100)
        [out] = list(engine.run([PageRequest("p", page.image, text_layer=page.text_layer)]))
        assert out.error is None and out.regions
        assert "Table" in " ".join(r.text for r in out.regions)
    finally:
        engine.close()
    assert not isinstance(build_engine(CpuOptions()), ProcessPoolEngine)  # the CLI's default
