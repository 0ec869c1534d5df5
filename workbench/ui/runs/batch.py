"""Batch: many documents (uploaded, or a folder on the server's disk) processed as ONE run.

Each page is written by the run writer the moment it finishes, so a batch that is cancelled
or crashes keeps every finished page; the run is then marked ``cancelled``. Files that cannot
be read are listed and skipped; the others go on. The engine is the one the sidebar selected
(or the embedded CPU engine), through :mod:`workbench.ui.engines`.

The batch runs in a thread of its own (:func:`start_batch`), never in the script run: a click
anywhere in the app (another page, a run's view, the sidebar) reruns the script at once and the
batch goes on (run in the script, the rerun a click asks for interrupted it, and the run ended
``cancelled``: issue 25). Its progress is redrawn every :data:`POLL_S` by a fragment; only
Cancel stops it (after the pages in flight). The session holds the job
(``state.BATCH_JOB``); a batch goes on if its tab is closed or reloaded (the page then shows
it, with Cancel, above the form for a new one: the process keeps its batches), and is
cancelled when the app's process exits.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from workbench.documents import Document, open_document
from workbench.engines.base import Engine
from workbench.errors import WorkbenchError, display_name
from workbench.models.registry import ModelSpec
from workbench.pipeline.process import render_dpi
from workbench.pipeline.runner import RunJob, run_documents, run_info
from workbench.runs.store import RunStore
from workbench.schema import PageResult, PageStatus, RunStatus
from workbench.settings import Settings
from workbench.ui import state
from workbench.ui.inputs import show_every_file
from workbench.ui.jobs.runs import keep_original
from workbench.ui.runs.common import engine_choices, get_store

log = logging.getLogger(__name__)

SUFFIXES = {".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"}

#: Called after each written page with (pages done, pages total, seconds elapsed).
Progress = Callable[[int, int, float], None]
#: Seconds between two redraws of a running batch's progress (a fragment: the rest of the
#: page is not rerun by it; clicks are answered by their own reruns meanwhile).
POLL_S = 1.0


@dataclass
class BatchOutcome:
    run_id: str = ""
    done: int = 0
    total: int = 0
    status: str = RunStatus.RUNNING.value
    skipped: list[str] = field(default_factory=list)  # "name: why"
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)  # page status → pages written

    def tally(self) -> str:
        """The pages written by status, in :class:`PageStatus` order: "57 ok · 2 error"."""
        counts = dict(self.counts)  # a copy: the batch's thread adds to it
        return " · ".join(f"{counts[s.value]} {s.value}" for s in PageStatus if s.value in counts)


@dataclass
class BatchJob:
    """A batch running in its own thread (:func:`start_batch`); script runs only read it."""

    outcome: BatchOutcome
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    error: str | None = None  # why it stopped, when it stopped on an error
    started: float = field(default_factory=time.monotonic)
    shown: bool = False  # its end was shown (its run opened below) once

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


_LIVE: list[BatchJob] = []  # this process's batches, cancelled when it exits


@atexit.register
def _cancel_all() -> None:
    """The app's process exits: every batch stops after its pages in flight (its run is
    marked cancelled, its finished pages kept)."""
    for job in list(_LIVE):
        job.cancel.set()
    for job in list(_LIVE):
        if job.thread is not None:
            job.thread.join(timeout=10)


def folder_files(folder: str) -> list[tuple[str, bytes]]:
    """Every document file directly in ``folder`` (sorted by name)."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise WorkbenchError(f"{path} is not a folder on the server.")
    files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
    if not files:
        raise WorkbenchError(f"{path} holds no PDF or image file.")
    return [(p.name, p.read_bytes()) for p in files]


def unsupported_note(folder: str) -> str | None:
    """One line naming what a folder holds besides documents (left out of the batch)."""
    path = Path(folder).expanduser()
    left = [
        display_name(p.name + ("/" if p.is_dir() else ""))
        for p in sorted(path.iterdir())
        if not (p.is_file() and p.suffix.lower() in SUFFIXES)
    ]
    if not left:
        return None
    return f"{len(left)} unsupported file(s) in {display_name(path)}: {', '.join(left)}"


