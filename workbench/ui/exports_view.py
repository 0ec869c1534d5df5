"""Export buttons for a run: Markdown, JSON, HTML, ZIP and COCO (:mod:`workbench.exports`).

Every file is built only when its button is clicked (deferred ``download_button`` data), and
each button says which coordinate space its boxes are in. Layers: JSON and ZIP carry both the
model's regions and the hand corrections; HTML and COCO draw the corrected layer where a page
has one, unless "model output only" is chosen.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

import streamlit as st

from workbench.exports.coco import COCO_COORDINATES, to_coco
from workbench.exports.formats import to_json, to_markdown, zip_bytes
from workbench.exports.html import to_html
from workbench.runs.store import RunReader, StoredPage
from workbench.ui import state

SCOPES = ("Whole run", "This document", "This page")


def select_pages(
    reader: RunReader, scope: str, doc: str | None, page: int | None, model_only: bool
) -> list[StoredPage]:
    if scope == "Whole run" or doc is None:
        pages = list(reader.iter_stored())
    elif scope == "This document" or page is None:
        pages = list(reader.iter_stored(doc))
    else:
        pages = [reader.stored(doc, page)]
    if model_only:
        pages = [dataclasses.replace(p, corrected=None) for p in pages]
    return pages


def _stem(reader: RunReader, scope: str, doc: str | None, page: int | None) -> str:
    stem = reader.info.id
    if scope != "Whole run" and doc is not None:
        stem += "-" + reader.folders.get(doc, "doc")
        if scope == "This page" and page is not None:
            stem += f"-p{page}"
    return stem


def builders(
    reader: RunReader, scope: str, doc: str | None, page: int | None, model_only: bool
) -> dict[str, tuple[Callable[[], str | bytes], str, str, str]]:
    """format -> (build, file name, mime, coordinate note)."""
    stem = _stem(reader, scope, doc, page)

    def pages() -> list[StoredPage]:
        return select_pages(reader, scope, doc, page, model_only)

    def zip_data() -> bytes:
        files = reader.files(
            doc if scope != "Whole run" else None, page if scope == "This page" else None
        )
        if scope != "Whole run":
            files = [reader.path / "manifest.json", *files]
        coco = json.dumps(to_coco(pages(), reader.info), ensure_ascii=False, indent=1)
        return zip_bytes(reader.path, files, title=stem, extras={"coco.json": coco})

    return {
        "Markdown": (lambda: to_markdown(pages()), f"{stem}.md", "text/markdown", "text only"),
        "JSON": (
            lambda: to_json(pages(), reader.info),
            f"{stem}.json",
            "application/json",
            "both layers (model + corrections); bbox [x0, y0, x1, y1] in page_px",
        ),
        "HTML": (
            lambda: to_html(pages(), run=reader.info),
            f"{stem}.html",
            "text/html",
            "boxes drawn in page_px over each page image",
        ),
        "ZIP": (
            zip_data,
            f"{stem}.zip",
            "application/zip",
            "run files (both layers) + coco.json, page_px",
        ),
        "COCO": (
            lambda: json.dumps(to_coco(pages(), reader.info), ensure_ascii=False, indent=1),
            f"{stem}.coco.json",
            "application/json",
            COCO_COORDINATES,
        ),
    }


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
