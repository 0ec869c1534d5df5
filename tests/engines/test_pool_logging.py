"""The worker processes of ProcessPoolEngine keep libraries' INFO lines out of the app's log
(issue 24: rapid_layout's model path and label list reached it from the CPU engine's worker)."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import pytest

from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.pool import ProcessPoolEngine


class _Probe:
    """An engine that reports its own process's logging state."""

    name = "probe"
    model = "probe"

    def describe(self) -> dict[str, str]:
        return {"logging_disabled_below": str(logging.root.manager.disable)}

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        yield from ()

    def close(self) -> None:
        pass


def build_probe() -> _Probe:
    logging.getLogger("rapid_layout").info("this line must not reach the app's log")
    return _Probe()


def test_workers_quiet_library_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    # (WORKBENCH_VERBOSE=1 keeps them, read where the worker starts: the forkserver holds the
    # environment the app started with, so the test cannot flip it here.)
    monkeypatch.delenv("WORKBENCH_VERBOSE", raising=False)
    engine = ProcessPoolEngine(build_probe, 1)
    try:
        assert engine.describe()["logging_disabled_below"] == str(logging.INFO)
    finally:
        engine.close()
