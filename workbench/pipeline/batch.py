"""Batch: many documents processed as ONE run, front-end free (the app's Runs → Batch draws
it, :mod:`workbench.ui.runs.batch`).

Contract
--------
* :func:`run_batch` processes documents into one new run through the run writer
  (:mod:`workbench.pipeline.runner`): each page is written the moment it finishes, so a batch
  that is cancelled or crashes keeps every finished page (the run is then marked
  ``cancelled``). Files that cannot be read are listed in ``outcome.skipped`` and the others
  go on; two files of the same content are one document.
* :func:`start_batch` runs one in a thread of its own and returns a :class:`BatchJob` at once:
  a caller (a Streamlit script run) only reads its :class:`BatchOutcome`, which the thread
  updates in place, and sets its ``cancel`` event to stop it after the pages in flight.
* The process keeps its running batches (:func:`writing`, :func:`running_elsewhere`): a batch
  outlives the session that started it, and every one is cancelled when the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.documents import Document, open_document, supported
from workbench.engines.base import Engine
from workbench.errors import WorkbenchError, display_name
from workbench.models.registry import ModelSpec
from workbench.pipeline.request import RunRequest
from workbench.pipeline.runner import RunJob, run_documents
from workbench.runs.store import RunStore
from workbench.schema import PageResult, PageStatus, RunStatus

log = logging.getLogger(__name__)

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
    files = sorted(p for p in path.iterdir() if p.is_file() and supported(p))
    if not files:
        raise WorkbenchError(f"{path} holds no PDF or image file.")
    return [(p.name, p.read_bytes()) for p in files]


def unsupported_note(folder: str) -> str | None:
    """One line naming what a folder holds besides documents (left out of the batch)."""
    path = Path(folder).expanduser()
    left = [
        display_name(p.name + ("/" if p.is_dir() else ""))
        for p in sorted(path.iterdir())
        if not (p.is_file() and supported(p))
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
    request: RunRequest,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    outcome: BatchOutcome | None = None,
    into: str | None = None,
) -> BatchOutcome:
    """Process ``files`` into one new run through the run writer (:mod:`workbench.pipeline.
    runner`), or into run ``into`` of the store (its failed and missing pages only: "Retry
    failed pages"; a run made with other settings is refused). ``request`` is the front end's
    run request: its settings open the files, its DPI (:meth:`RunRequest.render_dpi`) renders
    them and is recorded in the manifest. Interrupted (any exception):
    finished pages stay, the run is marked cancelled, the exception goes on. ``outcome`` is
    updated in place. Files are told apart by content: two files with one name are two
    documents; the same content twice is processed once."""
    outcome = outcome if outcome is not None else BatchOutcome()
    docs: list[Document] = []
    failed_inputs = 0
    for fname, data in files:
        try:
            doc = open_document(fname, data, request.settings)
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
    info = request.run_info(
        engine, spec, name=name or docs[0].stem, documents=[d.info() for d in docs], source="batch"
    )
    if into:
        job = RunJob.start(store.path(into), engine, spec, info)
    else:
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


def start_batch(run: Callable[..., BatchOutcome], outcome: BatchOutcome, what: str) -> BatchJob:
    """``run`` (:func:`run_batch` with its documents, engine and store bound, e.g. by
    :func:`functools.partial`) in a thread of its own; returns at once. It is called with
    ``cancelled`` (the job's ``cancel`` event: it stops between pages) and ``outcome``. An
    error that ends it is kept in ``job.error`` (the run is then marked cancelled, its
    finished pages kept); ``what`` names the batch in the log."""
    job = BatchJob(outcome)

    def work() -> None:
        try:
            run(cancelled=job.cancel.is_set, outcome=outcome)
        except WorkbenchError as exc:
            job.error = str(exc)
        except Exception as exc:  # the thread's end: nothing above it would say it
            log.exception("batch %s stopped", outcome.run_id or what)
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


def writing(run_id: str) -> BatchJob | None:
    """The running batch of this process that writes run ``run_id``, if one does."""
    return next((j for j in list(_LIVE) if j.running and j.outcome.run_id == run_id), None)


def running_elsewhere(mine: BatchJob | None) -> list[BatchJob]:
    """This process's running batches but ``mine``, oldest first."""
    return [job for job in list(_LIVE) if job is not mine and job.running]


def keep_original(store: RunStore, doc: Document) -> None:
    """Keep a PDF's original in the store (its text layer is Compare's reference text, read
    with no upload); a store that cannot take it loses only that, never the run."""
    if doc.kind == "pdf":
        with contextlib.suppress(OSError):
            store.keep_source(doc.data, doc.sha256)
