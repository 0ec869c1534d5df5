"""Documents in, page images out.

Accepted: PDF, PNG, JPEG, TIFF (multi-page), WebP, BMP — recognised by their first bytes,
never by the file name. Every failure is a :class:`~workbench.errors.DocumentError` whose
message names the file and says why (empty, corrupt, encrypted, not a document, a
decompression bomb), so one bad file never stops the others.

Rasterization: PDFs through pypdfium2 (default; about twice as fast as poppler and needs no
system package) or pdf2image/poppler (``pdf_backend="poppler"`` where ``pdftoppm`` exists).
A page is rendered at ``dpi`` unless that would exceed ``max_pixels``; then it is rendered
smaller and :attr:`PageImage.scale_note` says so. Pages are rendered one at a time, on
demand, so a thousand-page PDF never sits in memory whole; a multi-frame TIFF likewise decodes
only the frames asked for (the first is decoded at opening, to check the file).

Files on disk are read with :func:`read_input`, which refuses anything but a regular file (a
FIFO, a device, a socket would block or never end) without blocking on it. Names in messages
go through :func:`workbench.errors.display_name`, so one bad file is always one line.

Page numbers are 1-based everywhere; :func:`parse_page_range` reads ``"1,3-5"``.
"""

from __future__ import annotations

import atexit
import hashlib
import io
import math
import os
import shutil
import stat
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from workbench.documents import draw as pdfdraw
from workbench.documents.limits import max_image_pixels, too_large
from workbench.documents.textlayer import PDFIUM_LOCK, extract_text_layer
from workbench.errors import DocumentError, PageRangeError, display_name
from workbench.schema import DocumentInfo, PageImage
from workbench.settings import Settings

Fit = Callable[[int, int], tuple[int, int]]  # the size a page would have -> the size wanted

# PDFium is not thread-safe; Streamlit serves sessions from threads.
_PDFIUM_LOCK = PDFIUM_LOCK  # one lock with workbench.documents.textlayer

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
    (b"BM", "bmp"),
)
_LOOKALIKES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive (an Office document?)"),
    (b"GIF8", "a GIF image (convert it to PNG)"),
    (b"\xd0\xcf\x11\xe0", "an old Office document"),
    (b"<", "an HTML/XML file"),
    (b"{", "a JSON file"),
)


def sniff_kind(name: str, data: bytes) -> str:
    """The document kind from the first bytes: pdf, png, jpeg, tiff, webp or bmp."""
    if not data:
        raise DocumentError(name, "the file is empty")
    head = data[:1024]
    if b"%PDF-" in head:  # PDFium, like Acrobat, tolerates junk before the header
        return "pdf"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    stripped = data.lstrip()[:8]
    for magic, what in _LOOKALIKES:
        if stripped.startswith(magic):
            raise DocumentError(name, f"not a PDF or image: it looks like {what}")
    claimed = PurePath(name).suffix.lower().lstrip(".") or "no extension"
    raise DocumentError(name, f"not a PDF or image (named .{claimed}, but its content is neither)")


def poppler_available() -> bool:
    """Whether the optional poppler backend can run (pdf2image and ``pdftoppm`` present)."""
    try:
        import pdf2image  # noqa: F401
    except ImportError:
        return False
    return shutil.which("pdftoppm") is not None


def parse_page_range(spec: str | None, page_count: int) -> list[int]:
    """'1,3-5' -> [1, 3, 4, 5]; '4-' runs to the last page; empty or None means all pages."""
    if spec is None or not spec.strip():
        return list(range(1, page_count + 1))
    pages: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                lo_s, hi_s = part.split("-", 1)
                lo = int(lo_s) if lo_s else 1
                hi = int(hi_s) if hi_s else page_count
            else:
                lo = hi = int(part)
        except ValueError:
            raise PageRangeError(f"cannot read page range {spec!r} (use e.g. 1,3-5)") from None
        if lo < 1 or hi < lo:
            raise PageRangeError(f"page range {part!r} is empty or starts below 1")
        if lo > page_count:
            raise PageRangeError(f"page {lo} is past the last page ({page_count})")
        pages.extend(range(lo, min(hi, page_count) + 1))
    if not pages:
        raise PageRangeError(f"page range {spec!r} selects no page")
    return list(dict.fromkeys(pages))


