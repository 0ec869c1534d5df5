"""Export buttons for a run: Markdown, JSON, HTML, ZIP and COCO (built by
:func:`workbench.exports.bundle.run_exports`, as the service's exports are).

Every file is built only when its button is clicked (deferred ``download_button`` data), and
each button says which coordinate space its boxes are in. Layers: JSON and ZIP carry both the
model's regions and the hand corrections; HTML and COCO draw the corrected layer where a page
has one, unless "model output only" is chosen.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from workbench.exports import bundle
from workbench.exports.bundle import run_exports
from workbench.runs.store import RunReader, StoredPage
from workbench.ui import state

SCOPES = ("Whole run", "This document", "This page")


def _scope(scope: str, doc: str | None, page: int | None) -> tuple[str | None, int | None]:
    """The radio's scope as the document and page of :func:`run_exports` (None: all)."""
    if scope == "Whole run" or doc is None:
        return None, None
    return doc, page if scope == "This page" else None


def select_pages(
    reader: RunReader, scope: str, doc: str | None, page: int | None, model_only: bool
) -> list[StoredPage]:
    return bundle.select_pages(reader, *_scope(scope, doc, page), model_only)


def builders(
    reader: RunReader, scope: str, doc: str | None, page: int | None, model_only: bool
) -> dict[str, tuple[Callable[[], str | bytes], str, str, str]]:
    """format label -> (build, file name, mime, coordinate note): :func:`run_exports`."""
    exports = run_exports(reader, *_scope(scope, doc, page), model_only)
    return {e.label: (e.build, e.file_name, e.mime, e.note) for e in exports.values()}


def render(reader: RunReader, doc: str | None = None, page: int | None = None) -> None:
    docs = reader.documents
    doc = doc or state.OPEN_DOCUMENT.get() or (docs[0] if docs else None)
    page = page or state.OPEN_PAGE.get()
    c1, c2 = st.columns([3, 2])
    scope = c1.radio("What", SCOPES, horizontal=True, key="exp_scope")
    model_only = c2.toggle(
        "Model output only",
        key="exp_model_only",
        help="Off: HTML/COCO use the hand-corrected layer where a page has one.",
    )
    if scope == "This page":
        c1.caption(f"{doc} · page {page}")
    cols = st.columns(5)
    for col, (fmt, (build, name, mime, note)) in zip(
        cols, builders(reader, scope, doc, page, model_only).items(), strict=True
    ):
        col.download_button(
            fmt,
            data=build,
            file_name=name,
            mime=mime,
            key=f"exp_{fmt}",
            on_click="ignore",
            icon=":material/download:",
            width="stretch",
        )
        col.caption(note)
