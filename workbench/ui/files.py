"""Opened documents and their page images, cached for every session of this process.

* **Documents**: ``st.cache_resource`` keyed by (sha256, name): one PDFium handle per file,
  shared read-only by every session (documents.py serialises PDFium behind a lock). A file
  that cannot be read is a :class:`LoadedFile` with ``error`` naming it and saying why.
* **Page images**: ``st.cache_data`` keyed by (sha256, page, dpi); the display copy (the page
  as the engine saw it, as JPEG) keyed by those plus the sizing and the width.

Navigation, label toggles and selection never re-open or re-rasterize a page.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass

import streamlit as st
from PIL import Image

from workbench.documents import Document, open_document
from workbench.errors import DocumentError
from workbench.models.registry import PageSizing
from workbench.pipeline.prepare import fit_size
from workbench.pipeline.process import model_input
from workbench.schema import PageImage
from workbench.ui import state
from workbench.ui.config import settings


@dataclass(frozen=True)
class LoadedFile:
    """An uploaded or sample file: opened, or refused with a reason naming it."""

    name: str
    sha256: str
    doc: Document | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None


@st.cache_resource(max_entries=64, show_spinner=False)
def _open_cached(sha256: str, name: str, _data: bytes) -> tuple[Document | None, str | None]:
    try:
        return open_document(name, _data, settings()), None
    except DocumentError as exc:
        return None, str(exc)
    except Exception as exc:  # a library failing in a new way must not take the app down
        return None, f"{name}: cannot be read ({type(exc).__name__}: {exc})"


def load_file(name: str, data: bytes, upload_id: str | None = None) -> LoadedFile:
    """Open (or fetch from cache) one file; ``upload_id`` memoizes its hash for the session,
    so a 200 MB upload is not re-hashed on every rerun."""
    memo = state.VIEWER_SHA_MEMO.setdefault()
    sha = memo.get(upload_id) if upload_id else None
    if sha is None:
        sha = hashlib.sha256(data).hexdigest()
        if upload_id:
            memo[upload_id] = sha
    doc, error = _open_cached(sha, name, data)
    return LoadedFile(name, sha, doc, error)


@st.cache_data(max_entries=16, show_spinner=False)  # ~11 MB a page at 200 DPI
def page_image(sha256: str, name: str, index: int, dpi: float, _doc: Document) -> PageImage:
    """The rasterized page (cached by file content, page and DPI)."""
    return _doc.page(index, dpi)


@st.cache_data(max_entries=256, show_spinner=False)
def display_image(
    sha256: str,
    name: str,
    index: int,
    dpi: float,
    sizing: PageSizing,
    max_width: int,
    _doc: Document,
) -> bytes:
    """JPEG bytes of the page as the engine saw it (spec sizing), at most ``max_width`` wide.

    A PDF page is drawn by PDFium straight at the display size (the model's size scaled to
    ``max_width``): no full-size render and downscale, which took most of a click onto a page
    not shown before. An image file is sized and downscaled as before."""
    if _doc.kind == "pdf":

        def fit(width: int, height: int) -> tuple[int, int]:
            return display_size(*fit_size(width, height, sizing), max_width)  # model's size, shrunk

        return display_jpeg(_doc.page(index, dpi, fit=fit, text=False).image, max_width)
    return display_jpeg(
        model_input(page_image(sha256, name, index, dpi, _doc).image, sizing), max_width
    )


def display_size(width: int, height: int, max_width: int) -> tuple[int, int]:
    """A page's display size: at most ``max_width`` wide, the same shape."""
    if width <= max_width:
        return width, height
    return max_width, max(1, round(height * max_width / width))


def display_jpeg(image: Image.Image, max_width: int) -> bytes:
    """The display copy of a page image: at most ``max_width`` wide (LANCZOS), JPEG quality 88.
    The one thumbnailer of the Viewer's pages and the stored pages of Runs and Compare."""
    size = display_size(image.width, image.height, max_width)
    if size != image.size:
        image = image.resize(size, Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=88)
    return buf.getvalue()
