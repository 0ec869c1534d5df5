"""Multi-line cells: rows of a table's body that hold the continuation lines of a cell join
their row.

A row with no number in it joins a neighbouring row

* when it is set clearly closer to that row than rows are to each other (its gap under the
  median gap between body rows less ``TIGHT_ROW`` line heights, and under half a line height:
  a label wrapped around a row centred on it: "StarCoder / filtered version / from OLMoE
  Mix");
* or, into the row above, when its first column is empty while the row above's is not (text
  wrapped inside a later column, rows top-aligned);
* or, a first-column-only row, into the row below when that row's label starts in lower case
  (a wrapped label whose numbers sit on its last line), or into the row above when it itself
  starts in lower case and the row above has numbers (numbers on the first line);

and never into a column where the other row has a number. Section rows ("Operating
expenses:", "Proteomics | Clustering") stay rows.
"""

from __future__ import annotations

from itertools import pairwise

from workbench.engines.cpu.boxes import median
from workbench.engines.cpu.tables import fragments as frag
from workbench.engines.cpu.tables.cells import Row, join_rows

TIGHT_ROW = 0.3  # body rows this much (× line height) closer than the median row gap: one cell


def multiline(rows: list[Row]) -> list[Row]:
    """Rows holding the continuation lines of multi-line cells join their row (docstring)."""
    if len(rows) < 2:
        return rows
    gaps = [b.top - a.bottom for a, b in pairwise(rows)]
    typical = median(gaps)
    line_h = median([r.height() for r in rows], 1.0)
    tight = min(typical - TIGHT_ROW * line_h, 0.5 * line_h)  # clearly closer than rows are
    labelled = sum(0 in r.slots for r in rows) >= 0.6 * len(rows)
    moves: list[int] = []  # -1: into the row above, +1: into the row below, 0: stays
    for k, row in enumerate(rows):
        above = rows[k - 1] if k > 0 else None
        below = rows[k + 1] if k + 1 < len(rows) else None
        move = 0
        if not row.numeric():
            up = above is not None and _fits(row, above)
            down = below is not None and _fits(row, below)
            gu = gaps[k - 1] if k > 0 else float("inf")
            gd = gaps[k] if k < len(gaps) else float("inf")
            only_label = set(row.slots) == {0} and row.slots[0].c1 == 0
            label = row.slots[0].text if 0 in row.slots else ""
            if up and gu < tight and (not down or gu <= gd):
                move = -1
            elif down and gd < tight:
                move = 1
            elif up and labelled and 0 not in row.cols() and above and 0 in above.slots:
                move = -1
            elif only_label and down and below and _starts_lower(below) and label[-1:] != ":":
                move = 1
            elif only_label and up and above and above.numeric() and label[:1].islower():
                move = -1
        moves.append(move)
    out: list[Row] = []
    pending: Row | None = None
    for row, move in zip(rows, moves, strict=True):
        if pending is not None:
            row = join_rows(pending, row)
            pending = None
        if move == -1 and out:
            out[-1] = join_rows(out[-1], row)
        elif move == 1:
            pending = row
        else:
            out.append(row)
    if pending is not None:
        out.append(pending)
    return out


def _fits(row: Row, other: Row) -> bool:
    """``row``'s cells lie where ``other`` has no number."""
    numbers = {
        k for s in other.slots.values() if frag.is_numeric(s.text) for k in range(s.c0, s.c1 + 1)
    }
    return not (row.cols() & numbers)


def _starts_lower(row: Row) -> bool:
    return 0 in row.slots and row.slots[0].text[:1].islower()
