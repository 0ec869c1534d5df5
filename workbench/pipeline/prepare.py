"""Pages prepared for a model: rendered once, encoded once, in worker processes (the
worker side; the stream that feeds an engine from it is :mod:`workbench.pipeline.feed`).

Contract
--------
* :func:`~workbench.pipeline.feed.prepare_pages` (one document) and
  :func:`~workbench.pipeline.feed.prepare_plans` (many, as one stream) yield pages, in the
  order asked, each as a :class:`~workbench.schema.PageImage` rendered by :func:`render` (in
  a worker: :func:`work` over a :class:`RenderJob`) whose ``image`` is already at the model's
  size (the spec's :class:`~workbench.models.registry.PageSizing` applied by
  :func:`workbench.models.fit_size`) and whose
  ``png`` holds that image encoded once, losslessly (:mod:`workbench.engines.png`). A PDF page
  is drawn by PDFium directly at that size (:meth:`Document.draw` with ``fit``), straight into
  the PNG's scanlines: no page is rendered large and resized, none is copied to be encoded.
  ``png`` is what the engine sends and what the run writes as ``page-NNNN.png``; ``image``
  is opened from it lazily (decoded only if something reads it); for the CPU engine (which
  reads every pixel) it is the drawn pixels themselves, in the PNG's mode (:func:`decoded`).
* Rendering and encoding run in worker processes (PDFium is not thread-safe, and the work
  must not hold the GIL of the process that keeps requests in flight), at most ``ahead``
  pages ahead of the consumer: a thousand-page PDF is never held whole, memory stays flat as
  documents grow. The pool is one per process (``workers``: the cores this process may use),
  started on first use (``fork`` from a single-threaded process such as the CLI, else
  ``forkserver``: never a fork of a threaded process) and shared by every caller and thread;
  each worker keeps the last few documents open.
* A page that cannot be rendered raises the same :class:`~workbench.errors.DocumentError`
  in the consumer as :meth:`Document.page` would; with ``keep_going=True`` it is yielded in
  its place as an :class:`UnreadablePage` (its reason, no pixels) and the pages after it are
  prepared as usual: one bad TIFF frame or PDF page fails that page only. If the pool
  breaks (a worker killed), the remaining pages are rendered in this process instead, and
  the next call starts a new pool.
* ``workers=0`` renders in this process, one page at a time (same pages, same bytes).
* The PDF text layer (:mod:`workbench.documents.textlayer`) is read only for specs whose engine
  does its own layout (``parser == "native"``: the CPU engine); VLMs get pixels only.
* For that engine a PDF page smaller than a letter page (a pocket book's scan, a receipt, a
  cropped line) is drawn with up to as many pixels as a letter page gets at the DPI asked,
  at most twice that DPI (:func:`small_page_fit`; the spec's pixel cap still holds): its
  scan's own resolution is not thrown away, and its small type reaches OCR at a readable
  size. Image files are never upscaled.
"""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import io
import math
import mmap
import multiprocessing
import os
import threading
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from workbench import models
from workbench.documents import Document, open_document
from workbench.documents.textlayer import PDFIUM_LOCK
from workbench.engines.png import encode_png, encode_rows, row_pixels
from workbench.engines.png import rows as png_rows
from workbench.engines.pool import exit_with, owner
from workbench.errors import DocumentError
from workbench.models.registry import ModelSpec, PageSizing
from workbench.models.sizing import LETTER
from workbench.schema import PageImage
from workbench.settings import Settings

OPEN_PER_WORKER = 4  # documents a worker keeps open (a batch moves from one to the next)
PAGES_PER_OPEN = 32  # pages a worker renders from one opening of a document (memory bound)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


#: how much larger than the DPI asked a small PDF page may be drawn for the CPU engine
SMALL_PAGE_GROWTH = 2.0


def sized(image: Image.Image, sizing: PageSizing, *, is_image: bool = False) -> Image.Image:
    """An image (not a PDF page: those are drawn at the size) resized by the rule."""
    size = models.fit_size(*image.size, sizing, is_image=is_image)
    return image if size == image.size else image.resize(size, Image.Resampling.LANCZOS)