def run_batch(
    files: Sequence[tuple[str, bytes]],
    engine: Engine,
    spec: ModelSpec,
    store: RunStore,
    name: str,
    settings: Settings,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    outcome: BatchOutcome | None = None,
) -> BatchOutcome:
    """Process ``files`` into one new run through the run writer (:mod:`workbench.pipeline.
    runner`). Interrupted (any exception): finished pages stay, the run is marked cancelled,
    the exception goes on. ``outcome`` is updated in place. Files are told apart by content:
    two files with one name are two documents; the same content twice is processed once."""
    outcome = outcome if outcome is not None else BatchOutcome()
    docs: list[Document] = []
    failed_inputs = 0
    for fname, data in files:
        try:
            doc = open_document(fname, data, settings)
        except WorkbenchError as exc:
            outcome.skipped.append(str(exc))
            failed_inputs += 1
            continue
        twin = next((d for d in docs if d.sha256 == doc.sha256), None)
        if twin is not None:
            outcome.skipped.append(f"{fname}: same content as {twin.name}, processed once")
            doc.close()
            continue
        docs.append(doc)
    if not docs:
        outcome.status = RunStatus.FAILED.value
        return outcome
    dpi = render_dpi(spec, settings.dpi)
    info = run_info(
        engine,
        spec,
        name=name or docs[0].stem,
        documents=[d.info() for d in docs],
        dpi=dpi,
        source="batch",
    )
    job = RunJob.create(store, engine, spec, info)
    job.failed_inputs = failed_inputs
    for d in docs:
        keep_original(store, d)
    outcome.run_id = job.run_id
    plans = [job.plan(d) for d in docs]
    outcome.total = sum(len(p.todo) for p in plans)
    started = time.monotonic()

    def on_page(done: int, total: int, result: PageResult) -> None:
        outcome.counts[result.status.value] = outcome.counts.get(result.status.value, 0) + 1
        outcome.done = done  # the page is on disk before this is called
        if progress is not None:
            progress(done, total, time.monotonic() - started)

    try:
        run_documents(job, plans, on_page=on_page, cancelled=cancelled)
    except BaseException:
        outcome.status = RunStatus.CANCELLED.value
        raise
    finally:
        outcome.seconds = time.monotonic() - started
        for doc in docs:
            doc.close()
    outcome.status = job.outcome.status.value
    return outcome


def start_batch(
    files: Sequence[tuple[str, bytes]],
    engine: Engine,
    spec: ModelSpec,
    store: RunStore,
    name: str,
    settings: Settings,
    outcome: BatchOutcome,
) -> BatchJob:
    """:func:`run_batch` in a thread of its own; returns at once. The job's ``cancel`` event
    stops it between pages; an error that ends it is kept in ``job.error`` (the run is then
    marked cancelled, its finished pages kept)."""
    job = BatchJob(outcome)

    def work() -> None:
        try:
            run_batch(files, engine, spec, store, name, settings, cancelled=job.cancel.is_set,
                      outcome=outcome)  # fmt: skip
        except WorkbenchError as exc:
            job.error = str(exc)
        except Exception as exc:  # the thread's end: nothing above it would say it
            log.exception("batch %s stopped", outcome.run_id or name)
            job.error = f"{type(exc).__name__}: {exc}"
        finally:
            _LIVE.remove(job)

    job.thread = threading.Thread(target=work, name="workbench-batch", daemon=True)
    _LIVE.append(job)
    job.thread.start()
    return job


