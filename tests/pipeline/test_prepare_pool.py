"""An engine in worker processes (engines/pool.py, what ``CpuOptions(workers=N)`` builds): pages
really run in other processes, each worker builds its engine once, requests are pulled as
workers free, and a worker that dies fails only its pages."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterator, Sequence

from PIL import Image

from workbench.engines.base import EngineOutput, PageRequest, streams
from workbench.engines.pool import ProcessPoolEngine


class PidEngine:
    """Answers each page with its process id and how many engines that process built."""

    name, model, batch_size = "pid", "pid-engine", 1
    built = 0

    def __init__(self) -> None:
        PidEngine.built += 1

    def describe(self) -> dict[str, str]:
        return {"engine": self.name}

    def close(self) -> None: ...

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for request in requests:
            if request.key == "die":
                os._exit(3)  # a worker killed mid-page
            size = request.image.size  # the image arrives (from its PNG)
            yield EngineOutput(key=request.key, raw=f"{os.getpid()} {PidEngine.built} {size}")


def _requests(n: int, pulled: list[str], prefix: str = "p") -> Iterator[PageRequest]:
    image = Image.new("RGB", (40, 30), "white")
    for i in range(n):
        pulled.append(f"{prefix}{i}")
        yield PageRequest(key=f"{prefix}{i}", image=image)


def test_pages_run_in_worker_processes_that_build_the_engine_once() -> None:
    engine = ProcessPoolEngine(functools.partial(PidEngine), workers=2)
    try:
        assert streams(engine) and engine.describe()["workers"] == "2"
        pulled: list[str] = []
        outputs = engine.run(_requests(30, pulled))
        first = next(outputs)
        # Pulled as workers free, never all at once: when the first page comes back only a
        # few have been taken (how many depends on how fast the workers were meanwhile).
        assert len(pulled) < 30
        rest = [first, *outputs]
        assert sorted(o.key for o in rest) == sorted(f"p{i}" for i in range(30))
        pids = {o.raw.split()[0] for o in rest}
        assert str(os.getpid()) not in pids and 1 <= len(pids) <= 2
        assert {o.raw.split()[1] for o in rest} == {"1"}  # built once per worker, not per page
        assert all(o.raw.endswith("(40, 30)") for o in rest)
    finally:
        engine.close()


def test_a_dead_worker_fails_its_pages_and_the_rest_go_on() -> None:
    engine = ProcessPoolEngine(functools.partial(PidEngine), workers=1)
    try:
        image = Image.new("RGB", (10, 10), "white")
        died = list(engine.run([PageRequest(key="die", image=image)]))
        assert died[0].error is not None and "died" in died[0].error
        after = list(engine.run(_requests(2, [])))
        assert [o.error for o in after] == [None, None]
    finally:
        engine.close()


class SlowEngine(PidEngine):
    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for request in requests:
            time.sleep(0.4)
            yield EngineOutput(key=request.key, raw="")


def test_with_nothing_queued_a_page_is_sent_only_when_the_worker_is_free() -> None:
    """``queued=0`` (the app's one-worker CPU engine): while a page is out, the next one is not
    taken, so a page the user turns to waits for the page in progress only."""
    gaps = {}
    for queued in (0, 1):
        engine = ProcessPoolEngine(functools.partial(SlowEngine), workers=1, queued=queued)
        try:
            taken: list[float] = []

            def pages(times: list[float] = taken) -> Iterator[PageRequest]:
                for i in range(3):
                    times.append(time.monotonic())
                    yield PageRequest(key=f"p{i}", image=Image.new("RGB", (8, 8), "white"))

            assert len(list(engine.run(pages()))) == 3
            gaps[queued] = taken[1] - taken[0]
        finally:
            engine.close()
    assert gaps[0] >= 0.4 > gaps[1], gaps  # nothing queued: page 2 waits for page 1
