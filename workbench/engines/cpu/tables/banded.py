"""Row-ruled tables: a rule between every row and none between the columns.

Many tables (word processors' "horizontal borders only" style, government reports) draw a
horizontal rule under each row and no vertical rule. pdfplumber's ``lines`` strategy finds no
cell there (:mod:`.ruled` needs crossings), and the word-alignment grid (:mod:`.grid`) reads a
cell that wraps over two or three lines as rows of their own, or joins two short rows: the
rules say where a row ends, the words do not.

:func:`banded` reads such a table's grid from both: its rows are the bands between the
horizontal rules that cross the table block (at least ``SPAN`` of its width; rules within
``MERGE`` × line height are one rule, a double rule or a thin filled bar's two sides), its
columns the gaps no word of the body bands crosses (wider than ``GAP`` × line height, so a
cell's words stay one cell). A band above the first rule with words in two columns or more
(within ``HEAD`` × line height of it) is the header row. It is a row-ruled table only when
it has at least ``MIN_BANDS`` bands with text, at least two columns, and **every band is one
row**: at most one of the band's text rows fills two columns or more, the others wrapping
inside one column ("Parastratio-" then "ecomyioides" under it). A booktabs table (top, middle
and bottom rules) fails that test: its body band holds many full rows, so its rows stay the
word-alignment grid's. The grid goes to :func:`.ruled.grid_table` as a ruled grid does; lines
outside the bands (a title above, notes under the last rule) stay outside the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from workbench.engines.cpu.boxes import Box, Line, rows
from workbench.engines.cpu.page import Grid

SPAN = 0.9  # a row rule crosses this share of the table block's width
MERGE = 0.5  # rules closer than this × line height are one rule
GAP = 0.8  # a column gap is wider than this × line height (a word space is ~0.3)
MIN_BANDS = 3  # a header and two rows at least: two rules under a title make no table
EDGE = 0.5  # a rule may lie this × line height outside the block's box
HEAD = 3.0  # a header row over the first rule lies within this × line height of it


def banded(
    box: Box, rules: Sequence[tuple[float, float, float]], lines: Sequence[Line], line_h: float
) -> Grid | None:
    """The grid of a row-ruled table block of ``box`` holding ``lines``, or None when the block
    is not one; ``rules``: the page's horizontal rules as ``(x0, y, x1)`` in ``page_px``."""
    ys = _rules_across(box, rules, line_h)
    if len(ys) < 2 or not lines:
        return None
    bands = list(pairwise(ys))
    above = [ln for ln in lines if ys[0] - HEAD * line_h < ln.middle < ys[0]]
    body = [[ln for ln in lines if a <= ln.middle < b] for a, b in bands]
    cols = _columns([ln for band in body for ln in band], line_h)
    if len(cols) < 2:
        return None
    if above and _filled(above, cols) >= 2:  # a header row over the first rule
        top = min(ln.box[1] for ln in above) - 1.0
        bands.insert(0, (top, ys[0]))
        body.insert(0, above)
    kept = [(band, group) for band, group in zip(bands, body, strict=True) if group]
    if len(kept) < MIN_BANDS or any(not _one_row(g, cols) for _, g in kept):
        return None
    edges = [box[0]] + [(a[1] + b[0]) / 2 for a, b in pairwise(cols)]
    edges.append(box[2])
    cells = tuple(
        (edges[k], top, edges[k + 1], bottom) for (top, bottom), _ in kept for k in range(len(cols))
    )
    return Grid(cells)


def _rules_across(
    box: Box, rules: Sequence[tuple[float, float, float]], line_h: float
) -> list[float]:
    x0, y0, x1, y1 = box
    width, pad = max(x1 - x0, 1.0), EDGE * line_h
    ys = sorted(
        y
        for a, y, b in rules
        if y0 - pad <= y <= y1 + pad and min(b, x1) - max(a, x0) >= SPAN * width
    )
    out: list[float] = []
    for y in ys:
        if out and y - out[-1] < MERGE * line_h:
            continue
        out.append(y)
    return out


def _columns(lines: Sequence[Line], line_h: float) -> list[tuple[float, float]]:
    """The x spans of the body's columns: word spans merged where under ``GAP`` apart."""
    spans = sorted((w.box[0], w.box[2]) for ln in lines for w in (ln.words or []))
    out: list[tuple[float, float]] = []
    for a, b in spans:
        if out and a - out[-1][1] < GAP * line_h:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _filled(lines: Sequence[Line], cols: Sequence[tuple[float, float]]) -> int:
    """How many of ``cols`` the words of ``lines`` fall in (by their centre)."""
    hit: set[int] = set()
    for ln in lines:
        for w in ln.words or []:
            cx = (w.box[0] + w.box[2]) / 2
            hit.update(k for k, (a, b) in enumerate(cols) if a - 1 <= cx <= b + 1)
    return len(hit)


def _one_row(group: Sequence[Line], cols: Sequence[tuple[float, float]]) -> bool:
    """Whether a band's lines are one table row: at most one text row fills two columns."""
    return sum(_filled(r, cols) >= 2 for r in rows(list(group))) <= 1
