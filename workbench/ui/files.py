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
from workbench.documents.unlock import WRONG_PASSWORD, unlock_pdf
from workbench.errors import DocumentError, display_name
from workbench.models import fit_size
from workbench.models.registry import PageSizing
from workbench.pipeline.prepare import sized
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

    @property
    def locked(self) -> bool:
        """A password-protected PDF: a password typed for it may open it."""
        return self.doc is None and "encrypted" in (self.error or "")


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
    so a 200 MB upload is not re-hashed on every rerun. ``name`` is shown escaped wherever it
    is shown (:func:`display_name`: a right-to-left override in it is not obeyed)."""
    name = display_name(name)
    sha = content_sha(data, upload_id)
    doc, error = _open_cached(sha, name, data)
    password = state.VIEWER_PASSWORDS.get().get(sha)
    if doc is None and password and error and "encrypted" in error:
        plain, why = _unlocked(sha, data, password)
        if plain is None:
            return LoadedFile(name, sha, None, f"{name}: {why}")
        return load_file(name, plain)  # known by the content it opens to from now on
    return LoadedFile(name, sha, doc, error)


def content_sha(data: bytes, upload_id: str | None = None) -> str:
    """The file's sha256, memoized for the session by its upload id when it has one."""
    memo = state.VIEWER_SHA_MEMO.setdefault()
    sha = memo.get(upload_id) if upload_id else None
    if sha is None:
        sha = hashlib.sha256(data).hexdigest()
        if upload_id:
            memo[upload_id] = sha
    return sha


@st.cache_resource(max_entries=16, show_spinner=False)
def _unlocked(sha256: str, _data: bytes, password: str) -> tuple[bytes | None, str]:
    """The PDF with its password removed (:func:`workbench.documents.unlock.unlock_pdf`), or
    None and why not."""
    try:
        return unlock_pdf("", _data, password), ""
    except DocumentError as exc:
        if exc.reason == WRONG_PASSWORD:
            return None, "the PDF is encrypted and this password does not open it; try again"
        return None, exc.reason


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
            return display_size(*fit_size(width, height, sizing, is_image=False), max_width)

        return display_jpeg(_doc.page(index, dpi, fit=fit, text=False).image, max_width)
    return display_jpeg(sized(page_image(sha256, name, index, dpi, _doc).image, sizing), max_width)


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


#: Refusals listed in the one summary before the rest go into "all N" (six tall banners for six
#: bad files pushed the pages out of view).
SHOWN_REFUSALS = 3


def refused(files: list[LoadedFile]) -> None:
    """One error summary for the files that cannot be read (the first few named in it, every
    one in an expander below when there are more), and a password field per locked PDF."""
    bad = sorted((f for f in files if not f.ok), key=lambda f: not f.locked)  # actionable first
    if not bad:
        return
    lines = [
        (f.error or f"{f.name}: cannot be read").replace(
            "remove the password first", "type its password below"
        )
        for f in bad
    ]
    head = "This file cannot be read:" if len(bad) == 1 else f"{len(bad)} files cannot be read:"
    extra = len(bad) - SHOWN_REFUSALS
    more = f"\n- … and {extra} more (below)" if extra > 0 else ""
    shown = "".join(f"\n- {line}" for line in lines[:SHOWN_REFUSALS])
    st.error(head + shown + more, icon=":material/error:")
    if len(bad) > SHOWN_REFUSALS:
        with st.expander(f"All {len(bad)} files that cannot be read"):
            st.markdown("\n".join(f"- {line}" for line in lines))
    for f in bad:
        if f.locked:
            st.text_input(
                f"Password for {f.name}",
                type="password",
                key=state.VIEWER_PASSWORD(f.sha256).key,
                on_change=_keep_password,
                args=(f.sha256,),
                help="Used here only, to open this file; never stored in a run.",
            )


def _keep_password(sha256: str) -> None:
    state.VIEWER_PASSWORDS.setdefault()[sha256] = state.VIEWER_PASSWORD(sha256).get()
