"""Reading a stored run for the service: its pages' Markdown and regions, and its exports
(built by :func:`workbench.exports.bundle.run_exports`, as the app's export buttons are).
Unknown runs, documents and pages are refused with ``unknown_run``/``unknown_page``."""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from workbench.errors import StoreError, display_name
from workbench.exports.bundle import Export, run_exports
from workbench.runs.store import RunReader, RunStore
from workbench.schema import Region
from workbench.service.errors import ApiError

_REGIONS = TypeAdapter(list[Region])
FORMATS = ("md", "json", "html", "zip", "coco")


def open_run(store: RunStore, run_id: str) -> RunReader:
    try:
        return store.open(run_id)
    except StoreError as exc:
        raise ApiError(404, "unknown_run", str(exc)) from None


def check_page(reader: RunReader, document: str, page: int | None = None) -> None:
    if document not in reader.documents:
        raise ApiError(
            404,
            "unknown_page",
            f"run {reader.info.id} has no document named {display_name(document)!r}; "
            f"it has {', '.join(map(display_name, reader.documents)) or 'none'}",
        )
    if page is not None and page not in reader.page_numbers(document):
        raise ApiError(
            404,
            "unknown_page",
            f"{display_name(document)} has no finished page {page} in run {reader.info.id}",
        )


def page_markdown(reader: RunReader, document: str, page: int) -> str:
    check_page(reader, document, page)
    return reader.page(document, page).markdown


def document_markdown(reader: RunReader, document: str) -> str:
    check_page(reader, document)
    return reader.markdown(document)


def page_regions(reader: RunReader, document: str, page: int) -> dict[str, Any]:
    """The page's regions in ``page_px`` of its page image, the model's and (when a person
    corrected them in the app) the corrected ones."""
    check_page(reader, document, page)
    stored = reader.stored(document, page)
    result = stored.result
    return {
        "document": result.document,
        "page": result.page,
        "width": result.width,
        "height": result.height,
        "status": result.status.value,
        "coordinate_space": "page_px: pixels of the page image, origin top-left; "
        "bbox [x0, y0, x1, y1]",
        "regions": _REGIONS.dump_python(result.regions, mode="json"),
        "corrected": None
        if stored.corrected is None
        else _REGIONS.dump_python(stored.corrected, mode="json"),
    }


def export(
    reader: RunReader, fmt: str, document: str | None, page: int | None, model_only: bool
) -> Export:
    """The export ``fmt`` of the run, a document of it or one page."""
    if fmt not in FORMATS:
        raise ApiError(400, "unknown_format", f"no export {fmt!r}; one of {', '.join(FORMATS)}")
    if page is not None and document is None:
        raise ApiError(400, "bad_request", "a page export needs ?document= too")
    if document is not None:
        check_page(reader, document, page)
    return run_exports(reader, document, page, model_only)[fmt]
