"""The one run writer: documents in, run folder out. The CLI, the Viewer, Batch and Compare's
"start the missing run" all write runs through :class:`RunJob` (as LightOnOCR's pipeline is
"shared by run and viewer"), so their folders are the same for the same document and engine.

Use::

    job = RunJob.start(out_dir, engine, spec, run_info(engine, spec, name=..., ...))
    plans = [job.plan(doc) for doc in documents]           # resume: finished pages left out
    outcome = run_documents(job, plans, on_page=..., cancelled=...)   # then job.finish()

or page by page (the Viewer: the page on screen first, then the rest)::

    for item in job.document(doc, [5, 1, 2, 3, 4], skip_finished=False): ...  # written as done
    job.finish(interrupted=False)

or page images that are not a document's (Compare: run A's stored pages)::

    name = job.add(doc_info)
    for item in job.pages(name, images, total=n): ...

What a job guarantees
---------------------
* :func:`run_documents` (CLI, Batch) sends the pages of every document as one stream
  (:meth:`RunJob.stream`): as many documents' pages are in flight as the engine takes (a
  server's ``concurrency``, an in-process batch), each document's pages in their order.
* A document's pages are prepared for the model ahead of the engine
  (:func:`~workbench.pipeline.prepare.prepare_pages`, or across documents
  :func:`~workbench.pipeline.feed.prepare_plans`: rendered at the model's size, encoded
  once, a bounded number ahead), go through :func:`~workbench.pipeline.process.process`
  and are written by
  :meth:`workbench.runs.folder.RunWriter.write_page` the moment each finishes: the page
  image (the PNG bytes the engine was sent), its figure crops (``page-NNNN-rN.png``, the
  files the Markdown links), Markdown, raw output, then the page JSON. A killed job keeps
  every finished page.
* Documents are known by content (sha256): :meth:`add` gives a document already in the run
  its name there, and a different document with a taken name a new one (``doc-2.pdf``).
* Resume: :meth:`todo` leaves out the pages already finished cleanly or not (``ok``,
  ``truncated``, ``looped``); pages that ended in ``error`` are done again. Finished pages
  are never rewritten.
* Cancellation: ``cancelled()`` is checked between pages; an exception (KeyboardInterrupt,
  Streamlit's StopException) marks the run ``cancelled`` and goes on.
* One status rule (:func:`final_status`): ``cancelled`` when interrupted or pages asked for
  are missing; else ``partial`` when any page of the run failed (``error``) or an input could
  not be read; else ``done``. ``looped``/``truncated`` pages are finished (the run can be
  ``done``) and are listed in :attr:`RunOutcome.unclean` for the caller to report.
* Byte-identical folders: the same document, engine and DPI give the same document folder
  from every caller. Per-page timing (``seconds`` in the page JSON and its attempts) is a
  measurement and differs between runs unless the engine reports fixed times; the manifest
  differs only in run identity (``id``, ``name``), timestamps (``created``, ``updated``,
  ``finished``), per-page ``seconds`` and ``settings.source`` (who started the run).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.documents import AnyDocument, Document
from workbench.engines.base import Engine
from workbench.errors import DiskFull, PlanError, StoreError, display_name
from workbench.models.registry import ModelSpec
from workbench.pipeline.feed import prepare_plans
from workbench.pipeline.prepare import default_workers, prepare_pages, unreadable
from workbench.pipeline.process import OnPage, Processed, prefetch, process
from workbench.pipeline.request import RunShape
from workbench.runs.folder import RunReader, RunWriter
from workbench.runs.store import RunStore
from workbench.schema import DocumentInfo, PageImage, PageResult, PageStatus, RunInfo, RunStatus

#: Called when writing a page fails (disk full...); without it the error propagates.
OnWriteError = Callable[[PageResult, Exception], None]

UNCLEAN = (PageStatus.LOOPED, PageStatus.TRUNCATED)


@dataclass(frozen=True)
class PageProblem:
    """A page that failed (``error``) or finished unclean (``looped``, ``truncated``)."""

    document: str
    page: int
    status: PageStatus
    detail: str


@dataclass
class DocumentPlan:
    """One document of a job: its name in the run, pages wanted, pages still to do."""

    document: AnyDocument  # a DocumentSource is opened when its pages' turn comes
    name: str
    wanted: list[int]
    todo: list[int]

    @property
    def already_done(self) -> int:
        return len(self.wanted) - len(self.todo)


@dataclass
class RunOutcome:
    run_id: str
    path: Path
    status: RunStatus = RunStatus.RUNNING
    written: int = 0  # pages written by this job
    processed: int = 0  # pages the engine finished in this job (written or not)
    total: int = 0  # pages this job was asked to do (after resume)
    failed: list[PageProblem] = field(default_factory=list)
    unclean: list[PageProblem] = field(default_factory=list)


def final_status(
    *, interrupted: bool, missing: int, failed_pages: int, failed_inputs: int
) -> RunStatus:
    """The one rule for a run's final status (see the module docstring)."""
    if interrupted or missing:
        return RunStatus.CANCELLED
    if failed_pages or failed_inputs:
        return RunStatus.PARTIAL
    return RunStatus.DONE


