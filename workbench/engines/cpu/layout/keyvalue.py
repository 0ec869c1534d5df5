"""Key/value rows (a form's "Name   sympy", a receipt's "Invoice   118-20457"): one block a
row, key then value, never all the keys and then all the values.

The layout model boxes a form's values as one text block and leaves the keys unboxed (or
boxes both columns apart), so the column-first reading order wrote every key, then every
value. Here, after the ``blocks`` pass, the lines of the page's text blocks (``TEXTY``) are
put in rows (centres within half a line height). A row is a *pair* when it holds exactly two
such lines of two different blocks, the left one short (a key: at most ``KEY_WORDS`` words)
and the gap between them wide: at least ``GAP`` line heights and half the key's width (the
gutter between two columns of prose is narrower than its lines). Consecutive pairs whose
keys start at one left edge and whose values share a left or a right edge (within a line
height), each row at most ``PITCH`` line heights below the last, make a *run*; a run of
``MIN_ROWS`` pairs or more, whose median gap is at least its keys' median width (two columns
of prose set with a wide gutter still have lines wider than it), and whose blocks give at
least ``CONSUMED`` of their lines to it (a column of prose beside a short list keeps most of
its lines elsewhere) becomes one ``key_value`` block a row, and the blocks it emptied are
dropped. A value shares its row with its key, so it is no displayed formula (the text layer
took a lone ">=3.9" for one). The reading-order pass then reads the rows top to bottom,
since each spans both columns.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line, median, rows, union_all
from workbench.engines.cpu.page import Block, Page

TEXTY = {"text", "reference", "ocr_lines", "FLOWING_TEXT", "PULLOUT_TEXT"}
KEY_WORDS = 6  # a key is a label ("Author-email", "Apples Gala 2.1 lb"), not a sentence
GAP = 2.0  # key to value, in line heights: wider than the gutter between two prose columns
MIN_ROWS = 3  # fewer pairs: two lines that happen to share a row
PITCH = 4.0  # a row further below the last (line heights) starts another run
CONSUMED = 0.7  # share of a block's lines a run must take for the block to be a key/value column


def key_values(page: Page) -> Page:
    owner: dict[int, int] = {}  # id(line) -> id(its block)
    lines: list[Line] = []
    for b in page.blocks:
        if b.native in TEXTY and not b.crop:
            for ln in b.lines:
                owner[id(ln)] = id(b)
                lines.append(ln)
    h = max(page.line_h, 1.0)
    runs: list[list[tuple[Line, Line]]] = []
    run: list[tuple[Line, Line]] = []
    for row in rows(lines):
        pair = _pair(row, owner, h)
        if pair is not None and run and _continues(run, pair, h):
            run.append(pair)
            continue
        if len(run) >= MIN_ROWS:
            runs.append(run)
        run = [pair] if pair is not None else []
    if len(run) >= MIN_ROWS:
        runs.append(run)
    for run in runs:
        _apply(page, run, owner)
    return page


def _pair(row: list[Line], owner: dict[int, int], h: float) -> tuple[Line, Line] | None:
    if len(row) != 2:
        return None
    key, value = sorted(row, key=lambda ln: ln.box[0])
    gap = value.box[0] - key.box[2]
    if owner[id(key)] == owner[id(value)] or len(key.text.split()) > KEY_WORDS:
        return None
    if gap < GAP * h or gap < 0.5 * (key.box[2] - key.box[0]):
        return None
    return key, value


def _continues(run: list[tuple[Line, Line]], pair: tuple[Line, Line], h: float) -> bool:
    (k0, v0), (k, v) = run[-1], pair
    if k.box[1] - k0.box[3] > PITCH * h:
        return False
    same_key = abs(k.box[0] - k0.box[0]) <= h
    same_value = abs(v.box[0] - v0.box[0]) <= h or abs(v.box[2] - v0.box[2]) <= h
    return same_key and same_value and v.box[0] > k0.box[2] and v0.box[0] > k.box[2]


def _apply(page: Page, run: list[tuple[Line, Line]], owner: dict[int, int]) -> None:
    gaps = [value.box[0] - key.box[2] for key, value in run]
    if median(gaps) < median([key.box[2] - key.box[0] for key, _ in run]):
        return  # keys as wide as the gap: two columns of prose with a wide gutter
    taken = {id(ln) for pair in run for ln in pair}
    involved = [b for b in page.blocks if id(b) in {owner[i] for i in taken}]
    for b in involved:
        if sum(id(ln) in taken for ln in b.lines) < CONSUMED * len(b.lines):
            return  # a column of prose beside short lines: not a key/value layout
    out: list[Block] = []
    for _, value in run:  # a value shares its row with its key: no displayed formula
        value.display = False
    for b in page.blocks:
        if b is involved[0]:
            out += [
                Block("key_value", union_all([key.box, value.box]), [key, value], 0.0)
                for key, value in run
            ]
        if any(b is o for o in involved):
            b.lines = [ln for ln in b.lines if id(ln) not in taken]
            if not b.lines:
                continue
        out.append(b)
    page.blocks = out
