"""Ruled tables: cell grids from a born-digital page's ruling lines, by pdfplumber (MIT).

Where a PDF draws its table's rules, the cells are in the drawing, not only in how the words
line up. :func:`grids` gives the ruling lines of the page's text layer
(:attr:`~workbench.schema.TextLayer.edges`, points) to pdfplumber's table finder (its
``lines`` strategy: snap and join the edges, find their crossings, the cells between four
crossings, and the tables of touching cells), with pdfplumber's default tolerances, and keeps
every table of at least ``MIN_ROWS`` rows and ``MIN_COLS`` columns as a :class:`Grid` in
``page_px``. pdfplumber is imported only when a page has edges; a page ruled like graph paper
(more than ``MAX_CROSSINGS`` crossings of its rules) is left to the word-alignment grid.

:func:`grid_table` fills a grid with the words of a table block (a word belongs to the cell
its centre is in) and lays it out as pdfplumber's ``extract_tables`` does: a row for each
distinct cell top, a column for each distinct cell left, a position no cell starts at empty;
but a row with no word thinner than the block's median line (the gap between the two rules
of a double rule, ruled under every row of an election return) is no row, and a ruled row
that stacks several table rows (rules around column groups only: a census table's 24
districts in one ruled band, every value cell a column of figures, line for line with the
names) is read as one row per line (:func:`_stacked`).
Measured on the corpus of issue 35 (``benchmarks/corpus/README.md``): replacing the engine's
grid with pdfplumber's on ruled tables raised TEDS on both halves.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from workbench.engines.cpu.boxes import Box, Line, median
from workbench.engines.cpu.page import Grid
from workbench.engines.cpu.tables.cells import Cell, Table
from workbench.engines.cpu.tables.fragments import is_value

#: a word of a ruled cell: (its line's top, its left, its place in the line, its text)
Placed = tuple[float, float, int, str]

TOLERANCE = 3.0  # points: pdfplumber's snap, join and intersection tolerances
MIN_EDGE = 3.0  # points: pdfplumber's ``edge_min_length``
#: more rule crossings than this: not read (pdfplumber's cell search grows with them: graph
#: paper's 101 × 101 lines took 2 s); the corpus's ruled pages have at most 763
MAX_CROSSINGS = 3000
MIN_ROWS = 2  # one ruled row is a box around text, not a table
MIN_COLS = 2
COVER = 0.5  # a table block uses a grid this much of which lies inside the block's box
HOLDS = 0.8  # ... and that holds this share of the block's words


def grids(edges: Sequence[tuple[float, float, float, float]], sx: float, sy: float) -> list[Grid]:
    """The ruled tables of a page whose ruling ``edges`` are in points; ``sx``/``sy``: points
    to ``page_px``."""
    if len(edges) < 4:  # a grid of 2 × 2 cells needs at least 6 edges; a box, 4
        return []
    try:
        from pdfplumber import table as finder  # lazy: only born-digital pages with rules
        from pdfplumber import utils
    except ImportError:  # a trimmed install: tables are read from how their words line up
        return []
    objs = [_edge(e) for e in edges]
    merged = finder.merge_edges(objs, TOLERANCE, TOLERANCE, TOLERANCE, TOLERANCE)
    kept = utils.filter_edges(merged, min_length=MIN_EDGE)
    crossings = finder.edges_to_intersections(kept, TOLERANCE, TOLERANCE)
    if len(crossings) > MAX_CROSSINGS:  # graph paper, a chart's grid: no table
        return []
    out = []
    for group in finder.cells_to_tables(finder.intersections_to_cells(crossings)):
        if len({c[1] for c in group}) < MIN_ROWS or len({c[0] for c in group}) < MIN_COLS:
            continue
        cells = tuple((c[0] * sx, c[1] * sy, c[2] * sx, c[3] * sy) for c in group)
        out.append(Grid(cells))
    return out


def rules(
    edges: Sequence[tuple[float, float, float, float]], sx: float, sy: float
) -> list[tuple[float, float, float]]:
    """The horizontal ones of a page's ruling ``edges`` (points) as ``(x0, y, x1)`` in
    ``page_px`` (:mod:`.banded` reads row-ruled tables from them)."""
    return [
        (x0 * sx, (top + bottom) / 2 * sy, x1 * sx)
        for x0, top, x1, bottom in edges
        if bottom - top <= TOLERANCE and x1 - x0 >= MIN_EDGE
    ]


def _edge(e: tuple[float, float, float, float]) -> dict[str, object]:
    x0, top, x1, bottom = e
    flat = bottom - top <= x1 - x0
    return {
        "x0": x0,
        "x1": x1,
        "top": top,
        "bottom": bottom,
        "width": x1 - x0,
        "height": bottom - top,
        "orientation": "h" if flat else "v",
        "object_type": "line",
    }


def grid_for(box: Box, found: Sequence[Grid]) -> Grid | None:
    """The grid a table block of ``box`` reads: the one most inside it, if ``COVER`` is."""
    best, share = None, COVER
    for g in found:
        gb = g.box
        inside = _overlap(gb, box) / max(_area(gb), 1e-6)
        if inside >= share:
            best, share = g, inside
    return best


def holds(grid: Grid, lines: Sequence[Line]) -> bool:
    """Whether ``grid`` is the table of a block of ``lines``: at least ``HOLDS`` of their words
    lie in its cells (rules around a part of a table, a header's column groups, frame only
    that part: the rest of the table would be left outside the grid)."""
    words = [w for ln in lines for w in ln.words or []]
    inside = sum(_cell_of(grid, w.box) is not None for w in words)
    return bool(words) and inside >= HOLDS * len(words)


def _cell_of(grid: Grid, box: Box) -> Box | None:
    """The cell ``box``'s centre is in; the smallest where cells overlap (pdfplumber gives a
    header's corner cell that reaches across unruled corners as one cell over its neighbours:
    the whole header of an Indian census table was read into its first cell)."""
    inside = [c for c in grid.cells if _holds(c, box)]
    return min(inside, key=_area) if inside else None


def grid_table(grid: Grid, lines: Sequence[Line]) -> tuple[Table, list[Line], list[Line]]:
    """``grid`` filled with the words of ``lines``: the table, and the lines with no word in
    any cell above and below it (a title or a note the block's box also held). A frame (a
    cell pdfplumber gives around other cells, where a header's rules stop short: the title
    and corner of a census table) is no cell: its lines above the cells inside it are the
    table's title (above), its other words go to the row and column their place gives."""
    cells, frames = _unframed(grid.cells)
    xs = sorted({c[0] for c in cells})
    tops = sorted({c[1] for c in cells})
    texts: dict[Box, list[Placed]] = {c: [] for c in cells}
    above: list[Line] = []
    below: list[Line] = []
    within, framing = Grid(tuple(cells)), Grid(frames)
    # a frame's title lies above every cell it holds (read before any slot is added)
    title_under = {f: min((c[1] for c in cells if _holds(f, c)), default=f[1]) for f in frames}
    for ln in lines:
        placed = titled = False
        for k, w in enumerate(ln.words or []):
            cell = _cell_of(within, w.box)
            if cell is None and (frame := _cell_of(framing, w.box)) is not None:
                if (w.box[1] + w.box[3]) / 2 < title_under[frame]:
                    titled = True  # above every cell the frame holds: the title
                    continue
                cell = _slot(w.box, xs, tops, cells)
                texts.setdefault(cell, [])
            if cell is not None:  # lines top to bottom, a line's words in its order
                texts[cell].append((ln.box[1], ln.box[0], k, w.text))
                placed = True
        if not placed:
            (above if titled or ln.box[3] <= grid.box[1] + 1 else below).append(ln)
    # a row of no text thinner than a line of text is the gap of a double rule: no row
    line_h = median([ln.height for ln in lines], 0.0)
    spacer = {
        top
        for top in tops
        if all(not texts[c] for c in cells if c[1] == top)
        and max(c[3] - c[1] for c in cells if c[1] == top) < line_h
    }
    kept = [t for t in tops if t not in spacer]
    first_col = xs[0]
    rows_of: dict[float, list[list[float]]] = {}  # a kept top: its lines' tops, grouped by row
    for top in kept:
        row = [c for c in cells if c[1] == top]
        rows_of[top] = _stacked(row, texts, first_col, line_h) or [[]]
    base, at = {}, 0
    for top in kept:
        base[top], at = at, at + len(rows_of[top])
    out = []
    for c in cells:
        if c[1] in spacer:
            continue
        groups = rows_of[c[1]]
        for g, ys in enumerate(groups):
            words = sorted(w for w in texts[c] if not ys or w[0] in ys)
            if ys or g == 0:
                out.append(Cell(" ".join(w[3] for w in words), base[c[1]] + g, xs.index(c[0])))
    return Table(at, len(xs), 1, out), above, below