def _refuse_other_settings(out: Path | str, old: RunInfo, new: RunInfo) -> None:
    """A run folder holds one engine's output with one set of settings: resuming it with
    others would mix two runs' pages in one. Named differences, and the way out."""
    diff = RunShape.of(old).differences(RunShape.of(new))
    if diff:
        said = ", ".join(f"{k} {was} → {new}" for k, was, new in diff)
        raise PlanError(
            f"{display_name(out)} holds the run {old.name!r} made with other settings ({said}); "
            "choose another --out to keep both and compare them"
        )


def finished_pages(run_dir: Path, doc: DocumentInfo) -> set[int] | None:
    """Pages of ``doc`` (recognised by content) finished in the run at ``run_dir`` without
    error; None when there is no readable run there. Reads only: nothing is started."""
    try:
        reader = RunReader(run_dir)
    except (StoreError, OSError):
        return None
    known = next((d for d in reader.info.documents if d.sha256 == doc.sha256), None)
    if known is None or known.name not in reader.folders:
        return set()
    return {p.page for p in reader.pages(known.name) if p.status is not PageStatus.ERROR}


class RunJob:
    """One run folder being written with one engine. Thread-safe writes (RunWriter)."""

    def __init__(self, writer: RunWriter, engine: Engine, spec: ModelSpec, dpi: float) -> None:
        self.writer = writer
        self.engine = engine
        self.spec = spec
        self.dpi = dpi
        self.outcome = RunOutcome(run_id=writer.info.id, path=writer.path)
        self.failed_inputs = 0

    # ------------------------------------------------------------------ opening
    @classmethod
    def start(cls, run_dir: Path, engine: Engine, spec: ModelSpec, info: RunInfo) -> RunJob:
        """Create the run in ``run_dir``, or resume the one there (CLI ``--out DIR``); a run
        made with another engine, model or settings is refused, naming the differences."""
        try:
            old: RunInfo | None = RunReader(run_dir).info
        except (StoreError, OSError):
            old = None  # no run there, or an unreadable manifest that the writer rebuilds
        if old is not None:
            _refuse_other_settings(run_dir, old, info)
        dpi = float(info.settings.get("dpi") or 0) or 0.0
        return cls(RunWriter.open(run_dir, info), engine, spec, dpi)

    @classmethod
    def create(cls, store: RunStore, engine: Engine, spec: ModelSpec, info: RunInfo) -> RunJob:
        """A new run in the store (an empty ``info.id`` gets a fresh one)."""
        dpi = float(info.settings.get("dpi") or 0) or 0.0
        return cls(store.create(info), engine, spec, dpi)

    @classmethod
    def reopen(cls, run_dir: Path, engine: Engine, spec: ModelSpec, dpi: float) -> RunJob:
        """Add pages to an existing run (the Viewer's next visit to a document)."""
        return cls(RunWriter.open(run_dir), engine, spec, dpi)

    def replan(self, engine: Engine | None = None) -> None:
        """Forget pages planned but not processed (a caller that cut a :meth:`document` short
        and asks for its pages again, as the Viewer does when the user turns to another page),
        so :meth:`finish` counts only what the latest plan left undone; ``engine``: the
        engine instance to use from now on (the same engine key, perhaps rebuilt)."""
        self.outcome.total = self.outcome.processed
        if engine is not None:
            self.engine = engine

    @property
    def run_id(self) -> str:
        return self.writer.info.id

    @property
    def path(self) -> Path:
        return self.writer.path

    # ------------------------------------------------------------------ planning
    def add(self, doc: DocumentInfo) -> str:
        """Register a document; its name in the run (see the identity rule)."""
        return self.writer.add_document(doc)

    def todo(self, name: str, wanted: Iterable[int]) -> list[int]:
        """The pages of ``wanted`` not finished yet (pages that failed count as not finished)."""
        finished = self.writer.finished_pages(name)
        return [n for n in wanted if n not in finished]

    def plan(self, doc: AnyDocument, pages: Sequence[int] | None = None) -> DocumentPlan:
        name = self.add(doc.info())
        wanted = list(pages) if pages is not None else doc.select()
        return DocumentPlan(doc, name, wanted, self.todo(name, wanted))

    # ------------------------------------------------------------------ processing
    def write_one(self, item: Processed, on_error: OnWriteError | None = None) -> bool:
        """Write one processed page (never over a finished one); whether it was written.

        A page that failed before is replaced. Outcome counters follow every written page."""
        result = item.result
        try:
            previous = self.writer.page_status(result.document, result.page)
            if previous is not None and previous is not PageStatus.ERROR:
                return False
            overwrite = previous is not None
            self.writer.write_page(result, item.page_image, overwrite=overwrite, png=item.png)
        except (OSError, StoreError) as exc:
            if on_error is None:
                raise
            on_error(result, exc)
            return False
        self.outcome.written += 1
        problem = PageProblem(result.document, result.page, result.status, result.error or "")
        if result.status is PageStatus.ERROR:
            self.outcome.failed.append(problem)
        elif result.status in UNCLEAN:
            detail = next((n for n in reversed(result.notes) if n), result.status.value)
            self.outcome.unclean.append(dataclasses.replace(problem, detail=detail))
        return True

    def pages(
        self,
        name: str,
        images: Iterable[PageImage],
        *,
        total: int,
        on_page: OnPage | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_write_error: OnWriteError | None = None,
    ) -> Iterator[Processed]:
        """Process ``images`` (pages of the run's document ``name``, in the order given) and
        write each as it finishes; yields every processed page, written or not. ``on_page``
        (pages done, ``total``, result) is called once the page is on disk, so a callback
        that stops the caller (Streamlit's Cancel) never loses the page it reports."""
        renamed = (
            p if p.document == name else dataclasses.replace(p, document=name) for p in images
        )
        return self._written(renamed, total, on_page, cancelled, on_write_error)

    def _written(
        self,
        images: Iterable[PageImage],
        total: int,
        on_page: OnPage | None,
        cancelled: Callable[[], bool] | None,
        on_write_error: OnWriteError | None,
    ) -> Iterator[Processed]:
        """``images`` (pages named as in the run) through the engine, each written as it
        finishes: the one loop behind :meth:`pages`, :meth:`document` and :meth:`stream`."""
        self.outcome.total += total
        items = process(self.engine, self.spec, images, total=total, cancelled=cancelled)
        for done, item in enumerate(items, start=1):
            self.write_one(item, on_write_error)
            self.outcome.processed += 1
            if on_page is not None:
                on_page(done, total, item.result)
            yield item

    def document(
        self,
        doc: Document,
        pages: Sequence[int] | None = None,
        *,
        skip_finished: bool = True,
        on_page: OnPage | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_write_error: OnWriteError | None = None,
    ) -> Iterator[Processed]:
        """Pages of ``doc`` in the order given (default: its selection), written as each
        finishes. ``skip_finished``: leave out the pages the run has already (resume); without
        it every page asked for is processed and yielded (a finished one is not rewritten), as
        the Viewer needs for pages it no longer holds in memory."""
        name = self.add(doc.info())
        wanted = list(pages) if pages is not None else doc.select()
        todo = self.todo(name, wanted) if skip_finished else wanted
        if not todo:
            return iter(())
        # Rendered at the model's size and encoded in worker processes, ahead of the engine.
        images = prepare_pages(
            doc, todo, self.spec, self.dpi or None, ahead=prefetch(self.engine), keep_going=True
        )
        return self.pages(
            name,
            images,
            total=len(todo),
            on_page=on_page,
            cancelled=cancelled,
            on_write_error=on_write_error,
        )

    def stream(
        self,
        plans: Sequence[DocumentPlan],
        *,
        on_page: OnPage | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_write_error: OnWriteError | None = None,
    ) -> Iterator[Processed]:
        """Every plan's ``todo`` pages through the engine as ONE stream, each written as it
        finishes: pages of as many documents as the engine can take are in flight at once
        (a server's ``concurrency`` slots, an in-process batch), where :meth:`document`
        would keep the engine to one document's pages. Each document's pages are sent in
        their order; ``on_page`` gets (pages done, pages in all, result); the pages prepared
        ahead are bounded across documents (:func:`~workbench.pipeline.feed.prepare_plans`)."""
        items = [(p.document, p.name, p.todo) for p in plans if p.todo]
        total = sum(len(pages) for _, _, pages in items)
        if not total:
            return iter(())
        images = prepare_plans(
            items, self.spec, self.dpi or None, ahead=feed_ahead(self.engine), unreadable=unreadable
        )
        return self._written(images, total, on_page, cancelled, on_write_error)

    def finish(self, *, interrupted: bool = False) -> RunStatus:
        """Write ``document.md`` files and the final status (the one rule); returns it."""
        failed = sum(1 for e in self.writer.info.pages if e.status is PageStatus.ERROR)
        missing = self.outcome.total - self.outcome.processed
        status = final_status(
            interrupted=interrupted,
            missing=max(missing, 0),
            failed_pages=failed,
            failed_inputs=self.failed_inputs,
        )
        self.writer.finish(status)
        self.outcome.status = status
        return status


