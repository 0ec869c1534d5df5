"""Runs → Batch runs outside the script run (issue 25.3): a click while a batch runs (a rerun
of the page) is answered and the batch goes on to its end; Cancel stops it, keeping its pages.
The batch's engine is held at a gate, so "while it runs" is a state, not a time."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs_seed import document_bytes
from workbench.engines.base import EngineOutput, PageRequest
from workbench.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[3]
WAIT_S = 60  # bound on a wait for the batch's thread (it returns as soon as the state is met)


class GatedEngine(FakeEngine):
    """The FakeEngine, holding every page until :attr:`gate` is set."""

    made: ClassVar[list[GatedEngine]] = []  # every one made, for the fixture that opens them all

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        GatedEngine.made.append(self)

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for request in requests:
            assert self.gate.wait(WAIT_S), "the test never opened the gate"
            yield from super().run([request])


def started(store: Path, engine: GatedEngine) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "runs.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(store)
    at.session_state["engine_override"] = engine
    at.run()
    at.file_uploader(key="batch_files").set_value(
        [
            ("one.tiff", document_bytes(2), "image/tiff"),
            ("two.tiff", document_bytes(1), "image/tiff"),
        ]
    ).run()
    at.button(key="batch_start").click().run()
    assert not at.exception
    # The batch's thread opens the documents and makes its run before the engine's gate: wait
    # for that state (under CI's load the thread had not made its run after three reruns).
    outcome = at.session_state["batch_job"].outcome
    deadline = time.monotonic() + WAIT_S
    while not outcome.run_id and time.monotonic() < deadline:
        time.sleep(0.05)
    assert outcome.run_id, "the batch never made its run"
    return at


@pytest.fixture(autouse=True)
def _open_gates() -> Iterator[None]:
    """A failing test must not leave its batch held at the gate (it would show as running in
    the next test's page): every gate made in the test is opened at its end."""
    yield
    while GatedEngine.made:
        GatedEngine.made.pop().gate.set()


def test_a_click_while_the_batch_runs_is_answered_and_the_batch_goes_on(tmp_path: Path) -> None:
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    assert job.running  # the script run that started it has ended; the batch has not
    for _ in range(3):  # clicks: each reruns the page while the batch waits on its engine
        at.run()
        assert not at.exception and job.running
        assert any("Batch running" in c.value for c in at.caption)
        assert "batch_start" not in [b.key for b in at.button]  # one batch at a time
    (run,) = RunStore(tmp_path).list()
    assert run.status == "running"
    engine.gate.set()
    job.thread.join(WAIT_S)
    at.run()
    (run,) = RunStore(tmp_path).list()
    assert (run.status, run.pages) == ("done", 3)
    assert any(
        f"Last batch: run {run.id}, 3/3 pages, done · 3 ok" in c.value for c in at.caption
    ), [c.value for c in at.caption]


def test_cancel_stops_the_running_batch_and_keeps_its_pages(tmp_path: Path) -> None:
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    at.button(key="batch_cancel").click().run()
    assert job.cancel.is_set()
    engine.gate.set()  # the page in flight finishes; then the batch stops
    job.thread.join(WAIT_S)
    assert not job.running
    at.run()
    (run,) = RunStore(tmp_path).list()
    assert run.status == "cancelled" and run.pages < 3
    assert any("Batch cancelled" in w.value for w in at.warning)
    assert any(f"Last batch: run {run.id}" in c.value and "cancelled" in c.value
               for c in at.caption)  # fmt: skip


def test_a_reloaded_tab_shows_the_running_batch_and_can_cancel_it(tmp_path: Path) -> None:
    """A reload is a new session: it does not hold the job, the process does. The new tab
    shows the batch's progress with Cancel, above the form for another batch."""
    engine = GatedEngine()
    first = started(tmp_path, engine)
    job = first.session_state["batch_job"]
    reloaded = AppTest.from_file(str(ROOT / "pages" / "runs.py"), default_timeout=60)
    reloaded.session_state["runs_store_dir"] = str(tmp_path)
    reloaded.session_state["engine_override"] = engine
    reloaded.run()
    assert not reloaded.exception
    (run,) = RunStore(tmp_path).list()
    assert any(f"Batch running in run {run.id}" in c.value for c in reloaded.caption), [
        c.value for c in reloaded.caption
    ]
    assert "batch_start" in [b.key for b in reloaded.button]  # it may start another
    reloaded.button(key=f"batch_cancel_{id(job)}").click().run()
    assert job.cancel.is_set()
    engine.gate.set()
    job.thread.join(WAIT_S)
    assert not job.running
    reloaded.run()
    assert not any("Batch running" in c.value for c in reloaded.caption)
    (run,) = RunStore(tmp_path).list()
    assert run.status == "cancelled"


def test_the_run_a_batch_writes_says_it_is_followed_until_the_batch_ends(tmp_path: Path) -> None:
    engine = GatedEngine()
    at = started(tmp_path, engine)
    job = at.session_state["batch_job"]
    at.run()  # the running batch's run is the one shown below (the newest)
    following = [c.value for c in at.caption if "A batch is writing this run" in c.value]
    assert following == [
        "A batch is writing this run: 0 page(s) so far. The view follows it as pages are written."
    ], [c.value for c in at.caption]
    engine.gate.set()
    job.thread.join(WAIT_S)
    at.run()
    assert not any("A batch is writing this run" in c.value for c in at.caption)
    assert RunStore(tmp_path).list()[0].pages == 3
