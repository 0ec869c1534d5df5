"""The one engine a front end holds: built once, a dead one closed before its successor is
built, closed on shutdown (the rule the app's engine cache and the service share)."""

from __future__ import annotations

from typing import Any

from tests.fakes.fake_engine import FakeEngine
from workbench.pipeline.engine_holder import EngineHolder


def test_a_dead_engine_is_closed_before_the_next_is_built() -> None:
    built: list[Any] = []
    open_at_build: list[int] = []

    def build() -> Any:
        open_at_build.append(sum(not e.closed for e in built))
        engine = FakeEngine()
        engine.dead = None  # type: ignore[attr-defined]
        built.append(engine)
        return engine

    holder = EngineHolder(build)
    assert holder.current is None and holder.stale
    first = holder.get()
    assert holder.get() is first and holder.builds == 1 and not holder.stale
    first.dead = "the vLLM engine died"  # type: ignore[attr-defined]
    assert holder.stale and holder.current is first  # nothing happens until asked
    second = holder.get()
    assert second is not first and first.closed and not second.closed
    assert open_at_build == [0, 0]  # never two engines at once
    holder.close()
    assert second.closed and holder.current is None
    assert holder.get() is not second and holder.builds == 3


def test_an_engine_that_fails_to_close_is_still_let_go() -> None:
    class Stubborn(FakeEngine):
        def close(self) -> None:
            raise RuntimeError("cannot close")

    engines = iter([Stubborn(), FakeEngine()])
    holder = EngineHolder(lambda: next(engines))
    first = holder.get()
    first.dead = "gone"  # type: ignore[attr-defined]
    assert isinstance(holder.get(), FakeEngine) and holder.current is not first
