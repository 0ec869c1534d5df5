"""Pages of many documents prepared for a model as ONE stream, a bounded number ahead.

Why: an engine keeps ``concurrency`` pages in flight (a server) or batches what it is given
(in-process vLLM). Fed one document at a time, it never has more pages in flight than one
document holds: an archive of one-page invoices ran one request at a time on a server that
could take 64 (issue 21). :func:`prepare_plans` chains the documents so the engine pulls the
next document's pages as soon as it has a free slot.

Contract
--------
* ``items`` are ``(document, name in the run, page numbers)``; pages come out document by
  document, in the order given within each, each a prepared
  :class:`~workbench.schema.PageImage` exactly as :func:`~workbench.pipeline.prepare.
  prepare_pages` makes it (same pixels, same PNG bytes), with ``document`` set to the name.
* At most ``ahead`` pages are rendered or rendering and not yet consumed, *across documents*:
  the next documents' pages are rendered while this one's are still in the engine, and
  memory stays flat however many documents there are. A document's bytes are handed to the
  workers (a temporary file) when its first page is submitted and removed once its last page
  is consumed, so at most ``ahead`` documents have such a file at once.
* Rendering runs in the shared worker pool of :mod:`workbench.pipeline.prepare` (same start
  method, same fallback: a broken pool renders the rest in this process); ``workers=0``
  renders here. A page that cannot be rendered raises the same
  :class:`~workbench.errors.DocumentError` in the consumer, at that page's turn; with
  ``unreadable`` given, what it returns for (document, page, error) is yielded in the page's
  place instead and the stream goes on (one bad page fails that page only).
* An item may be a :class:`~workbench.documents.DocumentSource` (the CLI's inputs): it is
  opened (its file read) when its first page is submitted and closed once its last page is
  consumed, so only the documents being prepared are held, not every input of the run. One
  that cannot be opened now (gone, changed) fails each of its pages (``unreadable``).
* Stopped early (cancel, an error), the pages not consumed are cancelled and every temporary
  file is removed (and every document opened here closed).
"""

from __future__ import annotations

import dataclasses
import os
import tempfile
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

from workbench.documents import Document, DocumentSource
from workbench.errors import DocumentError
from workbench.models.registry import ModelSpec
from workbench.pipeline.prepare import (
    Refused,
    RenderJob,
    default_workers,
    drop_pool,
    render,
    render_dpi,
    shm_dir,
    unreadable,
    work,
    worker_pool,
)
from workbench.schema import PageImage

#: (document or its source, its name in the run, the pages to prepare)
Item = tuple[Document | DocumentSource, str, Sequence[int]]
#: The page yielded in place of one that cannot be rendered: (document name, page, error)
Unreadable = Callable[[str, int, Exception], PageImage]


@dataclass
class _Open:
    """A document whose pages are being prepared: its bytes in a file the workers read."""

    doc: Document
    name: str
    path: str
    dpi: float
    left: int  # pages submitted or still to submit, not yet consumed
    owned: bool = False  # opened here from a DocumentSource: closed here too


class _Gone(Document):
    """A source that could not be opened at its turn: each page fails with ``why``."""

    def __init__(self, source: DocumentSource, why: DocumentError) -> None:
        super().__init__(source.name, b"", source.kind, source.page_count, source.settings)
        self.why = why

    def page(self, *_args: object, **_kw: object) -> PageImage:
        raise self.why


def _open(item: Document | DocumentSource) -> tuple[Document, bool]:
    """The document of ``item`` and whether it was opened here (then: closed here)."""
    if isinstance(item, Document):
        return item, False
    try:
        return item.open(), True
    except DocumentError as exc:
        return _Gone(item, exc), True


def _named(page: PageImage, name: str) -> PageImage:
    return page if page.document == name else dataclasses.replace(page, document=name)


def prepare_pages(
    doc: Document,
    indices: Sequence[int] | None,
    spec: ModelSpec,
    dpi: float | None = None,
    *,
    ahead: int | None = None,
    workers: int | None = None,
    keep_going: bool = False,
) -> Iterator[PageImage]:
    """Pages ``indices`` of ``doc`` (default: all) prepared for ``spec``: the stream of
    :func:`prepare_plans` for this one document (see :mod:`workbench.pipeline.prepare`).

    ``dpi`` defaults to the spec's rule (:func:`render_dpi`); ``ahead`` (default twice the
    workers) bounds the pages rendered and not yet consumed; ``keep_going``: a page that
    cannot be rendered is yielded as an :class:`~workbench.pipeline.prepare.UnreadablePage`
    instead of raising."""
    pages = list(range(1, doc.page_count + 1) if indices is None else indices)
    return prepare_plans(
        [(doc, doc.name, pages)], spec, dpi, ahead=ahead, workers=workers,
        unreadable=unreadable if keep_going else None,
    )  # fmt: skip


