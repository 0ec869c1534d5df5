"""Exports of a page or a whole run: Markdown, JSON, ZIP here; HTML and COCO beside it.

Every export states its coordinate space (:data:`COORDINATES`): in the JSON and COCO ``info``,
in an HTML comment and footer, in the ZIP's ``README.txt``. Boxes are written exactly as
stored (``page_px`` of the page image); nothing is rescaled on export.

Exports take :class:`ExportPage` objects: anything with ``result``, ``corrected``,
``image_file`` and ``load_image()`` -- :class:`~workbench.runs.folder.StoredPage` is one
(structurally; this module does not import the store).
Where regions matter (HTML boxes, COCO), the corrected layer wins when present and the export
says which layer each page used.

* :func:`to_markdown` -- the pages' Markdown, documents in order, each as its ``document.md``.
* :func:`to_json` -- ``{"info", "pages": [PageResult...], "corrections"}``; each page reads
  back with ``PageResult.model_validate``.
* :func:`write_zip` -- files of a run folder, kept under their relative names, plus README.txt.
* :func:`workbench.exports.html.to_html`, :func:`workbench.exports.coco.to_coco`.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

from PIL import Image
from pydantic import TypeAdapter

from workbench.errors import WorkbenchError
from workbench.markdown.assemble import assemble_document
from workbench.schema import PageResult, Region, RunInfo

FORMAT = "ocr-workbench-export/1"
COORDINATES = (
    "page_px: pixels of the page image sent to the engine (page-NNNN.png), origin top-left, "
    "x right, y down; region bbox [x0, y0, x1, y1]"
)
_REGIONS = TypeAdapter(list[Region])


class ExportPage(Protocol):
    @property
    def result(self) -> PageResult: ...

    @property
    def corrected(self) -> list[Region] | None: ...

    @property
    def image_file(self) -> str: ...

    def load_image(self) -> Image.Image | None: ...


def regions_of(page: ExportPage) -> tuple[list[Region], str]:
    """The regions to export and which layer they come from (``corrected`` or ``model``)."""
    if page.corrected is not None:
        return list(page.corrected), "corrected"
    return list(page.result.regions), "model"


def _by_document(pages: Sequence[ExportPage]) -> dict[str, list[ExportPage]]:
    groups: dict[str, list[ExportPage]] = {}
    for page in pages:
        groups.setdefault(page.result.document, []).append(page)
    for group in groups.values():
        group.sort(key=lambda p: p.result.page)
    return groups


#: How a page's Markdown writes ``$`` in table cells (the CPU engine's HTML tables: the app's
#: sanitizer would read ``$…$`` as math); an export is read by people and other tools.
DOLLAR_ENTITY = "&#36;"


def readable(markdown: str) -> str:
    """A page's Markdown as exported: ``&#36;`` written ``$`` (a table of amounts read
    "&#36;1,200" in a downloaded file). Markdown does not read math, and inside an HTML block
    ``$`` is plain text."""
    return markdown.replace(DOLLAR_ENTITY, "$")


def to_markdown(pages: Sequence[ExportPage]) -> str:
    """The pages' Markdown, each document joined by
    :func:`~workbench.markdown.assemble.assemble_document` (``<!-- page N -->`` before each
    page), as the run folder's ``document.md`` and the viewer's download are. With several
    documents each starts with an HTML comment naming it."""
    groups = _by_document(pages)
    parts: list[str] = []
    for doc, group in groups.items():
        if len(groups) > 1:
            parts.append(f"<!-- document: {_comment_safe(doc)} -->\n")
        parts.append(assemble_document((p.result.page, p.result.markdown) for p in group))
    return readable("\n".join(parts))


def _comment_safe(text: str) -> str:
    return text.replace("--", "- -").replace(">", "&gt;")


def export_info(run: RunInfo | None = None, **extra: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "format": FORMAT,
        "exported": datetime.now(UTC).isoformat(timespec="seconds"),
        "coordinate_space": COORDINATES,
    }
    if run is not None:
        info["run"] = {
            "id": run.id,
            "name": run.name,
            "engine": run.engine,
            "model": run.model,
            "created": run.created.isoformat(),
            "status": run.status.value,
        }
    info.update(extra)
    return info


def to_json(pages: Sequence[ExportPage], run: RunInfo | None = None) -> str:
    """Our schema as JSON: each page is ``PageResult.model_dump(mode="json")``; hand
    corrections ride beside the pages, never inside them."""
    ordered = [p for group in _by_document(pages).values() for p in group]
    payload = {
        "info": export_info(run),
        "pages": [p.result.model_dump(mode="json") for p in ordered],
        "corrections": [
            {
                "document": p.result.document,
                "page": p.result.page,
                "regions": _REGIONS.dump_python(p.corrected, mode="json"),
            }
            for p in ordered
            if p.corrected is not None
        ],
    }
    return json.dumps(payload, ensure_ascii=False, indent=1)


README = """OCR Workbench export
====================

{title}
Exported {when}.

Coordinate space: {coords}.
COCO files (if any) use bbox [x, y, width, height] in the same page pixels.

Layout (one folder per document, named by its stem):
  manifest.json                 the run: engine, model, settings, per-page status and timings
  <doc>/page-0001.png           the page image sent to the engine
  <doc>/page-0001.md            the page Markdown
  <doc>/page-0001.json          the engine's result (regions, Markdown, timings)
  <doc>/page-0001.raw.txt       the engine's raw output, when it gave any
  <doc>/page-0001.corrected.json  regions corrected by hand, when there are any
  <doc>/document.md             all pages' Markdown joined, <!-- page N --> before each
  <doc>/document.json           the document: name, sha256, kind, page count
"""


def write_zip(
    root: Path,
    files: Sequence[Path],
    dest: Path | IO[bytes],
    *,
    title: str = "",
    extras: Mapping[str, str | bytes] | None = None,
) -> None:
    """Zip ``files`` (inside ``root``) under their names relative to it, plus README.txt and
    ``extras`` (name -> content, e.g. a COCO file). PNGs are stored, text is deflated."""
    root = Path(root).resolve()
    readme = README.format(
        title=title or root.name,
        when=datetime.now(UTC).isoformat(timespec="seconds"),
        coords=COORDINATES,
    )
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("README.txt", readme)
        for path in files:
            resolved = Path(path).resolve()
            if not resolved.is_relative_to(root):
                raise WorkbenchError(f"{path} is outside {root}; not exported.")
            name = resolved.relative_to(root).as_posix()
            if resolved.suffix == ".md":  # a run's document.md, as the Markdown export
                zf.writestr(name, readable(resolved.read_text(encoding="utf-8")))
                continue
            stored = zipfile.ZIP_STORED if resolved.suffix == ".png" else zipfile.ZIP_DEFLATED
            zf.write(resolved, name, compress_type=stored)
        for name, content in (extras or {}).items():
            zf.writestr(name, content)


def zip_bytes(
    root: Path,
    files: Sequence[Path],
    *,
    title: str = "",
    extras: Mapping[str, str | bytes] | None = None,
) -> bytes:
    buffer = io.BytesIO()
    write_zip(root, files, buffer, title=title, extras=extras)
    return buffer.getvalue()
