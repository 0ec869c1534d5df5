"""Table structure from cell fragments: rows, columns, header rows, spanning and multi-line cells.

:func:`build` turns fragments (:func:`frag.fragments`: text with a box, one per cell piece)
into a :class:`Table`: cells with their row, column, ``rowspan`` and ``colspan``, and how many
of the first rows are the header. :mod:`.render` writes it as a pipe table or HTML.

Rows and columns: rows by vertical overlap (:func:`frag.rows_of`), currency signs glued to
their numbers (``$ 178`` is one cell ``$178``), columns from the fuller rows
(:func:`frag.columns_of`). Each fragment goes to the column it overlaps most; it also takes
the neighbouring columns whose centre lies under it that no other fragment of its row is in
(a section label set across the table, a header wider than its column): a ``colspan``.

Header rows: the rows above the first *body* row, a row of numbers after its label
(:func:`frag.tabular`; a row of years only is a header); rows just above it that have a
label in the first column and fill under half of the columns are section rows of the body
("Proteomics | Clustering"). No numbers at all: the first row is the header.

Spanning headers need at least two header cells under them in the run they span
(sub-headers). A header fragment between others in its row spans the widest run of columns
between its neighbours' that it is centred on (within ``CENTRED`` of the run's width):
"ReACT" over "Procedure / Completion / Knowledge". A header alone in its row spans the run of
number columns under it when it is centred on the run or clearly off the centre of the head
under it ("Year Ended" over three dates); centred on that head it stays there (the first
line of a wrapped head: "Net" over "income"). A header cell with nothing above it in the
header rows spans upward (``rowspan``: "#" beside a two-row header). Two header rows set
close together (gap under ``TIGHT`` × line height) whose cells cover the same columns
("Three Months Ended / September 30,"), or are all one column wide with one row's columns
within the other's or sharing half of them ("Under 18 / years"), are one wrapped header row.

Columns repaired after the header is counted (a sparse headless column, a head set off its
column): :mod:`.columns`.

Multi-line cells of the body: :mod:`.multiline`.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box
from workbench.engines.cpu.tables import fragments as frag
from workbench.engines.cpu.tables.cells import Cell, Row, Slot, Table, join_rows, union
from workbench.engines.cpu.tables.columns import shifted_columns, sparse_columns
from workbench.engines.cpu.tables.multiline import multiline

CENTRED = 0.12  # a spanning header's centre within this share of its run's width
TIGHT = 0.4  # header rows this close (× line height) may be one wrapped header row
MAX_HEADER_ROWS = 5  # a first body row further down: the table has no numbers, one header row

_YEAR = re.compile(r"^(19|20)\d\d$")


def build(frags: list[frag.Fragment]) -> Table:
    rows_f = [frag.glue(r) for r in frag.rows_of(frags)]
    cols = frag.columns_of(rows_f)
    if not cols:
        return Table(0, 0, 0)
    rows = [_place(r, cols) for r in rows_f]
    h = _header_count(rows, len(cols))
    rows, cols = sparse_columns(rows, cols, h)
    rows, cols = shifted_columns(rows, cols, h)
    body = multiline(rows[h:])
    head = _wrapped_header(_spans(rows[:h], cols, _numeric_columns(body)))
    return _cells(head, body, len(cols))


def _column(box: Box, cols: list[tuple[float, float]]) -> int:
    best, best_overlap = -1, 0.0
    for k, (lo, hi) in enumerate(cols):
        overlap = min(box[2], hi) - max(box[0], lo)
        if overlap > best_overlap:
            best, best_overlap = k, overlap
    if best >= 0:
        return best
    cx = (box[0] + box[2]) / 2
    return min(range(len(cols)), key=lambda k: abs((cols[k][0] + cols[k][1]) / 2 - cx))


def _place(row: list[frag.Fragment], cols: list[tuple[float, float]]) -> Row:
    """Fragments to columns; a fragment also spans the free columns whose centre it covers."""
    best = [_column(box, cols) for _, box in row]
    slots: dict[int, Slot] = {}
    for (text, box), b in zip(row, best, strict=True):
        if b in slots:  # two fragments in one cell
            s = slots[b]
            s.text, s.box = f"{s.text} {text}", union(s.box, box)
            continue
        slots[b] = Slot(text, b, b, box)
    taken = set(slots)
    for s in slots.values():
        while s.c0 > 0 and _under(s.c0 - 1, s, cols, taken):
            s.c0 -= 1
        while s.c1 < len(cols) - 1 and _under(s.c1 + 1, s, cols, taken):
            s.c1 += 1
        taken |= set(range(s.c0, s.c1 + 1))
    top = min(f[1][1] for f in row)
    bottom = max(f[1][3] for f in row)
    return Row({s.c0: s for s in slots.values()}, top, bottom)


def _under(k: int, s: Slot, cols: list[tuple[float, float]], taken: set[int]) -> bool:
    centre = (cols[k][0] + cols[k][1]) / 2
    return k not in taken and s.box[0] <= centre <= s.box[2]


def _is_body(row: Row) -> bool:
    texts = [s.text for s in sorted(row.slots.values(), key=lambda s: s.c0)]
    if 0 not in row.cols() and all(_YEAR.match(t) for t in texts):
        return False  # "2023 | 2022 | 2021": a header of years
    frags: list[frag.Fragment] = [(t, (0.0, 0.0, 0.0, 0.0)) for t in texts]
    return frag.tabular(frags)


def _header_count(rows: list[Row], n_cols: int) -> int:
    first = next((k for k, r in enumerate(rows) if _is_body(r)), None)
    if first is None or first > MAX_HEADER_ROWS:
        return 1
    h = first
    while h > 1 and 0 in rows[h - 1].cols() and len(rows[h - 1].cols()) < n_cols / 2:
        h -= 1  # a section row ("Proteomics | Clustering") right above the first body row
    return max(h, 1)


def _single(row: Row) -> set[int] | None:
    """The columns of a row whose cells are all one column wide (else None)."""
    if any(s.c0 != s.c1 for s in row.slots.values()):
        return None
    return set(row.slots)


def _extents(row: Row) -> set[tuple[int, int]]:
    return {(s.c0, s.c1) for s in row.slots.values()}


def _wrapped_header(rows: list[Row]) -> list[Row]:
    out: list[Row] = []
    for row in rows:
        if out:
            up, me = _single(out[-1]), _single(row)
            gap = row.top - out[-1].bottom
            tight = gap < TIGHT * max(row.height(), out[-1].height())
            shared = len(up & me) if up is not None and me is not None else 0
            same = _extents(out[-1]) == _extents(row)  # "Three Months Ended / September 30,"
            if tight and (
                same
                or (up and me and (up <= me or me <= up or 2 * shared >= min(len(up), len(me))))
            ):
                out[-1] = join_rows(out[-1], row)
                continue
        out.append(row)
    return out


def _numeric_columns(body: list[Row]) -> set[int]:
    """Columns whose body cells are mostly numbers, in at least 30 % of the body rows."""
    counts: dict[int, list[bool]] = {}
    for row in body:
        for s in row.slots.values():
            if s.c0 == s.c1:
                counts.setdefault(s.c0, []).append(frag.is_numeric(s.text))
    # a sparse column (a "$" column, a stray mark) does not join number columns into a run
    return {k for k, v in counts.items() if sum(v) > len(v) / 2 and len(v) >= 0.3 * len(body)}


def _numeric_run(k: int, numeric: set[int]) -> tuple[int, int]:
    a = b = k
    while a - 1 in numeric:
        a -= 1
    while b + 1 in numeric:
        b += 1
    return a, b


def _spans(rows: list[Row], cols: list[tuple[float, float]], numeric: set[int]) -> list[Row]:
    """Group headers over their sub-headers span those columns (module docstring)."""
    for r, row in enumerate(rows):
        below = rows[r + 1 :]
        ordered = sorted(row.slots.values(), key=lambda s: s.c0)
        for k, s in enumerate(ordered):
            centre = (s.box[0] + s.box[2]) / 2
            a, b = s.c0, s.c1
            if len(ordered) == 1 and below:
                # alone in its row: over all the number columns under it, when it is centred
                # on them or clearly not on its own column ("Year Ended" over the years);
                # centred on its own column it is one ("American" over "Indian/Alaskan")
                na, nb = _numeric_run(s.c0, numeric) if s.c0 in numeric else (a, a)
                sub = next((t for t in below[0].slots.values() if t.c0 <= s.c0 <= t.c1), None)
                x0, x1 = (sub.box[0], sub.box[2]) if sub is not None else cols[s.c0]
                off = abs(centre - (x0 + x1) / 2) > 0.25 * (x1 - x0)
                centred = _centred(centre, (na, nb), cols) == (na, nb)
                if na < nb and (centred or off) and set(range(na, nb + 1)) <= below[0].cols():
                    a, b = min(a, na), max(b, nb)
            elif a == b:
                lo = ordered[k - 1].c1 + 1 if k > 0 else 0
                hi = ordered[k + 1].c0 - 1 if k + 1 < len(ordered) else len(cols) - 1
                left = ordered[k - 1].box[2] if k > 0 else float("-inf")
                right = ordered[k + 1].box[0] if k + 1 < len(ordered) else float("inf")
                a, b = _zone(s.c0, left, right, cols)
                a, b = _centred(centre, (max(a, lo), min(b, hi)), cols)
            subs = max((sum(a <= c <= b for c in lower.slots) for lower in below), default=0)
            if (a, b) != (s.c0, s.c1) and a < b and subs >= 2:
                del row.slots[s.c0]
                s.c0, s.c1 = a, b
                row.slots[a] = s
    return rows


def _zone(k: int, left: float, right: float, cols: list[tuple[float, float]]) -> tuple[int, int]:
    """The run of columns around ``k`` that lie between ``left`` and ``right``."""
    a = b = k
    while a > 0 and cols[a - 1][0] >= left:
        a -= 1
    while b < len(cols) - 1 and cols[b + 1][1] <= right:
        b += 1
    return a, b


def _centred(
    centre: float, run: tuple[int, int], cols: list[tuple[float, float]]
) -> tuple[int, int]:
    """The widest part of ``run`` that ``centre`` is the centre of (within ``CENTRED``),
    dropping the farther end column at a time; one column when none is."""
    a, b = run
    while a < b:
        width = cols[b][1] - cols[a][0]
        if abs((cols[a][0] + cols[b][1]) / 2 - centre) <= CENTRED * width:
            break
        if centre - cols[a][0] > cols[b][1] - centre:
            a += 1
        else:
            b -= 1
    return a, b


def _cells(head: list[Row], body: list[Row], n_cols: int) -> Table:
    rows = head + body
    cells: list[Cell] = []
    owner: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(rows):
        for s in sorted(row.slots.values(), key=lambda s: s.c0):
            cell = Cell(s.text, r, s.c0, 1, s.c1 - s.c0 + 1)
            if r < len(head):  # nothing above it in the header: it spans up
                top = r
                while top > 0 and all((top - 1, c) not in owner for c in range(s.c0, s.c1 + 1)):
                    top -= 1
                cell.row, cell.rowspan = top, r - top + 1
            for rr in range(cell.row, r + 1):
                for c in range(s.c0, s.c1 + 1):
                    owner[(rr, c)] = cell
            cells.append(cell)
    cells.sort(key=lambda c: (c.row, c.col))
    return Table(len(rows), n_cols, len(head), cells)
