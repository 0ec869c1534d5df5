"""Column repairs of the word-alignment grid (:mod:`.grid`), after its rows are placed and
its header rows counted: a sparse headless column joins its left neighbour
(:func:`sparse_columns`), a head set off its column joins it (:func:`shifted_columns`).
Each takes and returns the rows and the columns' x ranges; rows are changed in place.
"""

from __future__ import annotations

from workbench.engines.cpu.tables import fragments as frag
from workbench.engines.cpu.tables.cells import Row, union

SPARSE = 0.25  # a headless column filled in at most this share of body rows is no column


def sparse_columns(
    rows: list[Row], cols: list[tuple[float, float]], h: int
) -> tuple[list[Row], list[tuple[float, float]]]:
    """A column with no header, text in at most ``SPARSE`` of the body rows and no number
    (a dot leader OCR'd as "cooiiiii" in one row) is no column: its cells join the cell on
    their left, so the row's figures stay under their heads."""
    body = rows[h:]
    for k in range(len(cols) - 1, 0, -1):
        cells = [r.slots[k] for r in body if k in r.slots]
        if (
            len(body) < 4
            or len(cells) > SPARSE * len(body)
            or any(k in r.cols() for r in rows[:h])
            or any(frag.is_numeric(c.text) for c in cells)
            or any(s.c0 < k <= s.c1 or s.c0 == k < s.c1 for r in rows for s in r.slots.values())
        ):
            continue
        cols = merge_left(rows, cols, k)
    return rows, cols


def shifted_columns(
    rows: list[Row], cols: list[tuple[float, float]], h: int
) -> tuple[list[Row], list[tuple[float, float]]]:
    """Two neighbouring columns, one with text in the header rows only and the other in the
    body rows only, are one column: a head set off its figures (a centred "Loans from GIC"
    over a column of dashes set to the right of it) had made two half-empty columns, the
    held-out set's "spurious empty column" and "header shifted one column from the body"."""
    body = rows[h:]
    if h == 0 or len(body) < 2:
        return rows, cols
    for k in range(len(cols) - 1, 0, -1):
        if any(s.c0 != s.c1 and s.c0 <= k <= s.c1 + 1 for r in rows for s in r.slots.values()):
            continue  # a spanning cell reaches one of the two: not a simple split
        head = [any(c in r.cols() for r in rows[:h]) for c in (k - 1, k)]
        filled = [any(c in r.cols() for r in body) for c in (k - 1, k)]
        if head[0] != head[1] and filled[0] != filled[1] and head[0] != filled[0]:
            cols = merge_left(rows, cols, k)
    return rows, cols


def merge_left(
    rows: list[Row], cols: list[tuple[float, float]], k: int
) -> list[tuple[float, float]]:
    """Column ``k`` joined to column ``k - 1`` in every row (a cell of both: one cell, the
    texts in order); the columns right of it move left. Returns the new columns."""
    for r in rows:
        moved = r.slots.pop(k, None)
        left = next((s for s in r.slots.values() if s.c0 <= k - 1 <= s.c1), None)
        if moved is not None and left is not None:
            left.text, left.box = f"{left.text} {moved.text}", union(left.box, moved.box)
        elif moved is not None:
            moved.c0 = moved.c1 = k - 1
            r.slots[k - 1] = moved
        for s in sorted((s for s in r.slots.values() if s.c0 > k), key=lambda s: s.c0):
            del r.slots[s.c0]
            s.c0, s.c1 = s.c0 - 1, s.c1 - 1
            r.slots[s.c0] = s
    return [*cols[: k - 1], (cols[k - 1][0], cols[k][1]), *cols[k + 1 :]]
