"""Batch: many documents (uploaded, or a folder on the server's disk) processed as ONE run.

Each page is written by the run writer the moment it finishes, so a batch that is cancelled
(the Cancel button interrupts the script at its next progress update) or crashes keeps every
finished page; the run is then marked ``cancelled``. Files that cannot be read are listed
and skipped; the others go on. The engine is the one the sidebar selected (or the embedded
CPU engine), through :mod:`workbench.ui.engines`.
"""

from __future__ import annotations

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
from workbench.schema import PageResult, RunStatus
from workbench.settings import Settings
from workbench.ui import state
from workbench.ui.inputs import show_every_file
from workbench.ui.job_runs import keep_original
from workbench.ui.runs_common import engine_choices, get_store

SUFFIXES = {".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp", ".bmp"}

#: Called after each written page with (pages done, pages total, seconds elapsed).
Progress = Callable[[int, int, float], None]


@dataclass
class BatchOutcome:
    run_id: str = ""
    done: int = 0
    total: int = 0
    status: str = RunStatus.RUNNING.value
    skipped: list[str] = field(default_factory=list)  # "name: why"
    seconds: float = 0.0


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

    def on_page(done: int, total: int, _result: PageResult) -> None:
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


def progress_text(done: int, total: int, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    left = (total - done) / rate if rate > 0 else None
    eta = f"about {left:.0f} s left" if left is not None else "estimating time left"
    return f"{done}/{total} pages · {rate:.2f} pages/s · {eta}"


def _cancel() -> None:
    state.BATCH_CANCEL_CLICKED.set(True)


def render() -> None:
    last: BatchOutcome | None = state.BATCH_LAST.get()
    if state.BATCH_CANCEL_CLICKED.pop():
        st.warning(
            "Batch cancelled: it stops once the page in progress is written; every finished "
            "page is kept in the run (marked cancelled)."
        )
    if last is not None:
        note = (
            f"Last batch: run {last.run_id or '—'}, {last.done}/{last.total} pages, {last.status}"
        )
        st.caption(note + (f" · skipped: {'; '.join(last.skipped)}" if last.skipped else ""))
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
    bar = st.progress(0.0, text=f"0 pages · starting {engine.name}/{engine.model}…")
    st.button("Cancel", key="batch_cancel", on_click=_cancel, help="Finished pages are kept")

    def update(done: int, total: int, elapsed: float) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=progress_text(done, total, elapsed))

    settings = Settings.from_env(store_dir=get_store().root)
    outcome = BatchOutcome()
    state.BATCH_LAST.set(outcome)  # kept even if Cancel interrupts
    if source != "Upload files" and (left_out := unsupported_note(folder)) is not None:
        outcome.skipped.append(left_out)
    try:
        run_batch(files, engine, spec, get_store(), run_name, settings, update, outcome=outcome)
    except WorkbenchError as exc:
        st.error(f"The batch stopped: {exc}")
    if outcome.run_id:
        state.OPEN_RUN.set(outcome.run_id)
        state.RUNS_PICK.pop()
        st.rerun()
    for why in outcome.skipped:
        st.error(f"Skipped {why}")
