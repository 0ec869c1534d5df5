"""Runs submitted to the service: created in the run store at once, processed in the
background on the process's one engine (held by an :class:`~workbench.pipeline.
engine_holder.EngineHolder`: a dead engine is released and rebuilt), followed page by page.

Contract
--------
* :meth:`RunManager.submit` takes documents already opened for their facts (every input was
  checked before: a bad one refused the whole request, nothing was created), creates the run
  in the store (:meth:`RunJob.create <workbench.pipeline.runner.RunJob.create>`: the app's
  folder layout, ``settings.source = "api"``) and returns its :class:`RunProgress` at once;
  the pages go through :func:`~workbench.pipeline.runner.run_documents` on a worker thread.
  At most ``runs_at_once`` runs are processed together (the others wait, ``queued``); they
  share the one engine, whose own gate interleaves their pages.
* A run's failure (a full disk) is its own: its status becomes ``failed`` or ``cancelled``
  with ``error`` set, the other runs go on. When vLLM's engine dies under a run, its pages
  left fail with vLLM's reason and it ends ``partial`` (``error``: the reason); the next run
  to start (a submission, a retry) gets a new engine from the holder.
* :meth:`RunManager.retry` processes a stored run's failed and missing pages again, into the
  same run (the run writer's resume: :meth:`RunJob.start <workbench.pipeline.runner.RunJob.
  start>`, as the CLI's rerun and the Runs page's "Retry failed pages"), from the originals
  the store keeps; a run made with other engine settings is refused.
* Runs this process does not write are read from their manifest (:func:`stored_progress`):
  pages planned (:func:`~workbench.pipeline.request.planned_pages`: each document's pages, or
  the page range the run recorded: a submission's, the CLI's ``--pages``), finished
  and failed; a run marked ``running`` whose writer is gone (its lock died with its process:
  :func:`workbench.runs.lock.held`) is ``interrupted``, and :meth:`RunManager.retry` resumes it.
* :meth:`RunManager.cancel` asks a run to stop between pages and waits for it (pages done
  are kept, the run is marked ``cancelled``); the service deletes a run only after that.
* ``version`` grows at every change, so a stream sends a snapshot only when one happened;
  :meth:`RunManager.pages_since` gives every page as it finished, none coalesced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workbench.documents import DocumentSource, probe_input
from workbench.engines.base import Engine
from workbench.errors import PlanError, StoreError, WorkbenchError, display_name
from workbench.pipeline.engine_holder import EngineHolder, is_dead
from workbench.pipeline.request import RunRequest, planned_pages
from workbench.pipeline.runner import DocumentPlan, RunJob, run_documents
from workbench.runs import lock
from workbench.runs.store import RunReader, RunStore, RunSummary, summarize
from workbench.schema import PageResult, PageStatus, RunStatus
from workbench.service.errors import ApiError

#: Statuses after which a run changes no more.
FINISHED = frozenset({"done", "partial", "cancelled", "failed", "corrupt", "interrupted"})
#: A stored run marked running whose writer died (a killed process): resumable by retry.
INTERRUPTED = "interrupted"


class RunProgress(BaseModel):
    """Where a run stands: ``status`` is ``queued``, ``running``, then ``done``, ``partial``
    (some page failed), ``cancelled`` or ``failed`` (``error`` says why); a run whose writer
    died is ``interrupted``."""

    id: str
    name: str
    status: str
    documents: list[str]
    pages_total: int  # pages this run was asked to process (every document's planned pages)
    pages_done: int  # of those, finished (any status)
    pages_failed: int  # of those, ended in error
    last_page: dict[str, Any] | None = None  # {"document", "page", "status"}
    error: str | None = None
    version: int = 0

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


def shown_status(summary: RunSummary) -> str:
    """A stored run's status for clients: ``interrupted`` for one marked running that no live
    writer holds (its process was killed), else the manifest's."""
    if summary.status == RunStatus.RUNNING.value and not lock.held(summary.path):
        return INTERRUPTED
    return summary.status


def stored_progress(path: Path) -> RunProgress:
    """The progress of the run at ``path`` as its manifest tells it (a run another process
    writes, or wrote): pages planned, finished and failed of its documents."""
    summary = summarize(path)
    total, done, failed = summary.pages, summary.pages, 0
    with contextlib.suppress(StoreError, OSError):
        info = RunReader(path).info
        planned = {(d.name, n) for d in info.documents for n in planned_pages(d, info)}
        entries = [e for e in info.pages if (e.document, e.page) in planned]
        total, done = len(planned), len(entries)
        failed = sum(e.status is PageStatus.ERROR for e in entries)
    status = shown_status(summary)
    said = None
    if status == INTERRUPTED:
        said = (
            "the process writing this run stopped before it finished (killed?); "
            f"POST /v1/runs/{summary.id}/retry resumes it, the pages done are kept"
        )
    return RunProgress(
        id=summary.id,
        name=summary.name,
        status=status,
        documents=summary.documents,
        pages_total=total,
        pages_done=done,
        pages_failed=failed,
        error=summary.problem or said,
    )