def progress_text(done: int, total: int, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else None
    eta = f"about {left:.0f} s left" if left is not None else "estimating time left"
    return f"{done}/{total} pages · {rate:.2f} pages/s · {eta}"


def _cancel() -> None:
    job: BatchJob | None = state.BATCH_JOB.get()
    if job is not None:
        job.cancel.set()
    state.BATCH_CANCEL_CLICKED.set(True)


@st.fragment(run_every=POLL_S)
def _live() -> None:
    """The running batch's progress and Cancel, redrawn alone every POLL_S; the whole page
    once the batch has ended (its counts, its run opened below)."""
    job: BatchJob | None = state.BATCH_JOB.get()
    if job is None or not job.running:
        st.rerun()
        return
    _draw(job, "batch_cancel", _cancel)


@st.fragment(run_every=POLL_S)
def _others() -> None:
    """Batches this session did not start but this process runs (the tab that started one
    was reloaded or closed, or another tab started it): each one's progress and Cancel,
    redrawn every POLL_S; the whole page once none is left."""
    jobs = running_elsewhere(state.BATCH_JOB.get())
    if not jobs:
        st.rerun()
        return
    for job in jobs:
        _draw(job, f"batch_cancel_{id(job)}", job.cancel.set)


def writing(run_id: str) -> BatchJob | None:
    """The running batch of this process that writes run ``run_id``, if one does."""
    return next((j for j in list(_LIVE) if j.running and j.outcome.run_id == run_id), None)


def running_elsewhere(mine: BatchJob | None) -> list[BatchJob]:
    """This process's running batches but ``mine``, oldest first."""
    return [job for job in list(_LIVE) if job is not mine and job.running]


def _draw(job: BatchJob, key: str, cancel: Callable[[], None]) -> None:
    o = job.outcome
    if o.total:
        text = progress_text(o.done, o.total, time.monotonic() - job.started)
    else:
        text = "0 pages · reading the documents…"
    st.progress(min(o.done / max(o.total, 1), 1.0), text=text)
    st.caption(
        f"Batch running{f' in run {o.run_id}' if o.run_id else ''}: the app stays usable "
        f"meanwhile. {o.tally()}"
    )
    if job.cancel.is_set():
        st.caption("Cancelling: it stops once the pages in progress are written.")
    else:
        st.button("Cancel", key=key, on_click=cancel, help="Finished pages are kept")


def _ended(job: BatchJob) -> None:
    """The last batch's end: its counts, why it stopped; its run opened below, once."""
    last = job.outcome
    if not job.shown and last.run_id:
        job.shown = True
        if state.OPEN_RUN.get() != last.run_id:
            state.OPEN_RUN.set(last.run_id)
            state.OPEN_DOCUMENT.pop()
            state.OPEN_PAGE.set(1)
        # Set, not left: the picker's label names the run's status, and a keyed picker keeps
        # the label it showed ("… running …") until its value is set again.
        state.RUNS_PICK.set(last.run_id)
    if state.BATCH_CANCEL_CLICKED.pop():
        st.warning(
            "Batch cancelled: it stopped once the pages in progress were written; every "
            "finished page is kept in the run (marked cancelled)."
        )
    if job.error:
        st.error(f"The batch stopped: {job.error}")
    note = f"Last batch: run {last.run_id or '—'}, {last.done}/{last.total} pages, {last.status}"
    if last.counts:
        note += f" · {last.tally()}"
    st.caption(note + (f" · skipped: {'; '.join(last.skipped)}" if last.skipped else ""))


def render() -> None:
    job: BatchJob | None = state.BATCH_JOB.get()
    if job is not None and job.running:
        _live()
        return  # one batch at a time per session
    if job is not None:
        _ended(job)
    if running_elsewhere(job):
        _others()
    source = st.radio(
        "Documents", ["Upload files", "Folder on the server"], horizontal=True, key="batch_src"
    )
    uploads = []
    folder = ""
    if source == "Upload files":
        show_every_file("batch_files")
        uploads = (
            st.file_uploader(
                "Documents for the batch",
                type=["pdf", "png", "jpg", "jpeg", "tif", "tiff", "webp", "bmp"],
                accept_multiple_files=True,
                key="batch_files",
            )
            or []
        )
    else:
        folder = st.text_input("Folder path", key="batch_folder", placeholder="/data/scans")
    choices = engine_choices()
    c1, c2 = st.columns(2)
    engine_name = c1.selectbox("Engine", list(choices), key="batch_engine")
    run_name = c2.text_input("Run name", key="batch_name", placeholder="batch")
    if not st.button("Start batch", key="batch_start", type="primary"):
        return
    try:
        files = (
            [(u.name, u.getvalue()) for u in uploads]
            if source == "Upload files"
            else folder_files(folder)
        )
    except (WorkbenchError, OSError) as exc:
        st.error(str(exc))
        return
    if not files:
        st.error("Add at least one document first.")
        return
    try:
        engine, spec = choices[engine_name]()
    except WorkbenchError as exc:
        st.error(f"The engine cannot start: {exc}")
        return
    settings = Settings.from_env(store_dir=get_store().root)
    outcome = BatchOutcome()
    if source != "Upload files" and (left_out := unsupported_note(folder)) is not None:
        outcome.skipped.append(left_out)
    state.BATCH_LAST.set(outcome)
    state.BATCH_CANCEL_CLICKED.pop()
    state.BATCH_JOB.set(start_batch(files, engine, spec, get_store(), run_name, settings, outcome))
    st.rerun()  # the page again, with the batch's progress in place of the form
