"""One run folder on disk: its layout, an atomic page-by-page writer and a tolerant reader.

:mod:`workbench.runs.store` keeps many of these under one root; the CLI's ``--out DIR`` is one too.
Layout::

    manifest.json                 RunManifest: RunInfo + one PageEntry per finished page
    <doc stem>/                   one folder per document, named by its stem ("-2" on clashes)
        document.json             DocumentInfo: name in the run, sha256, kind, page count
        page-0001.png             the image sent to the engine (page_px space)
        page-0001.md              the page Markdown
        page-0001.raw.txt         the engine's raw output (only when non-empty)
        page-0001-r3.png          crop of figure region r3 (the Markdown links it)
        page-0001.json            PageResult, ``model_dump(mode="json")``, written LAST
        page-0001.corrected.json  Corrections drawn by hand (never overwrites the .json)
        document.md               every finished page's Markdown joined, refreshed per document

Contracts
---------
* Every file a reader may already look at is written atomically (a temporary file in the same
  folder, then ``os.replace``), with the user's umask (see :mod:`workbench.runs.files`): the
  manifest, ``document.md``, a page's ``.json``, and every file of a page written again. A new
  page's image, crops, Markdown and raw output are written in place (:func:`plain_write`): no
  reader looks at them before the page's ``.json``, written after them.
* A document is known by its content (sha256), never by its name alone:
  :meth:`RunWriter.add_document` gives a document already in the run (same sha256) its
  existing name and folder, and a *different* document whose name is taken a new name
  (``doc-2.pdf``) and folder (``doc-2``). ``document.json`` keeps the identity beside the pages,
  so a lost manifest does not make a folder match a same-named stranger.
* A page is *finished* iff its ``page-NNNN.json`` exists and parses as a PageResult. Its other
  files are written before it, so a run killed at page 37 keeps pages 1-36 whole, and a
  resumed writer (:meth:`RunWriter.open`) skips exactly those pages.
* Page files are the truth; ``manifest.json``'s page entries are a summary that may lag
  them (its documents and folders never do: it is saved as soon as a folder is made). It is
  rewritten (atomically) at most every :attr:`RunWriter.MANIFEST_EVERY` s while pages arrive
  (rewriting it after every page cost O(pages) each, O(pages²) per run), and always on
  :meth:`RunWriter.add_document`, :meth:`~RunWriter.finish_document`, :meth:`~RunWriter.finish`,
  :meth:`~RunWriter.close` and at interpreter exit. A writer killed in between leaves a
  manifest missing its last pages (never listing a page that is not on disk): on resume
  :meth:`RunWriter.open` rebuilds the entries from the page JSONs; a lost or corrupt manifest
  leaves the page files standing and :meth:`RunStore.list` shows the run as ``corrupt``.
* Regions in every file are in ``page_px`` of the ``page-NNNN.png`` beside them.
"""

from __future__ import annotations

import atexit
import bisect
import contextlib
import threading
import time
import weakref
from datetime import UTC, datetime
from pathlib import Path

from PIL import Image

from workbench.errors import DiskFull, StoreError
from workbench.runs import lock
from workbench.runs.files import TMP_SUFFIX, atomic_write, free_bytes, write_page_files
from workbench.runs.layout import (
    DOCUMENT_JSON,
    DOCUMENT_MD,
    MANIFEST,
    Corrections,
    PageEntry,
    RunManifest,
    file_stamp,
    join_markdown,
    merge_manifest,
    page_numbers,
    page_stem,
    read_identity,
    read_manifest,
    read_page,
    save_corrections,
    scan_documents,
    scan_folders,
    stem_folder,
    unique_name,
)
from workbench.runs.reader import RunReader, StoredPage
from workbench.schema import DocumentInfo, PageResult, PageStatus, Region, RunInfo, RunStatus