def to_rgb(image: Image.Image) -> Image.Image:
    """RGB on white: transparency flattened, palettes, CMYK and 16-bit greys converted."""
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        canvas = Image.new("RGB", rgba.size, "white")
        canvas.paste(rgba, mask=rgba.getchannel("A"))
        return canvas
    if image.mode.startswith("I;16") or image.mode in ("I", "F"):
        return image.point(lambda v: v / 256).convert("L").convert("RGB")
    return image.convert("RGB")


def _shrink(image: Image.Image, max_pixels: int) -> tuple[Image.Image, str | None]:
    w, h = image.size
    if w * h <= max_pixels:
        return image, None
    f = math.sqrt(max_pixels / (w * h))
    size = (max(1, int(w * f)), max(1, int(h * f)))
    note = f"page shrunk from {w}×{h} to {size[0]}×{size[1]} px (pixel cap {max_pixels:,})"
    return image.resize(size, Image.Resampling.LANCZOS), note


@dataclass
class Document:
    """An opened file. Render pages with :meth:`page` or :meth:`pages` (1-based)."""

    name: str
    data: bytes = field(repr=False)
    kind: str
    page_count: int
    settings: Settings = field(default_factory=Settings, repr=False)
    _pdf: Any = field(default=None, repr=False)
    _image: Image.Image | None = field(default=None, repr=False)  # open, frames seeked lazily
    _image_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def stem(self) -> str:
        return PurePath(self.name).stem or "document"

    def info(self) -> DocumentInfo:
        return DocumentInfo(
            name=self.name, sha256=self.sha256, kind=self.kind, pages=self.page_count
        )

    def select(self, spec: str | None = None) -> list[int]:
        """Page numbers for a range spec, capped at ``settings.max_pages``."""
        return parse_page_range(spec, self.page_count)[: self.settings.max_pages]

    def page(
        self, index: int, dpi: float | None = None, *, fit: Fit | None = None, text: bool = True
    ) -> PageImage:
        """Page ``index`` at ``dpi``; ``fit`` maps that size to the size wanted (a model's
        rule), and a PDF page is then rendered once directly at it (PDFium draws at any
        scale), never rendered and resized. ``text=False`` skips the PDF text layer."""
        if not 1 <= index <= self.page_count:
            raise PageRangeError(f"{self.name}: page {index} is outside 1-{self.page_count}")
        if self.kind == "pdf":
            return self._render_pdf(index, dpi or self.settings.dpi, fit, text)
        image, note = _shrink(to_rgb(self._frame(index)), self.settings.max_pixels)
        if fit is not None and (size := fit(*image.size)) != image.size:
            image = image.resize(size, Image.Resampling.LANCZOS)  # an image is the source itself
        return PageImage(self.name, index, image, None, note)

    def _frame(self, index: int) -> Image.Image:
        """Decode frame ``index`` (1-based) only now; a damaged frame is a DocumentError."""
        assert self._image is not None
        with self._image_lock:  # seek() moves the one shared decoder
            try:
                self._image.seek(index - 1)
                w, h = self._image.size
                if w * h > max_image_pixels():  # each TIFF frame has its own size
                    raise DocumentError(self.name, f"page {index} {too_large(w, h)}")
                frame = self._image.copy()
            except (OSError, SyntaxError, ValueError, EOFError) as exc:
                raise DocumentError(self.name, f"page {index} is damaged ({exc})") from None
        return ImageOps.exif_transpose(frame) or frame

    def pages(
        self, indices: list[int] | None = None, dpi: float | None = None
    ) -> Iterator[PageImage]:
        for index in range(1, self.page_count + 1) if indices is None else indices:
            yield self.page(index, dpi)

    @property
    def draws_with_pdfium(self) -> bool:
        """Whether PDF pages are drawn by PDFium (:meth:`draw`): the default backend, and the
        fallback when poppler is asked for and missing."""
        return self.kind == "pdf" and not (
            self.settings.pdf_backend == "poppler" and poppler_available()
        )

    def draw(
        self,
        index: int,
        dpi: float,
        *,
        fit: Fit | None = None,
        text: bool = True,
        canvas: Callable[[int, int], np.ndarray] = pdfdraw.canvas_for,
    ) -> pdfdraw.Drawn:
        """PDF page ``index`` drawn by PDFium into ``canvas(width, height)`` (an H×W×3 array
        whose rows may lie apart: :mod:`workbench.documents.draw`), sized as :meth:`page` sizes
        it."""
        if not 1 <= index <= self.page_count:
            raise PageRangeError(f"{self.name}: page {index} is outside 1-{self.page_count}")
        with _PDFIUM_LOCK:
            page = self._pdf_page(index)
            try:
                scale, size, note = pdfdraw.scale_for(page, dpi, self.settings.max_pixels)
                want = fit(*size) if fit is not None else size
                if self.settings.pdf_backend == "poppler":
                    note = "poppler (pdftoppm) is not installed; rendered with PDFium"
                pixels = pdfdraw.draw(page, *want, canvas(*want))
                layer = extract_text_layer(page, index) if text else None  # None: scans
            finally:
                page.close()
        return pdfdraw.Drawn(pixels, round(scale * 72 * want[0] / size[0], 1), note, layer)

    def _pdf_page(self, index: int) -> Any:
        """PDF page ``index`` loaded (under the PDFium lock); a page PDFium cannot load (a
        damaged page object) is a DocumentError for that page only."""
        import pypdfium2 as pdfium

        try:
            return self._pdf[index - 1]
        except pdfium.PdfiumError as exc:
            raise DocumentError(self.name, f"page {index} cannot be read ({exc})") from None

    def _render_pdf(self, index: int, dpi: float, fit: Fit | None, text: bool) -> PageImage:
        if self.draws_with_pdfium:
            drawn = self.draw(index, dpi, fit=fit, text=text)
            image = Image.fromarray(drawn.pixels)
            return PageImage(self.name, index, image, drawn.dpi, drawn.note, text_layer=drawn.layer)
        with _PDFIUM_LOCK:
            page = self._pdf_page(index)
            scale, size, note = pdfdraw.scale_for(page, dpi, self.settings.max_pixels)
            layer = extract_text_layer(page, index) if text else None
            page.close()
        want = fit(*size) if fit is not None else size
        image = self._render_poppler(index, scale * 72)
        if image.size != want:
            image = image.resize(want, Image.Resampling.LANCZOS)
        dpi_out = round(scale * 72 * want[0] / size[0], 1)
        return PageImage(self.name, index, to_rgb(image), dpi_out, note, text_layer=layer)

    def _render_poppler(self, index: int, dpi: float) -> Image.Image:
        from pdf2image import convert_from_bytes  # optional backend

        images = convert_from_bytes(
            self.data, dpi=int(dpi), first_page=index, last_page=index, timeout=120
        )
        return images[0]

    def close(self) -> None:
        if self._pdf is not None:
            with _PDFIUM_LOCK:
                self._pdf.close()
            self._pdf = None
        if self._image is not None:
            with self._image_lock:
                self._image.close()
            self._image = None


