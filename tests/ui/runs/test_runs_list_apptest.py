"""The Runs list tells runs apart and counts a running batch as it goes (issue 30.8).

Two runs of one document with one engine but other settings differ in the "settings" column
(on e859558 their rows looked the same); the row of a run a batch is writing shows the pages
so far, their pace and how many of how many (it showed 0 pages, "None" s/page and only the
first document's name)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs.test_runs_apptest import runs_app
from tests.ui.runs_seed import DOC, document_bytes
from workbench.documents import open_document
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.batch import BatchJob, BatchOutcome
from workbench.pipeline.process import process
from workbench.runs.store import RunStore
from workbench.schema import RunInfo, RunStatus
from workbench.settings import Settings
from workbench.ui.runs.view import runs_table


def _run(store: RunStore, dpi: int) -> str:
    doc = open_document(DOC, document_bytes(1), Settings())
    info = RunInfo(
        id="", name=f"memo {dpi}", engine="fake", model="fake-layout-1",
        documents=[doc.info()], settings={"source": "batch", "spec": "cpu", "dpi": dpi},
    )  # fmt: skip
    writer = store.create(info)
    for item in process(FakeEngine(), CPU_SPEC, doc.pages()):
        writer.write_page(item.result, item.image)
    writer.finish(RunStatus.DONE)
    return writer.info.id


def test_two_runs_with_other_settings_differ_in_the_list(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    low, high = _run(store, 150), _run(store, 300)
    at = runs_app(tmp_path).run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("run")
    assert table.loc[low, "settings"] == "batch · dpi 150"
    assert table.loc[high, "settings"] == "batch · dpi 300"
    assert table.loc[low, "engine · model"] == table.loc[high, "engine · model"]


def test_a_run_a_batch_is_writing_counts_its_pages_and_pace(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    run_id = _run(store, 200)
    [summary] = store.list()
    stop = threading.Event()
    job = BatchJob(BatchOutcome(run_id=run_id, done=3, total=6), started=time.monotonic() - 6)
    job.thread = threading.Thread(target=stop.wait)
    job.thread.start()
    try:
        row = runs_table([summary], live=lambda rid: job if rid == run_id else None).iloc[0]
    finally:
        stop.set()
    assert row["pages"] == 3
    assert 1.9 <= float(row["s/page"]) <= 4.0  # 6 s for 3 pages so far (a loaded box adds a little)
    assert row["document"] == f"batch, 3 of 6 pages so far: {DOC}"


def _unfinished(store: RunStore, status: RunStatus | None) -> str:
    """A run with no finished page: ``status`` None leaves it running (a batch before its
    first page, or a process that died mid-run)."""
    doc = open_document(DOC, document_bytes(2), Settings())
    info = RunInfo(id="", name=f"memo {status}", engine="fake", model="fake-layout-1",
                   documents=[doc.info()], settings={"source": "batch"})  # fmt: skip
    writer = store.create(info)
    if status is not None:
        writer.finish(status)
    return writer.info.id


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, float) and value != value) or value == "None"


def test_no_cell_reads_none_for_runs_without_a_finished_page(tmp_path: Path) -> None:
    """A running batch before its first page, an interrupted run, a failed and a cancelled
    one: every cell of their rows says something (s/page "—"), none is None or NaN (the grid
    draws a missing value as "None")."""
    store = RunStore(tmp_path)
    running = _unfinished(store, None)
    for status in (RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.PARTIAL):
        _unfinished(store, status)
    stop = threading.Event()
    job = BatchJob(BatchOutcome(run_id=running, done=0, total=2), started=time.monotonic() - 3)
    job.thread = threading.Thread(target=stop.wait)
    job.thread.start()
    try:
        table = runs_table(store.list(), live=lambda rid: job if rid == running else None)
    finally:
        stop.set()
    assert len(table) == 4
    for col in table.columns:
        assert not [v for v in table[col] if _blank(v)], (col, list(table[col]))
    assert list(table["s/page"]) == ["—"] * 4
    at = runs_app(tmp_path).run()  # the page as drawn: the same, for runs not being written
    assert not at.exception
    shown = at.dataframe[0].value
    assert list(shown["s/page"]) == ["—"] * 4
    assert not shown.isna().any().any()
