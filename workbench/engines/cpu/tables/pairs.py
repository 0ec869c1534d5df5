"""Two-column tables found from alignment: labels beside their figures, keys beside their
values (issue 23 items 2 and 3).

:func:`frag.find_tables` needs three cells a row, so a list of labels with one figure each
("Annotators 14", "Documents annotated 3,920") or a receipt's or form's keys and values
("Subtotal: 11.20", "Date: 12/03/2024") went unfound: the layout model boxes the labels and
the figures apart, and they were read as two paragraphs, all labels then all figures.

A *pair row* is a row of exactly two fragments, the second starting at least ``GAP`` line
heights right of the first's end (two columns, not two words), where either the first is a
label (not a number) and the second a number, or the first is a key ending in ``:``. A run
of at least ``MIN_PAIRS`` consecutive pair rows, each within ``STEP`` line heights of the
one above, whose first cells start level (within one line height) and whose second cells
start or end level, is a table; single label rows may stand between its pair rows, one at a
time, starting level with the labels (a price list's sections). A run whose second cells are
all whole numbers in order (1, 3, 7, 12) is a table of contents, not a table: it is left as
it is.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box, Line
from workbench.engines.cpu.tables.fragments import Fragment, fragments, glue, is_numeric, rows_of

GAP = 2.0  # the two cells this far apart (× line height): two columns, not a word gap
MIN_PAIRS = 3  # fewer pair rows: a line or two of text
STEP = 2.0  # consecutive pair rows at most this far apart (× line height), top to top


def find_pairs(lines: list[Line]) -> list[Box]:
    """Boxes of two-column tables in ``lines`` (module docstring)."""
    rows = [glue(r) for r in rows_of(fragments(lines))]
    found: list[Box] = []
    run: list[list[Fragment]] = []
    for row in [*rows, []]:
        if run and row and _follows(run, row) and (_pair(row) or _section(run, row)):
            run.append(row)
            continue
        while run and not _pair(run[-1]):
            run.pop()  # a section label ends no table: it heads what follows
        pairs = [r for r in run if _pair(r)]
        if len(pairs) >= MIN_PAIRS and _aligned(pairs) and not _contents(pairs):
            boxes = [f[1] for r in run for f in r]
            found.append(
                (
                    min(b[0] for b in boxes),
                    min(b[1] for b in boxes),
                    max(b[2] for b in boxes),
                    max(b[3] for b in boxes),
                )
            )
        run = [row] if _pair(row) else []
    return found


def _section(run: list[list[Fragment]], row: list[Fragment]) -> bool:
    """A section label between pair rows (a price list's "A.O.P Vacqueyras" over its wines):
    one fragment, not a number, starting level with the labels, after a pair row."""
    if len(row) != 1 or not _pair(run[-1]) or is_numeric(row[0][0]):
        return False
    return abs(row[0][1][0] - run[-1][0][1][0]) <= _height(run[-1][0])


def _height(f: Fragment) -> float:
    return max(f[1][3] - f[1][1], 1.0)


def _pair(row: list[Fragment]) -> bool:
    if len(row) != 2:
        return False
    (a, ba), (b, bb) = row
    if bb[0] - ba[2] < GAP * _height(row[0]):
        return False
    key = a.rstrip().endswith(":") and len(a) > 1
    return key or (not is_numeric(a) and is_numeric(b))


def _follows(run: list[list[Fragment]], row: list[Fragment]) -> bool:
    above = run[-1]
    return row[0][1][1] - above[0][1][1] <= STEP * _height(above[0])


def _aligned(run: list[list[Fragment]]) -> bool:
    h = max(_height(r[0]) for r in run)
    lefts = [r[0][1][0] for r in run]
    starts = [r[1][1][0] for r in run]
    ends = [r[1][1][2] for r in run]
    level = max(starts) - min(starts) <= h or max(ends) - min(ends) <= h
    return max(lefts) - min(lefts) <= h and level


def _contents(run: list[list[Fragment]]) -> bool:
    """Second cells all whole numbers in order: page numbers of a table of contents."""
    values = [r[1][0].replace(",", "") for r in run]
    if not all(v.isdigit() for v in values):
        return False
    numbers = [int(v) for v in values]
    return numbers == sorted(numbers)
