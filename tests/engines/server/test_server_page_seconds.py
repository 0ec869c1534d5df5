"""A page's seconds count the HTTP try that answered, not the waiting before it: the pauses
between tries and the tries a down server refused (a batch against a killed server showed
29.5 s/page). The engine's pauses run on a fake clock here, each jumping it by an hour, so
the waiting is unmistakable in the seconds without a test that waits (no timed assertions:
a try against a local server takes far less than an hour)."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from PIL import Image

import workbench.engines.server.engine as engine_module
from tests.fakes.openai_server import FakeOpenAIServer
from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.server.engine import VllmServerEngine

HOUR = 3600.0


class FakeClock:
    """The engine module's ``time.monotonic``: the real one plus every pause it took."""

    def __init__(self) -> None:
        self.skipped = 0.0
        self.pauses = 0

    def monotonic(self) -> float:
        return time.monotonic() + self.skipped

    def sleep(self, _run: object, _key: str, _seconds: float) -> bool:
        self.pauses += 1
        self.skipped += HOUR  # a long wait, on this clock only
        return False  # not cancelled


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(engine_module, "time", SimpleNamespace(monotonic=fake.monotonic))
    monkeypatch.setattr(engine_module, "cancellable_sleep", fake.sleep)
    return fake


def _page(i: int = 0) -> PageRequest:
    return PageRequest(key=f"doc.pdf#{i}", image=Image.new("RGB", (80, 60)), prompt="OCR.")


def _one(engine: VllmServerEngine, i: int = 0) -> EngineOutput:
    [out] = list(engine.run([_page(i)]))
    return out


def test_the_pauses_between_tries_are_not_the_pages_time(clock: FakeClock) -> None:
    with FakeOpenAIServer(["the page"]) as server:
        server.fail_next(2, status=503)  # two tries answered 503, the third the page
        out = _one(VllmServerEngine(server.base_url, retries=3))
    assert out.ok and out.raw == "the page", out.error
    assert clock.pauses == 2  # the engine did wait (two hours on its clock)
    assert out.seconds < HOUR and [a.seconds < HOUR for a in out.attempts] == [True]


def test_a_failed_page_counts_its_last_try(clock: FakeClock) -> None:
    with FakeOpenAIServer() as server:
        server.fail_next(3, status=503)
        out = _one(VllmServerEngine(server.base_url, retries=3))
    assert not out.ok and clock.pauses == 2
    assert out.seconds < HOUR


def test_the_wait_for_a_restarting_server_is_not_the_pages_time(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server answered, went down (refusing), and came back on the same port: the page
    sent meanwhile waited for it and counts only the try that it answered."""
    server = FakeOpenAIServer(["first", "second"]).start()
    port = server.port
    engine = VllmServerEngine(server.base_url, reconnect_wait=10 * HOUR)
    assert _one(engine, 0).ok
    server.stop()
    back: list[FakeOpenAIServer] = []

    def restart_after_two(run: object, key: str, seconds: float) -> bool:
        if clock.pauses == 2:  # two refused tries, then the server is back
            back.append(FakeOpenAIServer(["second"], port=port).start())
        return clock.sleep(run, key, seconds)

    monkeypatch.setattr(engine_module, "cancellable_sleep", restart_after_two)
    try:
        out = _one(engine, 1)
    finally:
        for s in back:
            s.stop()
    assert out.ok and out.raw == "second", out.error
    assert clock.pauses >= 2 and out.seconds < HOUR
