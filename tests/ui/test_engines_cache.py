"""workbench.ui.engines and workbench.ui.results outside a running app (Streamlit's bare
mode): the engine cache releases the old engine before it builds a new one, the engine hook
named by WORKBENCH_ENGINE_FACTORY replaces the real engine, and the OCR result cache is an
LRU."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.fake_engine import FakeEngine
from workbench.errors import EngineUnavailable
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.request import engine_spec
from workbench.schema import PageResult
from workbench.ui import engines
from workbench.ui.results import ResultCache


class Opts:
    def __init__(self, name: str) -> None:
        self.name = name


def test_switching_engines_releases_the_old_one_first(monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []

    class Logged(FakeEngine):
        def __init__(self, tag: str) -> None:
            super().__init__()
            self.tag = tag

        def close(self) -> None:
            events.append(f"release:{self.tag}")

    def build(choice: Any) -> Any:
        events.append(f"build:{choice.options.name}")
        return Logged(choice.options.name)

    monkeypatch.setattr(engines, "_build", build)
    engines._engine.clear()
    engines._current_key.clear()
    events.clear()
    a = engines.EngineChoice("vllm", Opts("a"))
    b = engines.EngineChoice("vllm", Opts("b"))
    first = engines.use_engine(a)
    assert engines.use_engine(a) is first  # cached
    engines.use_engine(b)
    assert events == ["build:a", "release:a", "build:b"]
    engines._engine.clear()
    engines._current_key.clear()


def test_a_dead_engine_is_released_and_built_again(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[FakeEngine] = []

    def build(choice: Any) -> Any:
        built.append(FakeEngine())
        built[-1].dead = None  # type: ignore[attr-defined]
        return built[-1]

    monkeypatch.setattr(engines, "_build", build)
    engines._engine.clear()
    engines._current_key.clear()
    choice = engines.EngineChoice("vllm", Opts("m"))
    first = engines.use_engine(choice)
    assert engines.use_engine(choice) is first  # alive: the same engine
    first.dead = "the vLLM engine died"  # type: ignore[attr-defined]
    second = engines.use_engine(choice)
    assert second is not first and first.closed and len(built) == 2
    engines._engine.clear()


def test_choice_key_never_contains_the_api_key() -> None:
    class Server:
        def __init__(self) -> None:
            self.base_url, self.api_key, self.model = "http://h/v1", "sk-secret", "m"

    key = engines.EngineChoice("vllm-server", Server()).key
    assert "sk-secret" not in key and "http://h/v1" in key and "'m'" in key


def test_result_cache_is_a_bounded_lru() -> None:
    cache = ResultCache(size=2)

    def page(n: int) -> PageResult:
        return PageResult(document="d", page=n, width=1, height=1, engine="e", model="m")

    cache.put("s", 1, "k", page(1))
    cache.put("s", 2, "k", page(2))
    assert cache.get("s", 1, "k") is not None  # 1 is now the most recent
    cache.put("s", 3, "k", page(3))
    assert cache.get("s", 2, "k") is None and cache.get("s", 1, "k") is not None
    assert cache.get("s", 1, "other-engine") is None
    assert len(cache) == 2 and cache.has("s", 3, "k") and not cache.has("s", 2, "k")


def test_engine_hook_named_by_the_environment_replaces_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(engines.FACTORY_ENV, "tests.fakes.fake_engine:from_env")
    monkeypatch.setenv("WORKBENCH_FAKE_DELAY", "0.25")
    engine = engines._build(engines.EngineChoice("cpu"))
    assert isinstance(engine, FakeEngine) and engine.delay == 0.25
    assert engine_spec(engine) is CPU_SPEC  # a layout engine: no prompt, no parser
    monkeypatch.setenv(engines.FACTORY_ENV, "tests.fakes.no_such_module:build")
    with pytest.raises(EngineUnavailable, match="WORKBENCH_ENGINE_FACTORY"):
        engines._build(engines.EngineChoice("cpu"))
    monkeypatch.delenv(engines.FACTORY_ENV)
    assert engines._factory_hook() is None
