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
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box


def reading_order(boxes: list[Box], min_gap: float = 8.0) -> list[int]:
    """Indices of ``boxes`` in reading order."""
    order: list[int] = []
    _cut(list(range(len(boxes))), boxes, min_gap, order, depth=0)
    return order


def _cut(idx: list[int], boxes: list[Box], min_gap: float, out: list[int], depth: int) -> None:
    if len(idx) <= 1 or depth > 60:
        out.extend(sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0])))
        return
    for axis in (0, 1):  # 0: columns (x), 1: bands (y)
        groups = _split(idx, boxes, axis, min_gap)
        if axis == 1:
            groups = _join_columns(groups, boxes, min_gap)
        if len(groups) > 1:
            for g in groups:
                _cut(g, boxes, min_gap, out, depth + 1)
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
