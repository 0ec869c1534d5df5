"""The Viewer's background worker (workbench.ui.jobs.worker.Board) on its own: real PDFs from
tests/data, the FakeEngine, a real run store. No Streamlit script run is involved, which is
the point: the worker never waits for one and never calls one."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.fakes.fake_engine import FakeEngine
from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.models.registry import CPU_SPEC
from workbench.runs.store import RunStore
from workbench.settings import Settings
from workbench.ui.jobs import worker as jobs
from workbench.ui.jobs.records import Ask, DocAsk
from workbench.ui.jobs.worker import Board
from workbench.ui.results import ResultCache

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"


def doc_ask(name: str = "pdflatex_outline.pdf", pages: tuple[int, ...] | None = None) -> DocAsk:
    data = (DATA / name).read_bytes()
    doc = open_document(name, data, Settings())
    import hashlib

    wanted = pages or tuple(range(1, doc.page_count + 1))
    return DocAsk(hashlib.sha256(data).hexdigest(), name, doc, wanted)


class Recording(FakeEngine):
    """Remembers the order of pages and can hold a page until released."""

    def __init__(self, delay: float = 0.0) -> None:
        super().__init__(delay=delay)
        self.order: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()  # a page has reached the engine

    def run(self, requests: list[PageRequest]):  # type: ignore[no-untyped-def]
        for req in requests:
            self.entered.set()
            self.gate.wait(30)
            self.order.append(req.key)
            yield from super().run([req])


def ask(engine: FakeEngine, d: DocAsk, focus: int, store: Path | None = None) -> Ask:
    return Ask(engine, CPU_SPEC, f"k{id(engine)}", 72.0, (d,), (d.sha256, focus), store)


@pytest.fixture
def board() -> Board:
    b = Board(ResultCache())
    yield b
    b.close()


def test_ask_returns_at_once_and_the_page_on_screen_goes_first(board: Board) -> None:
    eng, d = Recording(delay=0.2), doc_ask()
    started = time.perf_counter()
    progress = board.ask("s1", ask(eng, d, focus=3))
    assert time.perf_counter() - started < 0.1  # four pages at 0.2 s each are not waited for
    assert (progress.asked, progress.pending) == (4, 4)
    assert board.wait_idle(30)
    assert [k.rsplit("#", 1)[1] for k in eng.order] == ["3", "1", "2", "4"]
    after = board.progress("s1")
    assert (after.done, after.pending, after.current) == (4, 0, "")


def test_a_new_page_on_screen_is_taken_after_the_page_in_progress(board: Board) -> None:
    eng, d = Recording(delay=0.1), doc_ask()
    eng.gate.clear()  # hold the first page in the engine
    board.ask("s1", ask(eng, d, focus=1))
    assert eng.entered.wait(30)  # page 1 is in the engine
    board.ask("s1", ask(eng, d, focus=4))  # the user moved to page 4 meanwhile
    eng.gate.set()
    assert board.wait_idle(30)
    assert [k.rsplit("#", 1)[1] for k in eng.order][:2] == ["1", "4"]
    assert sorted(eng.order) == sorted(set(eng.order)) and len(eng.order) == 4  # each once


def test_two_sessions_take_turns_and_share_results(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs, "SLICE_S", 0.5)  # a turn: about two pages of 0.3 s
    eng = Recording(delay=0.3)
    a, b = doc_ask("pdflatex_outline.pdf"), doc_ask("dd0293_p1-2.pdf")
    # Hold session 1's first page in the engine until session 2 is waiting and the turn's
    # slice is over, so the order does not depend on how fast this machine prepares pages.
    eng.gate.clear()
    board.ask("s1", ask(eng, a, focus=1))
    assert eng.entered.wait(60)
    board.ask("s2", Ask(eng, CPU_SPEC, f"k{id(eng)}", 72.0, (b,), (b.sha256, 1)))
    time.sleep(0.8)  # past SLICE_S
    eng.gate.set()
    assert board.wait_idle(60)
    docs = [k.split("#")[0] for k in eng.order]
    first_b = docs.index("dd0293_p1-2.pdf")
    assert first_b < 4, docs  # session 2 did not wait for the whole of session 1's document
    # A third session asking for a processed document gets it without the engine.
    calls = eng.calls
    board.ask("s3", ask(eng, a, focus=2))
    assert board.wait_idle(5) and eng.calls == calls
    assert board.progress("s3").pending == 0


def test_pages_are_written_to_one_run_per_document(board: Board, tmp_path: Path) -> None:
    eng, d = FakeEngine(), doc_ask()
    progress = board.ask("s1", ask(eng, d, focus=2, store=tmp_path))
    assert board.wait_idle(30)
    progress = board.progress("s1")
    [(key, run_id)] = progress.runs.items()
    assert key == (d.sha256, f"k{id(eng)}")
    [summary] = RunStore(tmp_path).list()
    assert (summary.id, summary.pages, summary.status) == (run_id, 4, "done")


def test_a_failing_document_is_reported_and_not_retried(board: Board) -> None:
    class Broken(FakeEngine):
        def run(self, requests):  # type: ignore[no-untyped-def]
            self.calls += 1
            raise RuntimeError("model crashed")
            yield  # pragma: no cover

    eng, d = Broken(), doc_ask()
    board.ask("s1", ask(eng, d, focus=1))
    assert board.wait_idle(30)
    progress = board.progress("s1")
    assert progress.failed == 4 and progress.pending == 0
    assert any("processing failed (RuntimeError: model crashed)" in n for n in progress.notes)
    calls = eng.calls
    board.ask("s1", ask(eng, d, focus=2))  # same document again: not retried
    assert board.wait_idle(5) and eng.calls == calls


def test_silent_sessions_are_forgotten(board: Board, monkeypatch: pytest.MonkeyPatch) -> None:
    eng, d = FakeEngine(), doc_ask("census_12s0324.pdf")
    board.ask("s1", ask(eng, d, focus=1))
    assert board.wait_idle(30)
    monkeypatch.setattr(jobs, "FORGET_AFTER_S", 0.0)
    board.ask("s2", ask(eng, d, focus=1))  # wakes the worker, which expires s1
    assert board.wait_idle(30)
    time.sleep(0.1)
    with board._cond:
        board._expire()
    assert board.progress("s1").asked == 0


def test_taking_turns_never_starves_both_sessions(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each turn finishes at least one page, even when preparing a page takes longer than a
    turn (a slow machine): both documents complete."""
    monkeypatch.setattr(jobs, "SLICE_S", 0.0)
    eng = Recording(delay=0.05)
    a, b = doc_ask("pdflatex_outline.pdf"), doc_ask("dd0293_p1-2.pdf")
    board.ask("s1", ask(eng, a, focus=1))
    board.ask("s2", Ask(eng, CPU_SPEC, f"k{id(eng)}", 72.0, (b,), (b.sha256, 1)))
    assert board.wait_idle(60)
    assert board.progress("s1").done == 4 and board.progress("s2").done == 2
    docs = [k.split("#")[0] for k in eng.order]
    assert len(docs) == 6 and docs.index("dd0293_p1-2.pdf") <= 2  # turns, not one by one


def test_turning_pages_while_processing_keeps_one_run_open(
    board: Board, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A click on another page cuts the stretch in progress; the document's run stays open
    for the next stretch (finishing and reopening it re-read every page file per click), and
    is finished once, complete, when the document is done."""
    from workbench.pipeline.runner import RunJob

    reopened: list[Path] = []
    real_reopen = RunJob.reopen

    def counting(run_dir, *args, **kwargs):  # type: ignore[no-untyped-def]
        reopened.append(run_dir)
        return real_reopen(run_dir, *args, **kwargs)

    monkeypatch.setattr(RunJob, "reopen", staticmethod(counting))
    eng, d = Recording(delay=0.3), doc_ask()
    board.ask("s1", ask(eng, d, focus=1, store=tmp_path))
    for focus in (3, 2, 4):
        time.sleep(0.35)
        board.ask("s1", ask(eng, d, focus=focus, store=tmp_path))
    assert board.wait_idle(30)
    assert reopened == []
    [summary] = RunStore(tmp_path).list()
    assert (summary.pages, summary.status) == (4, "done")
    assert sorted(eng.order) == sorted(set(eng.order))  # no page processed twice