def small_page_fit(width: int, height: int, *, sizing: PageSizing, floor: int) -> tuple[int, int]:
    """:func:`workbench.models.fit_size` for a PDF page the CPU engine reads: a page drawn
    into fewer than ``floor`` pixels (a letter page's at the DPI asked) is drawn larger, up
    to ``floor`` and at most :data:`SMALL_PAGE_GROWTH` times the DPI (Tesseract reads type
    best at about 300 DPI; much larger, its line finding merges lines)."""
    grow = 1.0
    if width * height < floor:
        grow = min(math.sqrt(floor / (width * height)), SMALL_PAGE_GROWTH)
    return models.fit_size(round(width * grow), round(height * grow), sizing, is_image=False)


def render_dpi(spec: ModelSpec, default: float) -> float:
    return float(spec.sizing.dpi or default)


def prepare_page(page: PageImage, sizing: PageSizing) -> PageImage:
    """An already rendered page sized by the rule and encoded (for callers that hold images).
    A page that carries ``png`` is prepared already and is returned as it is."""
    if page.png is not None:
        return page
    image = sized(page.image, sizing, is_image=page.dpi is None)
    return dataclasses.replace(page, image=image, png=encode_png(image))


# ---------------------------------------------------------------------- worker side
@dataclass(frozen=True)
class RenderJob:
    key: str  # the document's identity (content hash and settings)
    path: str  # its bytes, in a file the workers read once
    name: str
    settings: Settings
    index: int
    dpi: float
    sizing: PageSizing
    text: bool
    pdf: bool  # opened from a mapping of the file (see _mapped_pdf)


_NO_PIXELS = Image.new("RGB", (1, 1), "white")


@dataclass(frozen=True)
class UnreadablePage(PageImage):
    """A page of the document that could not be rendered, in its place in the sequence: the
    pipeline turns it into an ``error`` result with ``reason`` and sends nothing to the engine.
    ``image`` is a 1×1 placeholder, never shown or written."""

    reason: str = ""


def unreadable(name: str, index: int, exc: BaseException) -> UnreadablePage:
    """The :class:`UnreadablePage` for a failure to render page ``index`` of ``name``."""
    if isinstance(exc, DocumentError):
        reason = exc.reason
    else:  # not foreseen (a PDFium crash, memory): still this page's problem only
        reason = f"page {index} cannot be rendered ({type(exc).__name__}: {exc})"
    return UnreadablePage(name, index, _NO_PIXELS, reason=reason)


@dataclass(frozen=True)
class Refused:
    """A DocumentError from a worker (its two-argument constructor does not unpickle)."""

    name: str
    reason: str


_OPEN: OrderedDict[str, Document] = OrderedDict()
_USES: dict[str, int] = {}  # pages rendered from each open document


def _mapped_pdf(job: RenderJob) -> Document:
    """The PDF mapped from its file, not read into this worker: PDFium reads the mapping, pages
    of the file come in as it touches them and are shared with the page cache."""
    import pypdfium2 as pdfium

    with open(job.path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)  # writable view, no copy
    buffer = (ctypes.c_char * len(mapped)).from_buffer(mapped)  # PDFium holds it while open
    with PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(buffer)
        count = len(pdf)
    return Document(job.name, b"", "pdf", count, job.settings, _pdf=pdf)


def _document(job: RenderJob) -> Document:
    doc = _OPEN.get(job.key)
    _USES[job.key] = _USES.get(job.key, 0) + 1
    if doc is not None and _USES[job.key] > PAGES_PER_OPEN:
        # PDFium keeps every object it parsed (fonts, images) while a document is open: a
        # worker that rendered hundreds of pages would hold them all. Open it afresh.
        _OPEN.pop(job.key).close()
        doc, _USES[job.key] = None, 1
    if doc is None:
        if job.pdf and job.settings.pdf_backend != "poppler":  # poppler reads Document.data
            doc = _mapped_pdf(job)
        else:
            doc = open_document(job.name, Path(job.path).read_bytes(), job.settings)
        _OPEN[job.key] = doc
        while len(_OPEN) > OPEN_PER_WORKER:
            key, evicted = _OPEN.popitem(last=False)
            _USES.pop(key, None)
            evicted.close()
    _OPEN.move_to_end(job.key)
    return doc