def feed_ahead(engine: Engine) -> int:
    """Pages prepared ahead of ``engine`` across documents: a whole chunk for a chunked engine
    (:func:`~workbench.pipeline.process.prefetch`: the next batch is ready when the GPU ends
    one, whichever documents it holds); twice the render workers for a streaming engine, whose
    slots in flight are the buffer (each page is pulled the moment a slot frees)."""
    return prefetch(engine) or 2 * default_workers()


def run_documents(
    job: RunJob,
    plans: Sequence[DocumentPlan],
    *,
    on_page: OnPage | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> RunOutcome:
    """Process every plan's pages into the job's run (one stream across documents:
    :meth:`RunJob.stream`) and finish it; ``on_page`` gets (pages done, pages to do in all,
    result). Any exception marks the run cancelled first; a full disk is raised as one
    :class:`DiskFull` naming the room the pages left need (about a page's bytes each)."""
    total = sum(len(p.todo) for p in plans)
    done = 0

    def progress(_i: int, _n: int, result: PageResult) -> None:
        nonlocal done
        done += 1
        if on_page is not None:
            on_page(done, total, result)

    try:
        for _ in job.stream(plans, on_page=progress, cancelled=cancelled):
            pass
    except DiskFull as exc:  # said once, with the room the pages left need
        with contextlib.suppress(DiskFull):
            job.finish(interrupted=True)
        left = max(job.outcome.total - job.outcome.processed, 1)
        raise DiskFull(exc.folder, exc.free, exc.needed * left, left) from exc
    except BaseException:
        job.finish(interrupted=True)
        raise
    job.finish(interrupted=bool(cancelled is not None and cancelled()))
    return job.outcome
