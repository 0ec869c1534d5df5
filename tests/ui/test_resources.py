"""workbench.ui.resources outside a running app (Streamlit's bare mode): the engine cache
releases the old engine before it builds a new one, and the OCR result cache is an LRU."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes.fake_engine import FakeEngine
from workbench.schema import PageResult
from workbench.ui import resources


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

    monkeypatch.setattr(resources, "_build", build)
    monkeypatch.delenv("WORKBENCH_FAKE_ENGINE", raising=False)
    resources._engine.clear()
    resources._current_key.clear()
    events.clear()
    a = resources.EngineChoice("vllm", Opts("a"))
    b = resources.EngineChoice("vllm", Opts("b"))
    first = resources.use_engine(a)
    assert resources.use_engine(a) is first  # cached
    resources.use_engine(b)
    assert events == ["build:a", "release:a", "build:b"]
    resources._engine.clear()
    resources._current_key.clear()


def test_choice_key_never_contains_the_api_key() -> None:
    class Server:
        def __init__(self) -> None:
            self.base_url, self.api_key, self.model = "http://h/v1", "sk-secret", "m"

    key = resources.EngineChoice("vllm-server", Server()).key
    assert "sk-secret" not in key and "http://h/v1" in key and "'m'" in key


def test_result_cache_is_a_bounded_lru() -> None:
    cache = resources.ResultCache(size=2)

    def page(n: int) -> PageResult:
        return PageResult(document="d", page=n, width=1, height=1, engine="e", model="m")

    cache.put("s", 1, "k", page(1))
    cache.put("s", 2, "k", page(2))
    assert cache.get("s", 1, "k") is not None  # 1 is now the most recent
    cache.put("s", 3, "k", page(3))
    assert cache.get("s", 2, "k") is None and cache.get("s", 1, "k") is not None
    assert cache.get("s", 1, "other-engine") is None
    assert len(cache) == 2


def test_fake_engine_seam_reads_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_FAKE_ENGINE", "0.25")
    engine = resources._build(resources.EngineChoice("cpu"))
    assert isinstance(engine, FakeEngine) and engine.delay == 0.25
    monkeypatch.setenv("WORKBENCH_FAKE_ENGINE", "0")
    assert resources._fake_delay() is None
