"""Reading order by recursive XY-cut, columns first.

At each level the boxes are projected on the x axis: if a vertical gap of at least
``min_gap`` separates them, the page is read column by column (left to right); otherwise the
y projection is cut into horizontal bands (top to bottom). A full-width title or paragraph
blocks the column cut, so a title over two columns reads title, left column, right column;
two columns under a full-width band and over another read band, left, right, band. A set that
no gap divides is read top to bottom, then left to right.

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
        if len(groups) > 1:
            for g in groups:
                _cut(g, boxes, min_gap, out, depth + 1)
            return
    out.extend(sorted(idx, key=lambda i: (boxes[i][1], boxes[i][0])))


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