def read_input(path: Path, settings: Settings | None = None) -> bytes:
    """The bytes of the file at ``path``; raises :class:`DocumentError` naming it.

    Only regular files (or links to one) are read. The file is opened non-blocking and checked
    with ``fstat`` on the open descriptor, so a FIFO with no writer is refused at once instead
    of blocking the whole run, and a file swapped after a check cannot slip through."""
    settings = settings or Settings()
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except IsADirectoryError:
        raise DocumentError(name, "is a folder, not a file") from None
    except OSError as exc:
        raise DocumentError(name, f"cannot read it ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DocumentError(name, f"not a regular file ({_file_type(info.st_mode)}); skipped")
        if info.st_size > settings.max_file_mb * 1024 * 1024:
            raise DocumentError(name, f"the file is larger than {settings.max_file_mb} MB")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as exc:
        raise DocumentError(name, f"cannot read it ({exc.strerror})") from None
    finally:
        os.close(fd)


def _file_type(mode: int) -> str:
    for check, what in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    ):
        if check(mode):
            return what
    return "not a file"


def open_document(
    name: str, data: bytes, settings: Settings | None = None, password: str | None = None
) -> Document:
    """Open ``data`` (named ``name`` for messages). Raises DocumentError naming the file.
    The document's name is ``name`` made safe to show (:func:`display_name`: a right-to-left
    override or a newline escaped), so no run, page or screen shows it raw."""
    name = display_name(name)
    settings = settings or Settings()
    if len(data) > settings.max_file_mb * 1024 * 1024:
        raise DocumentError(name, f"the file is larger than {settings.max_file_mb} MB")
    kind = sniff_kind(name, data)
    if kind == "pdf":
        return _open_pdf(name, data, settings, password)
    image, count = _open_image(name, data, kind)
    return Document(name, data, kind, count, settings, _image=image)


