"""A PDF's outline (bookmarks) by page: what the document's own authoring tool says its
headings are, for the CPU engine's headings (:mod:`workbench.engines.cpu.furniture.outline`).

Contract: :func:`on_page` gives the entries that point at 1-based page ``index`` of an open
``pypdfium2.PdfDocument`` as ``(depth, title)`` (depth 1: the outline's top level), titles with
their white space collapsed, in outline order; ``()`` for a PDF without an outline or with a
broken one. The caller holds PDFium's lock. The outline is read once per document (a weak
cache: it goes with the document) and at most ``MAX_ENTRIES`` entries.
"""

from __future__ import annotations

import weakref
from typing import Any

MAX_ENTRIES = 5000

Entry = tuple[int, str]
_CACHE: weakref.WeakKeyDictionary[Any, dict[int, tuple[Entry, ...]]] = weakref.WeakKeyDictionary()


def on_page(pdf: Any, index: int) -> tuple[Entry, ...]:
    try:
        pages = _CACHE.get(pdf)
        if pages is None:
            pages = _CACHE[pdf] = _read(pdf)
    except TypeError:  # not weak-referenceable: read, not cached
        pages = _read(pdf)
    return pages.get(index, ())


def _read(pdf: Any) -> dict[int, tuple[Entry, ...]]:
    found: dict[int, list[Entry]] = {}
    try:
        for k, item in enumerate(pdf.get_toc()):
            if k >= MAX_ENTRIES:
                break
            title = " ".join((item.get_title() or "").split())
            dest = item.get_dest()
            page = dest.get_index() if dest is not None else None
            if title and page is not None:
                found.setdefault(page + 1, []).append((item.level + 1, title))
    except Exception:  # a broken outline is no outline
        return {}
    return {k: tuple(v) for k, v in found.items()}
