"""Runs → Batch: many documents (uploaded, or a folder on the server's disk) processed as ONE
run by :mod:`workbench.pipeline.batch`, with the engine the sidebar selected (or the embedded
CPU engine), through :mod:`workbench.ui.engines`.

The batch runs in a thread of its own, never in the script run: a click anywhere in the app
(another page, a run's view, the sidebar) reruns the script at once and the batch goes on
(run in the script, the rerun a click asks for interrupted it, and the run ended
``cancelled``: issue 25). Its progress is redrawn every :data:`POLL_S` by a fragment; only
Cancel stops it (after the pages in flight). The session holds the job
(``state.BATCH_JOB``); a batch goes on if its tab is closed or reloaded (the page then shows
it, with Cancel, above the form for a new one: the process keeps its batches), and is
cancelled when the app's process exits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import streamlit as st

from workbench.documents import FILE_TYPES
from workbench.engines.base import Engine
from workbench.errors import WorkbenchError
from workbench.models.registry import ModelSpec
from workbench.pipeline.batch import (
    BatchJob,
    BatchOutcome,
    folder_files,
    progress_text,
    run_batch,
    running_elsewhere,
    start_batch,
    unsupported_note,
)
from workbench.pipeline.request import RunRequest
from workbench.runs.store import RunSummary
from workbench.ui import state
from workbench.ui.inputs import show_every_file
from workbench.ui.kit import follow_sidebar, get_store, open_choice, run_choices
from workbench.ui.sidebar import server_lost

#: Seconds between two redraws of a running batch's progress (a fragment: the rest of the
#: page is not rerun by it; clicks are answered by their own reruns meanwhile).
POLL_S = 1.0


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
    # A server that went away: said while the batch waits on it (its pages wait, then fail),
    # not only once they have failed (the progress bar alone read as "still working").
    lost = server_lost(choice=state.BATCH_CHOICE.get()) if job.outcome.total else None
    if lost:
        st.warning(lost, icon=":material/cloud_off:")


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
                type=list(FILE_TYPES),
                accept_multiple_files=True,
                key="batch_files",
            )
            or []
        )
    else:
        folder = st.text_input("Folder path", key="batch_folder", placeholder="/data/scans")
    choices = run_choices()
    follow_sidebar(state.BATCH_ENGINE, state.BATCH_ENGINE_FOR, choices)
    c1, c2 = st.columns(2)
    engine_name = c1.selectbox("Engine", list(choices), key=state.BATCH_ENGINE.key)
    run_name = c2.text_input(  # left empty, the run is named after its first document
        "Run name", key="batch_name", placeholder="the first document's name"
    )
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
    choice = choices[engine_name]
    try:
        engine, spec = open_choice(choice)
    except WorkbenchError as exc:
        st.error(f"The engine cannot start: {exc}")
        return
    outcome = BatchOutcome()
    if source != "Upload files" and (left_out := unsupported_note(folder)) is not None:
        outcome.skipped.append(left_out)
    state.BATCH_LAST.set(outcome)
    state.BATCH_CANCEL_CLICKED.pop()
    run = partial(run_batch, files, engine, spec, get_store(), run_name, choice.request)
    state.BATCH_CHOICE.set(choice)
    state.BATCH_JOB.set(start_batch(run, outcome, run_name or files[0][0]))
    st.rerun()  # the page again, with the batch's progress in place of the form


def retry_failed(run: RunSummary) -> None:
    """A batch run with failed or missing pages: "Retry failed pages" processes them again,
    into the same run, from the originals the store keeps, with the engine it was made with
    (the sidebar's or the embedded one), as a batch (its progress above, Cancel included)."""
    if run.settings.get("source") != "batch" or run.status not in ("partial", "cancelled"):
        return
    job: BatchJob | None = state.BATCH_JOB.get()
    if (job is not None and job.running) or not st.button(
        "Retry failed pages",
        key="runs_retry_batch",
        icon=":material/refresh:",
        help="Processes this run's failed and missing pages again, into this run; the pages "
        "done are kept. Once the server answers again, one click.",
    ):
        return
    store = get_store()
    files, missing = [], []
    for d in store.open(run.id).info.documents:
        path = store.source(d.sha256)
        if path is None:
            missing.append(d.name)
        else:
            files.append((d.name, path.read_bytes()))
    if missing:
        st.warning(f"No original kept of {', '.join(missing)} (the store keeps PDFs only).")
    try:
        engine, spec, request = _engine_for(run.engine)
    except WorkbenchError as exc:
        st.error(f"Cannot retry: {exc}")
        return
    if not files:
        return
    outcome = BatchOutcome(run_id=run.id)
    state.BATCH_LAST.set(outcome)
    state.BATCH_CANCEL_CLICKED.pop()
    bound = partial(run_batch, files, engine, spec, store, run.name, request, into=run.id)
    state.BATCH_JOB.set(start_batch(bound, outcome, run.name))
    st.rerun()  # the page again, with the batch's progress


def _engine_for(name: str) -> tuple[Engine, ModelSpec, RunRequest]:
    """The engine a run named ``name`` was made with, among those a batch can use here, its
    spec and its run request."""
    for choice in run_choices().values():
        engine, spec = open_choice(choice)
        if engine.name == name:
            return engine, spec, choice.request
    raise WorkbenchError(f"the run was made with the {name} engine: pick it in the sidebar first")
