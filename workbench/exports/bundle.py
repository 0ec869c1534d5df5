"""The five exports of a run, a document or a page, read from its run folder: one home for
what each export holds, its file name and type, for every front end (the app's export
buttons, the service's ``/export`` endpoints).

:func:`run_exports` maps a format (``md``, ``json``, ``html``, ``zip``, ``coco``) to an
:class:`Export` whose ``build`` makes the file only when called. Scope: the whole run
(``doc=None``), one document, or one page of it. ``model_only`` drops the hand-corrected
layer, so HTML/COCO draw the model's regions (JSON and ZIP always carry both layers).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass

from workbench.exports.coco import COCO_COORDINATES, to_coco
from workbench.exports.formats import to_json, to_markdown, zip_bytes
from workbench.exports.html import to_html
from workbench.runs.store import RunReader, StoredPage


@dataclass(frozen=True)
class Export:
    label: str  # the button's name: Markdown, JSON, HTML, ZIP, COCO
    build: Callable[[], str | bytes]
    file_name: str
    mime: str
    note: str  # which coordinate space / layers it holds


def select_pages(
    reader: RunReader, doc: str | None, page: int | None, model_only: bool
) -> list[StoredPage]:
    """The stored pages of the scope (``doc`` None: the whole run; ``page`` None: all of
    ``doc``), without their corrections when ``model_only``."""
    if doc is None:
        pages = list(reader.iter_stored())
    elif page is None:
        pages = list(reader.iter_stored(doc))
    else:
        pages = [reader.stored(doc, page)]
    if model_only:
        pages = [dataclasses.replace(p, corrected=None) for p in pages]
    return pages


def export_stem(reader: RunReader, doc: str | None, page: int | None) -> str:
    """The exported file's name without suffix: the run id, its document folder, ``-pN``."""
    stem = reader.info.id
    if doc is not None:
        stem += "-" + reader.folders.get(doc, "doc")
        if page is not None:
            stem += f"-p{page}"
    return stem


def run_exports(
    reader: RunReader, doc: str | None = None, page: int | None = None, model_only: bool = False
) -> dict[str, Export]:
    """format -> :class:`Export` for the scope (see the module docstring)."""
    stem = export_stem(reader, doc, page)

    def pages() -> list[StoredPage]:
        return select_pages(reader, doc, page if doc is not None else None, model_only)

    def coco() -> str:
        return json.dumps(to_coco(pages(), reader.info), ensure_ascii=False, indent=1)

    def zip_data() -> bytes:
        files = reader.files(doc, page if doc is not None else None)
        if doc is not None:
            files = [reader.path / "manifest.json", *files]
        return zip_bytes(reader.path, files, title=stem, extras={"coco.json": coco()})

    return {
        "md": Export(
            "Markdown", lambda: to_markdown(pages()), f"{stem}.md", "text/markdown", "text only"
        ),
        "json": Export(
            "JSON",
            lambda: to_json(pages(), reader.info),
            f"{stem}.json",
            "application/json",
            "both layers (model + corrections); bbox [x0, y0, x1, y1] in page_px",
        ),
        "html": Export(
            "HTML",
            lambda: to_html(pages(), run=reader.info),
            f"{stem}.html",
            "text/html",
            "boxes drawn in page_px over each page image",
        ),
        "zip": Export(
            "ZIP",
            zip_data,
            f"{stem}.zip",
            "application/zip",
            "run files (both layers) + coco.json, page_px",
        ),
        "coco": Export("COCO", coco, f"{stem}.coco.json", "application/json", COCO_COORDINATES),
    }
