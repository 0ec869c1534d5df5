"""Two tables side by side in one table box become two table boxes, read left then right.

The layout model draws one box over two tables set side by side (a long list of rows set in
two halves), and the grid then wrote each row of the left table and the row level with it of
the right one as one row of a six-column table. A table box is cut at its widest column gap
when:

* the gap is at least ``WIDE`` times every other gap between its columns and ``MIN_GAP``
  line heights wide,
* each side has at least two columns of its own in its *full* rows (two fragments or more on
  that side), and
* the sides are two tables, not a label block and its figures: one side has ``MIN_EXTRA``
  full rows or more below the other's last row (the second half of a list is shorter), or
  both start with the same row of two cells or more (a header repeated over each half).

Each side's box is the union of its fragments; the reading-order pass reads the left box
before the right one, since a column gap separates them.

:func:`refind`: a table found from alignment (:func:`frag.find_tables`) over two such tables
is found again on each side apart, over ``BAND`` line heights above and below it: when the two
halves' rows are not level, the page's rows alternate left and right, and the search over the
whole page lost the left half's first rows and header.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, cover, median, union_all
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.tables import fragments as frag
from workbench.schema import Label

WIDE = 2.0  # the cut is this many times wider than any other column gap of the box
MIN_GAP = 2.0  # ...and at least this many line heights
MIN_EXTRA = 2  # full rows of one side below the other's last row: the halves of one list
BAND = 10.0  # line heights above and below a found table where each half is found again


def side_by_side(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    out: list[LayoutBox] = []
    for b in boxes:
        halves = _halves(b.box, lines) if canonical(b.native) is Label.TABLE else None
        if halves is None:
            out.append(b)
        else:
            out += [LayoutBox(b.native, h, b.score) for h in halves]
    return out


def refind(found: list[Box], lines: list[Line]) -> list[Box]:
    """``found`` tables, each one set as two halves side by side found again per half."""
    out: list[Box] = []
    for t in found:
        halves = _halves(t, lines)
        if halves is None:
            out.append(t)
            continue
        cut = (halves[0][2] + halves[1][0]) / 2
        h = median([ln.height for ln in lines], 1.0)
        band = [ln for ln in lines if ln.box[3] > t[1] - BAND * h and ln.box[1] < t[3] + BAND * h]
        left = [ln for ln in band if ln.box[2] <= cut]
        right = [ln for ln in band if ln.box[0] >= cut]
        for half, side in zip(halves, (left, right), strict=True):
            out += frag.find_tables(side) or [half]
    return out


def _halves(box: Box, lines: list[Line]) -> tuple[Box, Box] | None:
    inside = [ln for ln in lines if cover(ln.box, box) >= 0.5]
    frags = frag.fragments(inside)
    if len(frags) < 8:
        return None
    h = max(median([f[1][3] - f[1][1] for f in frags], 1.0), 1.0)
    gaps = _gaps(frags)
    if len(gaps) < 3:  # two columns a side at least: three gaps or more between them
        return None
    widest = max(gaps, key=lambda g: g[1] - g[0])
    width = widest[1] - widest[0]
    others = [g[1] - g[0] for g in gaps if g is not widest]
    if width < MIN_GAP * h or width < WIDE * max(others):
        return None
    cut = (widest[0] + widest[1]) / 2
    left = [f for f in frags if f[1][2] <= cut]
    right = [f for f in frags if f[1][0] >= cut]
    if len(left) + len(right) < len(frags):
        return None  # a fragment bridges the gap (a title over both): one table
    if any(len(frag.columns_of(_full(side))) < 2 for side in (left, right)):
        return None
    if not (_longer(left, right) or _longer(right, left) or _same_head(left, right)):
        return None
    return union_all([f[1] for f in left]), union_all([f[1] for f in right])


def _gaps(frags: list[frag.Fragment]) -> list[tuple[float, float]]:
    """The x ranges no fragment covers, between the leftmost and the rightmost fragment."""
    spans = sorted((f[1][0], f[1][2]) for f in frags)
    gaps: list[tuple[float, float]] = []
    hi = spans[0][1]
    for a, b in spans[1:]:
        if a > hi:
            gaps.append((hi, a))
        hi = max(hi, b)
    return gaps


def _full(side: list[frag.Fragment]) -> list[list[frag.Fragment]]:
    return [r for r in frag.rows_of(side) if len(r) >= 2]


def _longer(longer: list[frag.Fragment], shorter: list[frag.Fragment]) -> bool:
    """``longer`` has ``MIN_EXTRA`` full rows below the last row of ``shorter``."""
    last = max(f[1][3] for f in shorter)
    return sum(min(f[1][1] for f in r) > last for r in _full(longer)) >= MIN_EXTRA


def _same_head(left: list[frag.Fragment], right: list[frag.Fragment]) -> bool:
    a, b = frag.rows_of(left), frag.rows_of(right)
    if not a or not b:
        return False
    head = [t for t, _ in a[0]]
    return len(head) >= 2 and head == [t for t, _ in b[0]]
