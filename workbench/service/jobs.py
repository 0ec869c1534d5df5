"""Runs submitted to the service: created in the run store at once, processed in the
background on the process's one engine, followed page by page.

Contract
--------
* :meth:`RunManager.submit` takes documents already opened for their facts (every input was
  checked before: a bad one refused the whole request, nothing was created), creates the run
  in the store (:meth:`RunJob.create <workbench.pipeline.runner.RunJob.create>`: the app's
  folder layout, ``settings.source = "api"``) and returns its :class:`RunProgress` at once;
  the pages go through :func:`~workbench.pipeline.runner.run_documents` on a worker thread.
  At most ``runs_at_once`` runs are processed together (the others wait, ``queued``); they
  share the one engine, whose own gate interleaves their pages.
* A run's failure (the engine died, a full disk) is its own: its status becomes ``failed``
  or ``cancelled`` with ``error`` set, the other runs go on.
* :meth:`RunManager.cancel` asks a run to stop between pages and waits for it (pages done
  are kept, the run is marked ``cancelled``); the service deletes a run only after that.
* ``version`` grows at every change, so a stream sends a snapshot only when one happened.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from workbench.documents import DocumentSource
from workbench.engines.base import Engine
from workbench.models.registry import ModelSpec
from workbench.pipeline.request import RunRequest
from workbench.pipeline.runner import DocumentPlan, RunJob, run_documents
from workbench.runs.store import RunStore, summarize
from workbench.schema import PageResult, PageStatus, RunStatus

#: Statuses after which a run changes no more.
FINISHED = frozenset({"done", "partial", "cancelled", "failed", "corrupt"})


class RunProgress(BaseModel):
    """Where a run stands: ``status`` is ``queued``, ``running``, then ``done``, ``partial``
    (some page failed), ``cancelled`` or ``failed`` (``error`` says why)."""

    id: str
    name: str
    status: str
    documents: list[str]
    pages_total: int  # pages this run was asked to process
    pages_done: int  # of those, finished (any status)
    pages_failed: int  # of those, ended in error
    last_page: dict[str, Any] | None = None  # {"document", "page", "status"}
    error: str | None = None
    version: int = 0

    @property
    def finished(self) -> bool:
        return self.status in FINISHED


@dataclass
class _Active:
    progress: RunProgress
    cancel: threading.Event = field(default_factory=threading.Event)
    future: Future[None] | None = None


class RunManager:
    """The service's runs on one engine (see the module docstring)."""

    def __init__(
        self,
        request: RunRequest,
        engine: Engine,
        spec: ModelSpec,
        store: RunStore,
        *,
        runs_at_once: int = 2,
    ) -> None:
        self.request = request  # what every run is made with (its pages: each submission's)
        self.engine = engine
        self.spec = spec
        self.settings = request.settings
        self.store = store
        self._pool = ThreadPoolExecutor(max(1, runs_at_once), thread_name_prefix="run")
        self._active: dict[str, _Active] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ submitting
    def submit(
        self,
        documents: list[tuple[DocumentSource, list[int]]],
        name: str,
        cleanup: Path | None = None,
    ) -> RunProgress:
        """Create the run and queue its pages; its progress now (``queued``). ``cleanup``: a
        folder of uploaded files, removed once the run has finished with them."""
        info = self.request.run_info(
            self.engine,
            self.spec,
            name=name,
            documents=[d.info() for d, _ in documents],
            source="api",
        )
        job = RunJob.create(self.store, self.engine, self.spec, info)
        plans = [job.plan(doc, pages) for doc, pages in documents]
        progress = RunProgress(
            id=job.run_id,
            name=name,
            status="queued",
            documents=[p.name for p in plans],
            pages_total=sum(len(p.todo) for p in plans),
            pages_done=0,
            pages_failed=0,
        )
        active = _Active(progress)
        with self._lock:
            self._active[job.run_id] = active
            active.future = self._pool.submit(self._work, job, plans, active, cleanup)
        return progress.model_copy()

    def _update(self, active: _Active, **changes: Any) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(active.progress, key, value)
            active.progress.version += 1

    def _work(
        self, job: RunJob, plans: list[DocumentPlan], active: _Active, cleanup: Path | None
    ) -> None:
        def on_page(done: int, _total: int, result: PageResult) -> None:
            failed = active.progress.pages_failed + (result.status is PageStatus.ERROR)
            last = {"document": result.document, "page": result.page, "status": result.status.value}
            self._update(active, pages_done=done, pages_failed=failed, last_page=last)

        try:
            if active.cancel.is_set():  # deleted while queued
                job.finish(interrupted=True)
                self._update(active, status=RunStatus.CANCELLED.value)
                return
            self._update(active, status="running")
            outcome = run_documents(job, plans, on_page=on_page, cancelled=active.cancel.is_set)
            self._update(active, status=outcome.status.value)
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
        summary = summarize(path)
        return RunProgress(
            id=summary.id,
            name=summary.name,
            status=summary.status,
            documents=summary.documents,
            pages_total=summary.pages,
            pages_done=summary.pages,
            pages_failed=0,
            error=summary.problem,
        )

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
