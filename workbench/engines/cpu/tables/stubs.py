"""Row labels set left of a ruled table are that table's first column (its stub).

A sheet printed with rules around its figures only (an election return: each township's name
left of its ruled row of votes, the names outside every rule) has its row labels in no ruled
cell: pdfplumber's grid (:mod:`.ruled`) has no column for them, the layout model draws them as
a text box of their own, and the table was read without them, the names a paragraph beside it.

:func:`stub_column`: a box of lines beside a ruled grid is the grid's row labels when every
line of it is level, lies left of the grid with the box's right edge within ``REACH`` line
heights of it, and sits inside one row of the grid (centre inside, top and bottom within
``TOL``); and the boxes so found label at least ``MIN_LABELS`` rows and ``SHARE`` of the rows
that hold text. The grid then gains a cell left of each of its rows, and the labels are read
as its first column. Lines no box holds are judged together: those left of the grid and level
with it (:func:`beside`) are one box. A paragraph beside a table fails: its lines cross rows
or run past the grid's top or bottom.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.page import Grid

TOL = 3.0  # page_px: a line this far past its row's rule still sits in that row
REACH = 3.0  # line heights between the labels' right edge and the grid's left edge at most
MIN_LABELS = 3  # rows labelled from outside: fewer is a note beside a table
SHARE = 0.5  # of the grid's rows that hold text, at least this share labelled

Band = tuple[float, float]  # a row of the grid: the top and bottom of its left-edge cell


def stub_column(
    grid: Grid, table: Sequence[Line], boxes: Sequence[Sequence[Line]], line_h: float
) -> tuple[Grid, list[int]] | None:
    """The grid with a cell left of each row and the indexes of the ``boxes`` (each a box's
    lines) that are its row labels, or None when they are not (``table``: the lines of the
    table's own box, to count the rows that hold text)."""
    gx0, _, _, _ = grid.box
    bands = sorted({(c[1], c[3]) for c in grid.cells if c[0] <= gx0 + TOL})
    if not bands:
        return None
    taken: list[int] = []
    labelled: set[Band] = set()
    for i, lines in enumerate(boxes):
        rows = _labels(lines, bands, gx0, line_h)
        if rows:
            taken.append(i)
            labelled |= rows
    texted = {b for b in bands if any(b[0] < ln.middle < b[1] for ln in table)}
    if len(labelled) < MIN_LABELS or len(labelled) < SHARE * len(texted | labelled):
        return None
    x0 = min(ln.box[0] for i in taken for ln in boxes[i]) - TOL
    stubs = tuple((x0, top, gx0, bottom) for top, bottom in bands)
    return Grid(grid.cells + stubs), taken


def beside(grid: Grid, lines: Sequence[Line]) -> list[Line]:
    """Those of ``lines`` left of ``grid`` and level with it (top to bottom within it)."""
    gx0, gy0, _, gy1 = grid.box
    return [
        ln
        for ln in lines
        if ln.box[2] <= gx0 + TOL and ln.box[1] >= gy0 - TOL and ln.box[3] <= gy1 + TOL
    ]


def _labels(lines: Sequence[Line], bands: list[Band], gx0: float, line_h: float) -> set[Band]:
    """The rows ``lines`` label, or an empty set when they are not row labels of the grid."""
    if not lines or max(ln.box[2] for ln in lines) < gx0 - REACH * line_h:
        return set()
    rows: set[Band] = set()
    for ln in lines:
        if ln.turned or ln.box[2] > gx0 + TOL:
            return set()
        band = next((b for b in bands if b[0] < ln.middle < b[1]), None)
        if band is None or ln.box[1] < band[0] - TOL or ln.box[3] > band[1] + TOL:
            return set()
        rows.add(band)
    return rows