def prepare_plans(
    items: Sequence[Item],
    spec: ModelSpec,
    dpi: float | None = None,
    *,
    ahead: int | None = None,
    workers: int | None = None,
    unreadable: Unreadable | None = None,
) -> Iterator[PageImage]:
    """The pages of every item, prepared for ``spec``, as one bounded stream (see the
    contract). ``ahead`` defaults to twice the workers, as for one document."""
    todo = [(doc, name, list(pages)) for doc, name, pages in items if pages]
    workers = default_workers() if workers is None else workers
    if workers <= 0:
        text = spec.parser == "native"
        for item, name, pages in todo:
            doc, owned = _open(item)
            try:
                resolution = float(dpi or render_dpi(spec, doc.settings.dpi))
                for i in pages:
                    page = _render_here(doc, i, resolution, spec, text, unreadable)
                    yield _named(page, name)
            finally:
                if owned:
                    doc.close()
        return
    yield from _pooled(todo, spec, dpi, workers, max(1, ahead or 2 * workers), unreadable)


def _render_here(
    doc: Document,
    index: int,
    dpi: float,
    spec: ModelSpec,
    text: bool,
    unreadable: Unreadable | None,
) -> PageImage:
    try:
        return render(doc, index, dpi, spec.sizing, text)
    except Exception as exc:
        if unreadable is None:
            raise
        return unreadable(doc.name, index, exc)


def _jobs(
    todo: list[tuple[Document | DocumentSource, str, list[int]]],
    spec: ModelSpec,
    dpi: float | None,
    opened: list[_Open],
) -> Generator[tuple[_Open, RenderJob], None, None]:
    """Each page to render, with its document's entry (added to ``opened`` at its first page:
    its bytes written to a file the workers read only then)."""
    text = spec.parser == "native"
    for item, name, pages in todo:
        doc, owned = _open(item)  # a source is read only now, at its turn
        fd, path = tempfile.mkstemp(prefix="workbench-doc-", dir=shm_dir())
        with os.fdopen(fd, "wb") as handle:
            handle.write(doc.data)
        entry = _Open(doc, name, path, float(dpi or render_dpi(spec, doc.settings.dpi)), 0)
        entry.left, entry.owned = len(pages), owned
        opened.append(entry)
        key = f"{doc.sha256}:{doc.settings.model_dump_json()}"
        pdf = doc.kind == "pdf"
        for i in pages:
            job = RenderJob(key, path, doc.name, doc.settings, i, entry.dpi, spec.sizing, text, pdf)
            yield entry, job


def _consumed(entry: _Open, opened: list[_Open]) -> None:
    """One of ``entry``'s pages was consumed; after its last, its file goes (and a document
    opened here is closed now, not at the end of the run)."""
    entry.left -= 1
    if entry.left == 0:
        Path(entry.path).unlink(missing_ok=True)
        if entry.owned:
            entry.doc.close()
            opened.remove(entry)


def _pooled(
    todo: list[tuple[Document | DocumentSource, str, list[int]]],
    spec: ModelSpec,
    dpi: float | None,
    workers: int,
    ahead: int,
    unreadable: Unreadable | None,
) -> Iterator[PageImage]:
    text = spec.parser == "native"
    opened: list[_Open] = []

    def consumed(entry: _Open) -> None:
        _consumed(entry, opened)

    source = _jobs(todo, spec, dpi, opened)
    pool = worker_pool(workers)
    queue: deque[tuple[_Open, int, Future[PageImage | Refused]]] = deque()
    broken = False

    def submit() -> bool:
        nxt = next(source, None)
        if nxt is None:
            return False
        entry, job = nxt
        if isinstance(entry.doc, _Gone):  # its file went or changed: each page says so
            future: Future[PageImage | Refused] = Future()
            future.set_result(Refused(entry.doc.name, entry.doc.why.reason))
        else:
            future = pool.submit(work, job)
        queue.append((entry, job.index, future))
        return True

    try:
        while len(queue) < ahead and submit():
            pass
        while queue:
            entry, index, future = queue[0]
            try:
                item: PageImage | Refused = future.result()
            except BrokenProcessPool:
                broken = True
                break
            except Exception as exc:  # raised in the worker: this page's problem only
                if unreadable is None:
                    raise
                item = unreadable(entry.doc.name, index, exc)
            queue.popleft()
            submit()
            consumed(entry)
            if isinstance(item, Refused):
                refused = DocumentError(item.name, item.reason)
                if unreadable is None:
                    raise refused
                item = unreadable(entry.doc.name, index, refused)
            yield _named(item, entry.name)
        if broken:
            drop_pool(pool)
            rest = [(e, i) for e, i, _ in queue] + [(e, j.index) for e, j in source]
            queue.clear()
            for entry, i in rest:
                page = _render_here(entry.doc, i, entry.dpi, spec, text, unreadable)
                consumed(entry)
                yield _named(page, entry.name)
    finally:
        for _, _, future in queue:  # the consumer stopped early (cancel) or a page failed
            future.cancel()
        source.close()
        for entry in opened:
            Path(entry.path).unlink(missing_ok=True)
            if entry.owned:
                entry.doc.close()
