"""A deterministic engine for UI and pipeline tests: no model, real regions.

For each request it "detects" a title band at the top, two text columns and a table at the
bottom of the page image it was given (so boxes scale with the page), and returns them as
``page_px`` regions, like the CPU engine does. ``delay`` simulates work; ``fail_keys`` makes
chosen pages fail. ``calls`` counts pages processed, so tests can prove caching. Like the
CPU engine it detects layout itself, so its ``spec`` is the CPU spec (no prompt, no parser).

:func:`from_env` is the app's engine hook for browser tests: start the app with
``WORKBENCH_ENGINE_FACTORY=tests.fakes.fake_engine:from_env`` (see
:mod:`workbench.ui.engines`) and ``WORKBENCH_FAKE_DELAY`` seconds of work per page.
``FakeEngine.instances`` counts engines built in this process and :meth:`describe` shows it,
so a browser test can see that two sessions share one engine.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from workbench.engines.base import EngineOutput, PageRequest
from workbench.models.registry import CPU_SPEC
from workbench.schema import BBox, Label, Region


class FakeEngine:
    name = "fake"
    model = "fake-layout-1"
    batch_size = 32
    spec = CPU_SPEC
    instances = 0  # engines built in this process
    _count_lock = threading.Lock()

    def __init__(self, delay: float = 0.0, fail_keys: Sequence[str] = ()) -> None:
        self.delay = delay
        self.fail_keys = set(fail_keys)
        self.calls = 0
        self.closed = False
        with FakeEngine._count_lock:
            FakeEngine.instances += 1
            self.instance = FakeEngine.instances

    def describe(self) -> dict[str, str]:
        return {
            "engine": self.name,
            "model": self.model,
            "delay": str(self.delay),
            "instance": str(self.instance),
        }

    def close(self) -> None:
        self.closed = True

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for req in requests:
            self.calls += 1
            if self.delay:
                time.sleep(self.delay)
            if req.key in self.fail_keys:
                yield EngineOutput(key=req.key, error=f"fake failure on {req.key}")
                continue
            w, h = req.image.size
            n = req.key.rsplit("#", 1)[-1]

            def box(x0: float, y0: float, x1: float, y1: float, w: int = w, h: int = h) -> BBox:
                return BBox(x0=x0 * w, y0=y0 * h, x1=x1 * w, y1=y1 * h)

            specs = [
                (Label.HEADER, "header", box(0.1, 0.02, 0.9, 0.05), f"Running head {n}"),
                (Label.TITLE, "title", box(0.1, 0.08, 0.9, 0.14), f"Page {n} title"),
                (Label.TEXT, "text", box(0.1, 0.16, 0.48, 0.6), f"Left column of page {n}."),
                (Label.TEXT, "text", box(0.52, 0.16, 0.9, 0.6), f"Right column of page {n}."),
                (
                    Label.TABLE,
                    "table",
                    box(0.1, 0.65, 0.9, 0.85),
                    "| Item | Value |\n| --- | --- |\n| a | 1 |\n| b | 2 |",
                ),
                (Label.FORMULA, "equation", box(0.3, 0.87, 0.7, 0.92), "$$E = mc^2$$"),
                (Label.PAGE_NUMBER, "footer", box(0.45, 0.95, 0.55, 0.98), n),
            ]
            regions = [
                Region(id=f"r{i}", label=lab, native_label=nat, bbox=b, text=t, order=i)
                for i, (lab, nat, b, t) in enumerate(specs)
            ]
            yield EngineOutput(key=req.key, regions=regions, raw="{}", seconds=self.delay)


def from_env(choice: Any = None) -> FakeEngine:
    """The app's engine hook (``WORKBENCH_ENGINE_FACTORY``): a FakeEngine whatever the choice,
    with ``WORKBENCH_FAKE_DELAY`` seconds of work per page (default none), taking pages in
    the CPU engine's batches, so the app prepares as few pages ahead as it does for it."""
    try:
        delay = float(os.environ.get("WORKBENCH_FAKE_DELAY", "0") or 0)
    except ValueError:
        delay = 0.0
    engine = FakeEngine(delay=delay)
    engine.batch_size = 2  # as the CPU engine: pages one at a time, two prepared ahead
    return engine