@dataclass
class _Active:
    progress: RunProgress
    cancel: threading.Event = field(default_factory=threading.Event)
    future: Future[None] | None = None
    pages: list[dict[str, Any]] = field(default_factory=list)  # each page as it finished


class RunManager:
    """The service's runs on one held engine (see the module docstring)."""

    def __init__(
        self,
        request: RunRequest,
        holder: EngineHolder,
        store: RunStore,
        *,
        runs_at_once: int = 2,
    ) -> None:
        self.request = request  # what every run is made with (its pages: each submission's)
        self.holder = holder
        self.settings = request.settings
        self.store = store
        self._pool = ThreadPoolExecutor(max(1, runs_at_once), thread_name_prefix="run")
        self._active: dict[str, _Active] = {}
        self._lock = threading.Lock()

    @property
    def engine(self) -> Engine:
        """The engine held now (a dead one until a run asks for its successor)."""
        current = self.holder.current
        return current if current is not None else self.holder.get()

    def _live_engine(self) -> Engine:
        try:
            return self.holder.get()
        except WorkbenchError as exc:  # the rebuild failed (the server is still down)
            raise ApiError(503, "engine_unavailable", f"no engine to run on: {exc}") from None

    # ------------------------------------------------------------------ submitting
    def submit(
        self,
        documents: list[tuple[DocumentSource, list[int]]],
        name: str,
        cleanup: Path | None = None,
        pages: str | None = None,
    ) -> RunProgress:
        """Create the run and queue its pages; its progress now (``queued``). ``cleanup``: a
        folder of uploaded files, removed once the run has finished with them; ``pages``:
        the page range asked for, recorded with the run (a retry plans the same pages)."""
        engine = self._live_engine()
        spec = self.request.spec_of(engine)
        request = dataclasses.replace(self.request, pages=pages)  # recorded with the run
        info = request.run_info(
            engine, spec, name=name, documents=[d.info() for d, _ in documents], source="api"
        )
        job = RunJob.create(self.store, engine, spec, info)
        plans = [job.plan(doc, wanted) for doc, wanted in documents]
        return self._start(job, plans, name, cleanup)

    def retry(self, run_id: str) -> RunProgress:
        """Process the failed and missing pages of stored run ``run_id`` again into it (see
        the module docstring); its progress now. 409 when it is being written or cannot be
        resumed here."""
        path = self.store.path(run_id)
        try:
            reader = RunReader(path)
        except (StoreError, OSError) as exc:
            raise ApiError(404, "unknown_run", str(exc)) from None
        if self.running(run_id) or lock.held(path):
            raise ApiError(409, "run_in_use", lock.busy_message(path))
        info = reader.info
        sources = self._originals(reader)
        engine = self._live_engine()
        spec = self.request.spec_of(engine)
        docs = [(d, sources[d.name]) for d in info.documents if d.name in sources]
        head = self.request.run_info(
            engine, spec, name=info.name, documents=[s.info() for _, s in docs], source="api"
        )
        with self._lock:  # one retry of a run at a time
            if run_id in self._active and not self._active[run_id].progress.finished:
                raise ApiError(409, "run_in_use", f"run {run_id} is being processed already")
            try:
                job = RunJob.start(path, engine, spec, head)
            except PlanError as exc:
                raise ApiError(409, "other_settings", str(exc)) from None
            except StoreError as exc:
                raise ApiError(409, "run_in_use", str(exc)) from None
            self._active.pop(run_id, None)
        plans = [job.plan(source, planned_pages(d, info)) for d, source in docs]
        return self._start(job, plans, info.name, None)

    def _originals(self, reader: RunReader) -> dict[str, DocumentSource]:
        """The kept original of every document of the run that has pages left to do; 409
        naming those that have none (an image, a run made outside the store)."""
        info = reader.info
        ended = {(e.document, e.page) for e in info.pages if e.status is not PageStatus.ERROR}
        found: dict[str, DocumentSource] = {}
        lost: list[str] = []
        for doc in info.documents:
            if all((doc.name, n) in ended for n in planned_pages(doc, info)):
                continue
            kept = self.store.source(doc.sha256)
            try:
                if kept is not None:
                    found[doc.name] = probe_input(kept, self.settings)
                    continue
            except WorkbenchError:
                pass
            lost.append(display_name(doc.name))
        if lost:
            raise ApiError(
                409,
                "no_original",
                f"no original kept of {', '.join(lost)} (the store keeps PDFs only): "
                "submit it again as a new run",
            )
        return found

    def _start(
        self, job: RunJob, plans: Sequence[DocumentPlan], name: str, cleanup: Path | None
    ) -> RunProgress:
        progress = RunProgress(
            id=job.run_id,
            name=name,
            status="queued",
            documents=[p.name for p in plans],
            pages_total=sum(len(p.wanted) for p in plans),
            pages_done=sum(p.already_done for p in plans),
            pages_failed=0,  # pages that failed before are to do again: not counted yet
        )
        active = _Active(progress)
        with self._lock:
            self._active[job.run_id] = active
            active.future = self._pool.submit(self._work, job, list(plans), active, cleanup)
        return progress.model_copy()

    def _update(self, active: _Active, **changes: Any) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(active.progress, key, value)
            active.progress.version += 1

    def _work(
        self, job: RunJob, plans: list[DocumentPlan], active: _Active, cleanup: Path | None
    ) -> None:
        before = active.progress.pages_done

        def on_page(done: int, _total: int, result: PageResult) -> None:
            failed = active.progress.pages_failed + (result.status is PageStatus.ERROR)
            last = {"document": result.document, "page": result.page, "status": result.status.value}
            with self._lock:
                active.pages.append(last)
            self._update(active, pages_done=before + done, pages_failed=failed, last_page=last)

        try:
            if active.cancel.is_set():  # deleted while queued
                job.finish(interrupted=True)
                self._update(active, status=RunStatus.CANCELLED.value)
                return
            try:
                job.replan(self.holder.get())  # queued while an engine died: its successor
            except Exception:  # no engine (the server is still down): resumable by retry
                job.finish(interrupted=True)
                raise
            self._update(active, status="running")
            outcome = run_documents(job, plans, on_page=on_page, cancelled=active.cancel.is_set)
            died = str(getattr(job.engine, "dead", "")) if is_dead(job.engine) else None
            self._update(active, status=outcome.status.value, error=died)
        except Exception as exc:  # this run's failure only; run_documents marked it cancelled
            self._update(active, status="failed", error=str(exc) or type(exc).__name__)
        finally:
            with contextlib.suppress(Exception):
                job.writer.close()
            if cleanup is not None:
                shutil.rmtree(cleanup, ignore_errors=True)

    # ------------------------------------------------------------------ following
    def progress(self, run_id: str) -> RunProgress | None:
        """A snapshot of the run's progress: this process's runs as they go, others (the
        app's, earlier ones) from their manifest; None when the store has no such run."""
        path = self.store.path(run_id)
        with self._lock:
            active = self._active.get(run_id)
            if active is not None and (not active.progress.finished or path.is_dir()):
                return active.progress.model_copy(deep=True)
            if active is not None:  # finished, then deleted by someone else (the app)
                del self._active[run_id]
        if not path.is_dir():
            return None
        return stored_progress(path)

    def pages_since(self, run_id: str, start: int) -> list[dict[str, Any]]:
        """The pages this process finished for the run, from the ``start``-th on, in the
        order they finished (a stream's cursor: none is skipped when two finish between two
        looks); empty for a run this process does not write."""
        with self._lock:
            active = self._active.get(run_id)
            return list(active.pages[start:]) if active is not None else []

    def running(self, run_id: str) -> bool:
        with self._lock:
            active = self._active.get(run_id)
            return active is not None and not active.progress.finished

    def cancel(self, run_id: str, wait: float = 300.0) -> None:
        """Ask the run to stop between pages and wait (up to ``wait`` s) for it to stop."""
        with self._lock:
            active = self._active.get(run_id)
        if active is None:
            return
        active.cancel.set()
        if active.future is not None:
            with contextlib.suppress(Exception):
                active.future.result(timeout=wait)

    def forget(self, run_id: str) -> None:
        with self._lock:
            self._active.pop(run_id, None)

    def close(self) -> None:
        """Stop every run between pages (they are marked cancelled) and the workers."""
        with self._lock:
            actives = list(self._active.values())
        for active in actives:
            active.cancel.set()
        self._pool.shutdown(wait=True, cancel_futures=False)