def _open_pdf(name: str, data: bytes, settings: Settings, password: str | None) -> Document:
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(data, password=password)
        except pdfium.PdfiumError:
            # pypdfium2 reads FPDF_GetLastError whenever the page count is below 1, even when
            # the load succeeded (a zero-page PDF), so its message may be a stale error from an
            # earlier file. Ask PDFium again, reading the error right after the failing call.
            raise DocumentError(name, _pdf_failure(data, password)) from None
        count = len(pdf)
    if count == 0:
        pdf.close()
        raise DocumentError(name, "the PDF has no pages")
    _close_at_exit(pdf)
    return Document(name, data, "pdf", count, settings, _pdf=pdf)


_STILL_OPEN: weakref.WeakSet[Any] = weakref.WeakSet()


def _close_at_exit(pdf: Any) -> None:
    """Close ``pdf`` at exit if still open (the app caches documents for its whole life),
    before pypdfium2's exit handler prints "still open" for it: ``atexit`` runs the last
    registered handler first, and this one is (re-)registered after pypdfium2's, just once."""
    if not _STILL_OPEN:
        atexit.unregister(_close_still_open)
        atexit.register(_close_still_open)
    _STILL_OPEN.add(pdf)


def _close_still_open() -> None:
    with _PDFIUM_LOCK:
        for pdf in list(_STILL_OPEN):
            pdf.close()


def _pdf_failure(data: bytes, password: str | None) -> str:
    """Why PDFium refuses ``data``: load it raw; the load's own error, else the page count."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    buffer = ctypes.create_string_buffer(data, len(data))
    secret = None if password is None else (password + "\x00").encode()
    handle = pdfium_c.FPDF_LoadMemDocument64(buffer, len(data), secret)
    if not handle:
        code = pdfium_c.FPDF_GetLastError()  # right after the failing call: this file's error
        if code == pdfium_c.FPDF_ERR_PASSWORD:
            if password:
                return "the PDF is encrypted and the password given is wrong"
            return "the PDF is encrypted (password-protected); remove the password first"
        if code == pdfium_c.FPDF_ERR_SECURITY:
            return "the PDF uses an unsupported security handler; it cannot be read"
        return "the PDF is damaged or truncated; it cannot be read"
    try:
        count = pdfium_c.FPDF_GetPageCount(handle)
    finally:
        pdfium_c.FPDF_CloseDocument(handle)
    if count < 1:
        return "the PDF has no pages"
    return "the PDF is damaged or truncated; it cannot be read"


def _open_image(name: str, data: bytes, kind: str) -> tuple[Image.Image, int]:
    """The open image and its frame count; only the first frame is decoded (to check it)."""
    try:
        with warnings.catch_warnings():
            # Image.open reads the header only; the size is checked here, against the limit
            # in force, before anything is decoded (PIL's own check would refuse without it).
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None
            try:
                image = Image.open(io.BytesIO(data))
            finally:
                Image.MAX_IMAGE_PIXELS = limit
            w, h = image.size
            if w * h > max_image_pixels():
                raise DocumentError(name, f"the image {too_large(w, h)}")
            image.load()
            # Counting frames walks the TIFF directory chain without decoding pixels.
            count = int(getattr(image, "n_frames", 1))
    except DocumentError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise DocumentError(name, "refused as a possible decompression bomb") from None
    except (OSError, SyntaxError, ValueError) as exc:
        raise DocumentError(name, f"the {kind.upper()} image is damaged ({exc})") from None
    if count < 1:
        raise DocumentError(name, "the image has no frames")
    return image, count