def _stacked(
    row: list[Box], texts: dict[Box, list[Placed]], first_col: float, line_h: float
) -> list[list[float]] | None:
    """The rows stacked in one ruled row, each as the tops of its text lines, or None when the
    row is one row. Stacked: at least two cells hold two or more lines, and every line of
    every cell but the first column's (the row labels) is a value (:func:`~.fragments.is_value`:
    a figure, a dash, a code), so a header's wrapped words or a wrapped description never
    split. Lines within half a line's height are one row; a line with a label and no value (a
    wrapped label) belongs to the row above."""
    if line_h <= 0 or any(c[3] != row[0][3] for c in row):  # a cell spanning rows: as it is
        return None
    lines: dict[Box, dict[float, list[str]]] = {}
    for c in row:
        for top, _x, _k, text in sorted(texts[c]):
            lines.setdefault(c, {}).setdefault(top, []).append(text)
    if sum(len(by_top) > 1 for by_top in lines.values()) < 2:
        return None
    valued: set[float] = set()
    for c, by_top in lines.items():
        if c[0] == first_col:
            continue
        for top, words in by_top.items():
            if not is_value(" ".join(words)):
                return None
            valued.add(top)
    groups: list[list[float]] = []
    for top in sorted({t for by_top in lines.values() for t in by_top}):
        if groups and (top - groups[-1][-1] < line_h / 2 or top not in valued):
            groups[-1].append(top)
        elif top in valued or not groups:
            groups.append([top])
    if len(groups) < 2:
        return None
    return groups


