"""Reading order by recursive XY-cut, columns first.

At each level the boxes are projected on the x axis: if a vertical gap of at least
``min_gap`` separates them, the page is read column by column (left to right); otherwise the
y projection is cut into horizontal bands (top to bottom). A full-width title or paragraph
blocks the column cut, so a title over two columns reads title, left column, right column;
two columns under a full-width band and over another read band, left, right, band. A set that
no gap divides is read top to bottom, then left to right. Consecutive bands that each divide
into columns, and whose union still does, are read as one band (column by column), so headings
level with each other across two columns do not interleave the columns.

Projections shrink each box a little (``slack``) so that neighbours whose boxes overlap by a
few pixels (common with layout models) do not hide a real gap.

A *container* (one of the ``frames`` holding at least ``CONTAINED`` of another box's area, and
at least twice as large: a picture drawn behind a page of cards) takes no part in
the cuts, since it would bridge every gap it spans; it is read right before the first box it
holds.
"""

from __future__ import annotations

from itertools import pairwise

from workbench.engines.cpu.boxes import Box, area, cover

CONTAINED = 0.9  # a frame holding 90 % of a box holds it: a picture behind cards


def reading_order(
    boxes: list[Box],
    min_gap: float = 8.0,
    numbers: list[float | None] | None = None,
    frames: set[int] | None = None,
) -> list[int]:
    """Indices of ``boxes`` in reading order. ``numbers``: each box's section number (a
    numbered heading's "2"), or None; when the column-first order reads three numbers or more
    out of sequence and the row-first order (:func:`_by_rows`) reads them in sequence, the
    page is a grid numbered by rows, and is read by rows. ``frames``: the boxes that may be
    containers (all when None; compose passes its empty pictures: a text block whose box
    happens to span others is not a frame)."""
    frames = set(range(len(boxes))) if frames is None else frames
    held = {i: [j for j, b in enumerate(boxes) if j != i and _holds(boxes[i], b)] for i in frames}
    containers = {i for i, js in held.items() if js}
    idx = [i for i in range(len(boxes)) if i not in containers]
    order: list[int] = []
    _cut(idx, boxes, min_gap, order, 0, (0, 1))
    if numbers and not _ascending(order, numbers):
        by_rows = _by_rows(idx, boxes, min_gap, numbers)
        if _ascending(by_rows, numbers):
            order = by_rows
    if not order:  # every box holds another (identical boxes): plain top-to-bottom order
        return sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0]))
    # outermost containers last, so each lands before whatever it holds, itself included
    for i in sorted(containers, key=lambda i: area(boxes[i])):
        rank = {k: n for n, k in enumerate(order)}
        first = min((rank[j] for j in held[i] if j in rank), default=len(order))
        order.insert(first, i)
    return order


def _by_rows(
    idx: list[int], boxes: list[Box], min_gap: float, numbers: list[float | None]
) -> list[int]:
    """Bands that each start at a row holding a numbered heading (a row of cards: headings,
    then what is under them), each read column by column."""
    rows: list[list[int]] = []
    for band in _split(idx, boxes, 1, min_gap) if idx else []:
        if rows and all(numbers[i] is None for i in band):
            rows[-1].extend(band)
        else:
            rows.append(band)
    out: list[int] = []
    for row in rows:
        _cut(row, boxes, min_gap, out, 1, (0, 1))
    return out


def _ascending(order: list[int], numbers: list[float | None]) -> bool:
    seq = [n for i in order if (n := numbers[i]) is not None]
    return len(seq) < 3 or all(a < b for a, b in pairwise(seq))


def _holds(outer: Box, inner: Box) -> bool:
    return cover(inner, outer) >= CONTAINED and area(outer) >= 2 * max(area(inner), 1.0)


def _cut(
    idx: list[int], boxes: list[Box], min_gap: float, out: list[int], depth: int,
    axes: tuple[int, int],
) -> None:  # fmt: skip
    if len(idx) <= 1 or depth > 60:
        out.extend(sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0])))
        return
    for axis in axes:  # 0: columns (x), 1: bands (y)
        groups = _split(idx, boxes, axis, min_gap)
        if axis == 1 and axes[0] == 0:
            groups = _join_columns(groups, boxes, min_gap)
        if len(groups) > 1:
            for g in groups:
                _cut(g, boxes, min_gap, out, depth + 1, axes)
            return
    out.extend(sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0])))


def _join_columns(groups: list[list[int]], boxes: list[Box], min_gap: float) -> list[list[int]]:
    """Consecutive bands that each split into columns, and whose union still does, are one
    band: headings level across two columns (a band of their own) must not pull the columns
    apart into heading row, text row, heading row ..."""
    out: list[list[int]] = []
    for g in groups:
        if (
            out
            and len(_split(g, boxes, 0, min_gap)) > 1
            and len(_split(out[-1], boxes, 0, min_gap)) > 1
        ):
            joined = out[-1] + g
            if len(_split(joined, boxes, 0, min_gap)) > 1:
                out[-1] = joined
                continue
        out.append(g)
    return out


def _split(idx: list[int], boxes: list[Box], axis: int, min_gap: float) -> list[list[int]]:
    """Groups of ``idx`` separated by gaps of at least ``min_gap`` along ``axis``."""
    spans = []
    for i in idx:
        lo, hi = boxes[i][axis], boxes[i][axis + 2]
        slack = min(3.0, 0.05 * (hi - lo))
        spans.append((lo + slack, hi - slack, i))
    spans.sort()
    groups: list[list[int]] = [[spans[0][2]]]
    end = spans[0][1]
    for lo, hi, i in spans[1:]:
        if lo - end >= min_gap:
            groups.append([i])
        else:
            groups[-1].append(i)
        end = max(end, hi)
    return groups
