"""One server engine, several runs at once (the app's sessions, Batch): they share the
engine's slots (engines/gate.py), against a real HTTP server (tests/fakes/openai_server.py).

Before the gate each ``run()`` kept its own ``concurrency`` pages in flight, so two sessions
sent twice what the plan sized for the server, and a newcomer's page went behind whatever the
others had added to the server's queue.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer, Reply, request_image
from workbench.engines.base import PageRequest
from workbench.engines.gate import PAUSE, RESERVE
from workbench.engines.server.engine import VllmServerEngine


def _page(doc: str, i: int, width: int) -> PageRequest:
    return PageRequest(key=f"{doc}#{i}", image=Image.new("RGB", (width, 40), "white"))


class Arrivals:
    """When each page reached the server and when its answer left, by image width."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.seen: list[tuple[float, int]] = []
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        image = request_image(body)
        assert image is not None
        with self._lock:
            self.seen.append((time.monotonic(), image.width))
        return Reply(f"page {image.width}", delay=self.delay)


def _drain(engine: VllmServerEngine, pages: list[PageRequest], done: dict[str, float]) -> None:
    for out in engine.run(pages):
        assert out.ok, out.error
        done[out.key] = time.monotonic()


def test_two_runs_keep_the_engines_pages_in_flight_not_twice_as_many() -> None:
    arrivals = Arrivals(delay=0.15)
    with FakeOpenAIServer(respond=arrivals) as server:
        engine = VllmServerEngine(server.base_url, concurrency=4, backoff=0.01)
        done: dict[str, float] = {}
        runs = [
            threading.Thread(
                target=_drain, args=(engine, [_page(d, i, 100 + i) for i in range(12)], done)
            )
            for d in ("a.pdf", "b.pdf")
        ]
        for run in runs:
            run.start()
        for run in runs:
            run.join(60)
    assert len(done) == 24
    # 4 slots, and one newcomer's page each on the reserve at most: never 8.
    assert server.max_in_flight <= 4 + 2 < 8


def test_a_newcomers_page_is_sent_at_once_and_the_long_run_waits_for_it() -> None:
    delay = 0.4
    arrivals = Arrivals(delay=delay)
    with FakeOpenAIServer(respond=arrivals) as server:
        engine = VllmServerEngine(server.base_url, concurrency=4, backoff=0.01)
        done: dict[str, float] = {}
        long = threading.Thread(
            target=_drain, args=(engine, [_page("long.pdf", i, 100 + i) for i in range(40)], done)
        )
        long.start()
        while server.in_flight < 4:  # the long run holds every slot
            time.sleep(0.01)
        time.sleep(delay / 2)
        asked = time.monotonic()
        _drain(engine, [_page("scan.png", 0, 999)], done)
        long.join(60)
    assert len(done) == 41
    sent = next(t for t, width in arrivals.seen if width == 999)
    assert sent - asked < delay / 2  # on the reserve: not behind the long run's pages
    assert done["scan.png#0"] - asked < 2 * delay
    # While it was in flight the long run added no page (the newcomer's steps carry no new
    # prefill in vLLM); it went on once the page was done, well inside the pause's bound.
    finished = done["scan.png#0"]
    added = [t for t, width in arrivals.seen if width != 999 and sent < t < finished - 0.05]
    assert added == []
    assert delay < PAUSE and RESERVE >= 1
    assert any(t >= finished - 0.05 for t, width in arrivals.seen if width != 999)


def test_cancelled_while_waiting_for_a_slot_is_never_sent() -> None:
    arrivals = Arrivals(delay=0.3)
    with FakeOpenAIServer(respond=arrivals) as server:
        engine = VllmServerEngine(server.base_url, concurrency=2, backoff=0.01)
        outputs = []
        for out in engine.run([_page("a.pdf", i, 100 + i) for i in range(10)]):
            outputs.append(out)
            if len(outputs) == 1:
                engine.cancel()
        sent = len(server.requests)
    assert len(outputs) <= 10
    assert sent <= 4  # the two in flight and at most the two that took the freed slots
    assert all(o.error for o in outputs[1:] if o.key not in {"a.pdf#0", "a.pdf#1"})