__all__ = [
    "DOCUMENT_JSON",
    "DOCUMENT_MD",
    "MANIFEST",
    "Corrections",
    "PageEntry",
    "RunManifest",
    "RunReader",
    "RunWriter",
    "StoredPage",
    "atomic_write",
    "page_stem",
    "save_corrections",
]


#: Writers with manifest changes not on disk yet, saved at interpreter exit.
_UNSAVED: weakref.WeakSet[RunWriter] = weakref.WeakSet()


@atexit.register
def _save_unsaved() -> None:
    for writer in list(_UNSAVED):
        with contextlib.suppress(OSError, StoreError):  # the folder is gone, the disk full
            writer.close()


class RunWriter:
    """Write one run folder page by page; thread-safe (pages may finish out of order).
    :meth:`close` (or ``with``) saves a manifest still lagging the pages."""

    #: Seconds between two manifest saves while pages are written (see the module contract).
    MANIFEST_EVERY = 0.5

    def __init__(
        self, run_dir: Path, manifest: RunManifest, guard: lock.Guard | None = None
    ) -> None:
        self.path = run_dir
        self.info = manifest
        self._guard = guard or lock.Guard(run_dir)
        self._guard.take()  # one writing process per folder (workbench.runs.lock)
        weakref.finalize(self, self._guard.drop)
        self._lock = threading.Lock()
        self._keys = {(e.document, e.page) for e in manifest.pages}
        self._saved_at = float("-inf")  # time.monotonic() of the last manifest save
        self._seen: tuple[int, int, int] | None = None  # the manifest as this writer left it
        self._page_bytes = self._pages_written = 0  # for the room a page needs (DiskFull)
        for stale in run_dir.rglob(f".*{TMP_SUFFIX}"):  # left by a killed writer
            stale.unlink(missing_ok=True)

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *_exc: object) -> None:
        try:
            self.close()
        finally:
            self._guard.drop()

    def close(self) -> None:
        """Save the manifest if pages were written since it was last saved."""
        with self._lock:
            if self in _UNSAVED:
                self._save_manifest()

    @classmethod
    def create(cls, run_dir: Path | str, info: RunInfo) -> RunWriter:
        """Start a new run in ``run_dir`` (created; must not hold a run already)."""
        path = Path(run_dir)
        path.mkdir(parents=True, exist_ok=True)
        guard = lock.Guard(path)
        guard.take()  # before looking: two creators race for one folder
        if (path / MANIFEST).exists():
            guard.drop()
            raise StoreError(f"{path}: a run is already there; open it to resume.")
        return cls._new(path, info, guard)

    @classmethod
    def _new(cls, path: Path, info: RunInfo, guard: lock.Guard) -> RunWriter:
        try:
            manifest = RunManifest.model_validate(info.model_dump())
            manifest.documents = []
            writer = cls(path, manifest, guard)
            writer._save_manifest()
            for doc in info.documents:
                writer.add_document(doc)
        except BaseException:
            guard.drop()
            raise
        return writer

    @classmethod
    def open(cls, run_dir: Path | str, info: RunInfo | None = None) -> RunWriter:
        """Resume the run in ``run_dir``, or create it from ``info`` when there is none.

        A corrupt manifest is rebuilt from ``info`` and the finished page files. Another
        process writing ``run_dir`` gets a StoreError (:mod:`workbench.runs.lock`)."""
        path = Path(run_dir)
        if info is None and not (path / MANIFEST).exists():
            raise StoreError(f"{path}: no run to resume.")
        path.mkdir(parents=True, exist_ok=True)
        guard = lock.Guard(path)
        guard.take()  # before reading: another process may be writing it
        if not (path / MANIFEST).exists() and info is not None:
            return cls._new(path, info, guard)
        try:
            manifest = read_manifest(path)
        except StoreError:
            if info is None:
                guard.drop()
                raise
            manifest = RunManifest.model_validate(info.model_dump())
            manifest.documents = scan_documents(path)  # identities proven by document.json
            manifest.folders = scan_folders(path)
        writer = cls(path, manifest, guard)
        if info is not None:
            for doc in info.documents:
                writer.add_document(doc)
        with writer._lock:
            writer.info.status = RunStatus.RUNNING
            writer.info.finished = None
            writer._rebuild_entries()
            writer._save_manifest()
        return writer

    def add_document(self, doc: DocumentInfo) -> str:
        """Register ``doc``; returns its name in this run (see the module's identity rule)."""
        self._guard.take()  # again, after finish()
        with self._lock:
            same = (d for d in self.info.documents if doc.sha256 and d.sha256 == doc.sha256)
            known = next(same, None)  # an unknown sha256 ("") matches nothing
            if known is None:
                taken = {d.name for d in self.info.documents} | set(self.info.folders)
                known = doc.model_copy(update={"name": unique_name(doc.name, taken)})
                self.info.documents.append(known)
            folder = self._folder(known.name)
            if read_identity(folder) != known:
                atomic_write(folder / DOCUMENT_JSON, known.model_dump_json(indent=1))
            self._save_manifest()
            return known.name

    def folder_name(self, doc: str) -> str:
        """The folder (inside the run) that holds document ``doc``."""
        with self._lock:
            return self._folder(doc).name

    def _folder(self, doc: str) -> Path:
        folder = self.info.folders.get(doc)
        if folder is None:
            taken = set(self.info.folders.values()) | {p.name for p in self.path.iterdir()}
            folder = self.info.folders[doc] = stem_folder(doc, taken)
            (self.path / folder).mkdir(exist_ok=True)
            self._save_manifest()  # readers find a document's folder through the manifest
        path = self.path / folder
        path.mkdir(exist_ok=True)
        return path

    def done_pages(self, doc: str) -> set[int]:
        """Pages of ``doc`` already finished (their .json exists and parses)."""
        folder = self.info.folders.get(doc)
        if folder is None:
            return set()
        path = self.path / folder
        return {n for n in page_numbers(path) if read_page(path / f"{page_stem(n)}.json")}

    def page_status(self, doc: str, page: int) -> PageStatus | None:
        """The status of a finished page of ``doc``; None when it is not finished."""
        folder = self.info.folders.get(doc)
        if folder is None:
            return None
        result = read_page(self.path / folder / f"{page_stem(page)}.json")
        return None if result is None else result.status

    def finished_pages(self, doc: str) -> set[int]:
        """Pages of ``doc`` finished without error: a resumed job leaves exactly these out."""
        folder = self.info.folders.get(doc)
        if folder is None:
            return set()
        path = self.path / folder
        found = (read_page(path / f"{page_stem(n)}.json") for n in page_numbers(path))
        return {p.page for p in found if p is not None and p.status is not PageStatus.ERROR}

    def write_page(
        self,
        result: PageResult,
        image: Image.Image | None,
        *,
        overwrite: bool = False,
        png: bytes | None = None,  # ``image`` as the engine was sent it: written as is
    ) -> Path:
        """Write one page's files (image, figure crops, Markdown, raw output), its .json last,
        then the manifest when it is due (module contract). Returns the .json path."""
        self._guard.take()  # again, after finish()
        with self._lock:
            base = self._folder(result.document) / page_stem(result.page)
        json_path = base.with_suffix(".json")
        if not overwrite and read_page(json_path) is not None:
            raise StoreError(f"{result.document} page {result.page} is already finished.")
        try:
            size = write_page_files(base, result, image, png, overwrite=overwrite)
        except DiskFull as exc:
            if not overwrite:  # its files are not a page yet: room for the manifest
                for part in (".png", ".md", ".raw.txt"):
                    base.with_name(base.name + part).unlink(missing_ok=True)
            per_page = self._page_bytes // self._pages_written if self._pages_written else 0
            needed = max(per_page, exc.needed)
            raise DiskFull(self.path, free_bytes(self.path), needed) from exc
        with self._lock:
            self._page_bytes += size
            self._pages_written += 1
            self._record(result)
            if time.monotonic() - self._saved_at >= self.MANIFEST_EVERY:
                self._save_manifest()
            else:
                _UNSAVED.add(self)
        return json_path

    def finish_document(self, doc: str) -> Path:
        """Write ``document.md`` from the document's finished pages, and the manifest."""
        folder = self._folder(doc)
        path = folder / DOCUMENT_MD
        pages = [
            p for n in page_numbers(folder) if (p := read_page(folder / f"{page_stem(n)}.json"))
        ]
        atomic_write(path, join_markdown(pages))
        self.close()
        return path

    def mark_running(self) -> None:
        """The run takes pages again after it was finished (the Viewer going on in it)."""
        self._guard.take()
        with self._lock:
            if self.info.status is not RunStatus.RUNNING:
                self.info.status = RunStatus.RUNNING
                self.info.finished = None
                self._save_manifest()

    def recorded_pages(self, doc: str) -> set[int]:
        """Pages of ``doc`` with a page file in this run, whatever their status."""
        with self._lock:
            return {e.page for e in self.info.pages if e.document == doc}

    def finish(self, status: RunStatus = RunStatus.DONE) -> None:
        """``document.md`` of every document, then the final status in the manifest. A full
        disk (DiskFull) is raised after the manifest was tried: its status matters more than
        the joined Markdown, which the next finish writes again."""
        full: DiskFull | None = None
        for doc in list(self.info.folders):
            try:
                self.finish_document(doc)
            except DiskFull as exc:
                full = full or exc
        try:
            with self._lock:
                self.info.status = status
                self.info.finished = datetime.now(UTC)
                self._save_manifest()
        finally:
            self._guard.drop()  # the folder is free for another process now
        if full is not None:
            raise full

    def save_corrections(self, doc: str, page: int, regions: list[Region]) -> Path:
        return save_corrections(self.path, self._folder(doc).name, doc, page, regions)

    def _record(self, result: PageResult | PageEntry) -> None:
        entry = result if isinstance(result, PageEntry) else PageEntry(
            document=result.document,
            page=result.page,
            status=result.status,
            seconds=result.seconds,
            tokens=result.tokens,
            retries=result.retries,
            error=result.error,
        )  # fmt: skip
        key = (entry.document, entry.page)
        if key in self._keys:  # a failed page done again: rare, so a copy is fine
            self.info.pages = [e for e in self.info.pages if (e.document, e.page) != key]
        self._keys.add(key)
        bisect.insort(self.info.pages, entry, key=lambda e: (e.document, e.page))

    def _rebuild_entries(self) -> None:
        """Make the page entries agree with the finished page files (after a crash)."""
        self.info.pages = []
        self._keys.clear()
        for doc, folder in self.info.folders.items():
            for n in page_numbers(self.path / folder):
                page = read_page(self.path / folder / f"{page_stem(n)}.json")
                if page is not None and page.document == doc:
                    self._record(page)

    def _save_manifest(self) -> None:
        """Replace the manifest with this writer's, merged with what another writer of the
        folder (in this process: :func:`workbench.runs.lock.merging`) saved since: no
        document, folder or page entry anyone recorded is lost."""
        target = self.path / MANIFEST
        with lock.merging(self.path):
            if (stamp := file_stamp(target)) is not None and stamp != self._seen:
                with contextlib.suppress(StoreError):  # unreadable: ours replaces it
                    for entry in merge_manifest(self.info, read_manifest(self.path), self.path):
                        self._record(entry)
            self.info.updated = datetime.now(UTC)
            atomic_write(target, self.info.model_dump_json(indent=1))
            self._seen = file_stamp(target)
        self._saved_at = time.monotonic()
        _UNSAVED.discard(self)