def render(doc: Document, index: int, dpi: float, sizing: PageSizing, text: bool) -> PageImage:
    if text and doc.kind == "pdf":  # the CPU engine's PDF page
        letter = round(LETTER[0] * dpi) * round(LETTER[1] * dpi)
        fit = partial(small_page_fit, sizing=sizing, floor=letter)
    else:
        fit = partial(models.fit_size, sizing=sizing, is_image=doc.kind != "pdf")
    if not doc.draws_with_pdfium:
        page = doc.page(index, dpi, fit=fit, text=text)
        return dataclasses.replace(page, png=encode_png(page.image))
    # PDFium draws into PNG scanlines and they are deflated where they lie (encode_rows):
    # drawing, checking for a grey page and encoding never copy the page between them.
    scanlines: list[np.ndarray] = []

    def canvas(width: int, height: int) -> np.ndarray:
        scanlines.append(png_rows(width, height))
        return row_pixels(scanlines[0])

    drawn = doc.draw(index, dpi, fit=fit, text=text, canvas=canvas)
    png = encode_rows(scanlines[0])
    # the CPU engine reads every pixel: it gets them, not a PNG to inflate again; a model gets
    # the PNG, and the image is decoded from it only if something reads the pixels
    image = decoded(scanlines[0], png) if text else Image.open(io.BytesIO(png))
    return PageImage(doc.name, index, image, drawn.dpi, drawn.note, drawn.layer, png=png)


def decoded(raw: np.ndarray, png: bytes) -> Image.Image:
    """The image ``png`` decodes to, taken from the scanlines ``raw`` it was encoded from
    (:func:`encode_rows`) instead: the same mode (``L`` for a page written grey, else
    ``RGB``) and the same pixels, without inflating the PNG again (≈10-20 ms a page)."""
    pixels = row_pixels(raw)
    if png[_COLOUR_TYPE] == 0:  # grey: the PNG holds one channel, all three are equal
        return Image.fromarray(np.ascontiguousarray(pixels[:, :, 0]), "L")
    return Image.fromarray(np.ascontiguousarray(pixels), "RGB")


#: the IHDR colour type byte: signature 8, length 4, type 4, width 4, height 4, bit depth 1
_COLOUR_TYPE = 25


def work(job: RenderJob) -> PageImage | Refused:
    """In a worker: the page rendered at the model's size and encoded (it travels as PNG)."""
    try:
        return render(_document(job), job.index, job.dpi, job.sizing, job.text)
    except DocumentError as exc:
        return Refused(exc.name, exc.reason)


# ---------------------------------------------------------------------- the pool
_POOLS: dict[int, ProcessPoolExecutor] = {}  # by size: a caller asking for N never stops another's
_POOL_LOCK = threading.Lock()


def worker_pool(workers: int) -> ProcessPoolExecutor:
    with _POOL_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = ProcessPoolExecutor(
                workers, mp_context=_context(), initializer=exit_with, initargs=owner()
            )
        return pool


def _context() -> Any:
    """``fork`` while this process has one thread (the CLI: workers start in milliseconds, all
    at once, before the pool's own thread); else ``forkserver`` (Streamlit's threads may hold
    locks a fork would copy), whose workers import this module only, never ``__main__``."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" not in methods:
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    return context


def drop_pool(broken: ProcessPoolExecutor) -> None:
    with _POOL_LOCK:
        for size, pool in list(_POOLS.items()):
            if pool is broken:
                del _POOLS[size]
    broken.shutdown(wait=False, cancel_futures=True)


@atexit.register
def shutdown() -> None:
    """Stop the worker processes (also at exit)."""
    with _POOL_LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
    for pool in pools:
        pool.shutdown(wait=True, cancel_futures=True)


def shm_dir() -> str | None:
    """Memory-backed temporary files where there are (the document is read back at once)."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