def _unframed(cells: Sequence[Box]) -> tuple[list[Box], tuple[Box, ...]]:
    """``cells`` without their frames (cells holding the centres of two or more others), and
    the frames. Only a cell that spans a boundary of the others can be one (bisect first:
    a grid may have thousands of cells)."""
    xs = sorted({c[0] for c in cells})
    tops = sorted({c[1] for c in cells})
    frames = [
        c
        for c in cells
        if _crosses(xs, c[0], c[2])
        and _crosses(tops, c[1], c[3])
        and sum(d != c and _holds(c, d) for d in cells) >= 2
    ]
    return [c for c in cells if c not in frames], tuple(frames)


def _crosses(edges: list[float], lo: float, hi: float) -> bool:
    """Whether one of the sorted ``edges`` lies strictly between ``lo`` and ``hi``."""
    k = bisect_right(edges, lo)
    return k < len(edges) and edges[k] < hi


def _holds(c: Box, box: Box) -> bool:
    """Whether ``box``'s centre lies in ``c`` (left and top edges in, right and bottom out)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return c[0] <= cx < c[2] and c[1] <= cy < c[3]


def _slot(box: Box, xs: list[float], tops: list[float], cells: list[Box]) -> Box:
    """A cell for a word a frame held: the column and row its centre falls in (the last
    column left of it, the last row above it), added to ``cells``."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    i, j = max(bisect_right(xs, cx) - 1, 0), max(bisect_right(tops, cy) - 1, 0)
    x1 = xs[i + 1] if i + 1 < len(xs) else max(c[2] for c in cells)
    y1 = tops[j + 1] if j + 1 < len(tops) else max(c[3] for c in cells)
    slot = (xs[i], tops[j], x1, y1)
    if slot not in cells:
        cells.append(slot)
    return slot


def _area(b: Box) -> float:
    return max(b[2] - b[0], 0.0) * max(b[3] - b[1], 0.0)


def _overlap(a: Box, b: Box) -> float:
    return _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))
