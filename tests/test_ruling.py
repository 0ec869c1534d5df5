"""workbench.documents.ruling: a PDF page's ruling lines, as pdfplumber (pdfminer) reads the same
page's lines and rectangles, on a real ruled table (tabula-java's frx_2012_disclosure page 1)."""

from __future__ import annotations

from pathlib import Path

import pdfplumber

from workbench.documents.textlayer import extract_pdf

PDF = Path(__file__).resolve().parent / "data" / "ruled_frx_2012_disclosure.pdf"


def _positions(edges: list[tuple[float, float, float, float]], vertical: bool) -> set[int]:
    """Where the long rules lie: x of vertical ones, y of horizontal ones (whole points)."""
    keep = set()
    for x0, top, x1, bottom in edges:
        if vertical and x0 == x1 and bottom - top >= 3:
            keep.add(round(x0))
        elif not vertical and top == bottom and x1 - x0 >= 3:
            keep.add(round(top))
    return keep


def test_ruling_lines_are_where_pdfplumber_finds_them():
    layer = extract_pdf(PDF, 1)
    assert layer is not None and layer.edges
    with pdfplumber.open(PDF) as doc:
        theirs = [(e["x0"], e["top"], e["x1"], e["bottom"]) for e in doc.pages[0].edges]
    flat = [(x0, (t + b) / 2, x1, (t + b) / 2) for x0, t, x1, b in theirs if b - t < 1]
    tall = [((x0 + x1) / 2, t, (x0 + x1) / 2, b) for x0, t, x1, b in theirs if x1 - x0 < 1]
    for vertical, ref in ((True, tall), (False, flat)):
        mine, want = _positions(list(layer.edges), vertical), _positions(ref, vertical)
        assert len(want) >= 5  # the table's five columns' sides; its rows
        assert len(mine ^ want) <= 0.05 * len(want), (vertical, sorted(mine ^ want)[:10])
