"""One document, one run (issue 24.1): a document stopped part way and opened again, in the
same tab or another, goes on in the run that holds its first pages; what the Viewer says was
saved is what the run's manifest holds. The real Board, a real run store, the FakeEngine."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.ui.jobs.test_jobs import Recording, ask, doc_ask
from workbench.runs.folder import RunReader
from workbench.runs.store import RunStore
from workbench.ui.jobs.worker import Board
from workbench.ui.results import ResultCache


@pytest.fixture
def board() -> Board:
    b = Board(ResultCache())
    yield b
    b.close()


def _stop_after(board: Board, session: str, eng: Recording, pages: int) -> None:
    deadline = time.monotonic() + 60
    while len(eng.order) < pages and time.monotonic() < deadline:
        time.sleep(0.01)
    board.stop(session)
    assert board.wait_idle(60)


def test_a_stopped_document_opened_in_another_tab_goes_on_in_its_run(
    board: Board, tmp_path: Path
) -> None:
    eng, d = Recording(delay=0.3), doc_ask()  # 4 pages
    board.ask("tab1", ask(eng, d, focus=1, store=tmp_path))
    _stop_after(board, "tab1", eng, 2)
    [first] = RunStore(tmp_path).list()
    assert first.status == "cancelled" and 2 <= first.pages < 4
    # The same file in a second tab: the same run, now whole.
    board.ask("tab2", ask(eng, d, focus=1, store=tmp_path))
    assert board.wait_idle(60)
    runs = RunStore(tmp_path).list()
    assert [(r.id, r.pages, r.status) for r in runs] == [(first.id, 4, "done")]
    assert board.progress("tab2").runs == board.progress("tab1").runs
    # Resume in the first tab: nothing left to do, and the run it names says so.
    board.resume("tab1")
    assert board.wait_idle(60)
    progress = board.progress("tab1")
    [run_id] = progress.runs.values()
    reader = RunReader(RunStore(tmp_path).path(run_id))
    assert progress.done == 4 and reader.info.status.value == "done"
    assert len(reader.info.pages) == 4
    assert reader.page_numbers(reader.documents[0]) == [1, 2, 3, 4]
    assert sorted(eng.order) == sorted(set(eng.order))  # no page processed twice


def test_results_shown_but_missing_from_the_run_are_written_to_it(
    board: Board, tmp_path: Path
) -> None:
    """Pages the app holds (a deleted run's, another store's) are saved to the run that the
    Viewer names, without the engine, so "Saved as run X" holds every page shown."""
    eng, d = Recording(), doc_ask()
    board.ask("tab1", ask(eng, d, focus=1, store=tmp_path / "a"))
    assert board.wait_idle(60)
    calls = len(eng.order)
    board.ask("tab1", ask(eng, d, focus=1, store=tmp_path / "b"))  # the store moved
    assert board.wait_idle(60)
    assert len(eng.order) == calls  # nothing processed again
    [run] = RunStore(tmp_path / "b").list()
    assert (run.pages, run.status) == (4, "done")
    assert board.progress("tab1").runs == {(d.sha256, f"k{id(eng)}"): run.id}


def test_a_deleted_run_is_saved_again_from_what_is_shown(board: Board, tmp_path: Path) -> None:
    """The Runs page deleted the document's run while the Viewer still shows its pages: the
    next ask saves them to a new run (from the cache, not the engine), so the run the Viewer
    names exists and holds them."""
    eng, d = Recording(), doc_ask()
    board.ask("tab1", ask(eng, d, focus=1, store=tmp_path))
    assert board.wait_idle(60)
    calls = len(eng.order)
    [old] = RunStore(tmp_path).list()
    RunStore(tmp_path).delete(old.id)
    board.ask("tab1", ask(eng, d, focus=2, store=tmp_path))
    assert board.wait_idle(60)
    [new] = RunStore(tmp_path).list()
    assert (new.pages, new.status) == (4, "done") and new.id != old.id
    assert board.progress("tab1").runs == {(d.sha256, f"k{id(eng)}"): new.id}
    assert len(eng.order) == calls


def test_a_document_done_in_another_tab_names_its_run_in_this_one(
    board: Board, tmp_path: Path
) -> None:
    """Every page of the file was done in a first tab (cached and saved): the second tab has
    nothing to process, yet it names the run holding them ("Saved as run X", the Viewer's
    HTML, ZIP and COCO downloads), where it said "none is saved"."""
    eng, d = Recording(), doc_ask()
    board.ask("tab1", ask(eng, d, focus=1, store=tmp_path))
    assert board.wait_idle(60)
    [run] = RunStore(tmp_path).list()
    calls = len(eng.order)
    board.ask("tab2", ask(eng, d, focus=1, store=tmp_path))
    assert board.wait_idle(60)
    assert len(eng.order) == calls and len(RunStore(tmp_path).list()) == 1
    assert board.progress("tab2").runs == {(d.sha256, f"k{id(eng)}"): run.id}
