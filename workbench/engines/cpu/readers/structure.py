"""Structural evidence that a reading is poor, for honest confidence (issue 23).

The words of a born-digital page are exact (the text layer's own), so :mod:`.evidence` has
nothing to hold against them; what goes wrong there is the *structure* the passes built. Three
traces of a structure the engine did not settle, each measured on the finished blocks, never
on any document's words:

* **side-by-side tables** (:func:`split_grid`, one table block): two tables set next to each
  other and read as one grid. Their trace is a gutter inside the grid: of the table's column
  gaps (the x-ranges no word of any row covers, at least ``COLUMN_GAP`` line heights wide),
  one is ``GUTTER_RATIO`` times wider than every other and has columns on both sides. One
  grid's gaps are alike (a label column's gap is the only wide one and has a single column
  on its left); two grids set apart leave a gutter. The table's confidence is multiplied by
  ``SPLIT_GRID``.
* **rows read as columns** (:func:`rows_apart`, the page): a key/value layout (a form, a
  receipt) whose keys became one-line blocks of their own and whose values became one block
  beside them, so the Markdown gives all keys, then all values. Its trace: ``MIN_ROWS``
  consecutive lines of one block, each with a one-line text block of its own on the same
  row, outside the block. Prose columns do not leave it (a column's lines belong to one
  block, not one block each; a heading the neighbouring column cut out is one row, not a
  run of them).
* **debris** (:func:`debris`, the page): text blocks too short to be prose and without a
  word in them (no run of ``WORD_LETTERS`` letters once inline TeX is set aside, at most
  ``DEBRIS_CHARS`` letters and digits, one or two lines): list numbers cut from their items,
  pieces of a formula set as text, a formula's sub- and superscripts. One or two on a page
  are common noise (a stray page number, a marker); ``MIN_DEBRIS`` or more, and a share of
  ``DEBRIS_SHARE`` of the text blocks, mean the page's formulas and order came apart.

Order and grouping belong to the page, not to one block: when rows were read as columns or
the page fell into debris, no block's place in the reading is sure, so every block with text
gets the page's factor (``ROWS_APART``, ``1 − share of debris``, at least ``DEBRIS_FLOOR``).
:func:`apply` records the product on each block (``Block.structure``), which
:attr:`~..page.Block.confidence` multiplies in; ``benchmarks/cpu_confidence.py --devset``
measures each signal's effect on the scored development set.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box
from workbench.engines.cpu.page import Block, Page
from workbench.schema import Label

# side-by-side tables: gaps narrower than this (line heights) are spaces between a cell's
# words (0.3-0.5 line heights), not between columns
COLUMN_GAP = 1.0
# widest over next-widest column gap: 1.2-1.9 on the devset's single grids, 3.1 on two tables
GUTTER_RATIO = 2.5
SPLIT_GRID = 0.5  # a grid of two tables: its rows pair cells of different tables
MIN_ROWS = 3  # one-line blocks on rows of another block: one or two are a heading or a label
ROW_OVERLAP = 0.5  # two lines share a row when they overlap by half the taller one's height
ROWS_APART = 0.5  # rows read as columns: the page's order pairs nothing with its partner
WORD_LETTERS = 3  # a run of 3 letters is a word ("of", "x", "n" are not evidence of prose)
DEBRIS_CHARS = 12  # letters and digits of a piece: "2.", "p,q 0", "$Z_{\\infty}$ 0"
MIN_DEBRIS = 3  # a stray page number or marker or two is noise, not a page come apart
DEBRIS_SHARE = 0.3  # ...and a few among many text blocks is a long page's noise
DEBRIS_FLOOR = 0.3  # a page of pieces keeps this much of its confidence

_WORD = re.compile(rf"[^\W\d_]{{{WORD_LETTERS},}}")
_TEX = re.compile(r"\$[^$]*\$")


def split_grid(block: Block, line_h: float) -> bool:
    """Is this table block two tables side by side (a gutter inside its grid)?"""
    spans = sorted((w.box[0], w.box[2]) for ln in block.lines for w in ln.words)
    if not spans:
        return False
    gaps: list[float] = []
    end = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - end >= COLUMN_GAP * line_h:
            gaps.append(x0 - end)
        end = max(end, x1)
    if len(gaps) < 3:  # two columns a side at least: four columns, three gaps
        return False
    widest = max(range(len(gaps)), key=gaps.__getitem__)
    rest = gaps[:widest] + gaps[widest + 1 :]
    inside = 0 < widest < len(gaps) - 1  # columns on both sides, not a label column's gap
    return inside and gaps[widest] >= GUTTER_RATIO * max(rest)


def _same_row(a: Box, b: Box) -> bool:
    h = min(a[3], b[3]) - max(a[1], b[1])
    return h > ROW_OVERLAP * max(a[3] - a[1], b[3] - b[1])  # a tall (rotated) line has no row


def rows_apart(page: Page) -> bool:
    """Did one-line blocks (keys) and one block (their values) split the page's rows?"""
    text = [b for b in page.blocks if b.printed and b.label == Label.TEXT]
    keys = [
        b.printed[0].box for b in text if len(b.printed) == 1 and _WORD.search(b.printed[0].text)
    ]
    for other in text:
        run = 0
        for ln in sorted(other.printed, key=lambda ln: ln.box[1]):
            beside = any(
                (k[2] < other.box[0] or k[0] > other.box[2]) and _same_row(k, ln.box) for k in keys
            )
            run = run + 1 if beside else 0
            if run >= MIN_ROWS:
                return True
    return False


def is_debris(block: Block) -> bool:
    """Is this block a piece, not prose (see the module's docstring)?"""
    if block.label != Label.TEXT or not block.printed or len(block.printed) > 2:
        return False
    raw = " ".join(ln.text for ln in block.printed)
    if sum(c.isalnum() for c in raw) > DEBRIS_CHARS:
        return False
    return not _WORD.search(_TEX.sub(" ", block.text or raw))


def debris(page: Page) -> float:
    """The page's factor for debris: 1 under ``MIN_DEBRIS`` pieces or ``DEBRIS_SHARE`` of its
    text blocks, else ``1 − share`` (at least ``DEBRIS_FLOOR``)."""
    text = [b for b in page.blocks if b.printed and b.label == Label.TEXT]
    pieces = sum(is_debris(b) for b in text)
    share = pieces / len(text) if text else 0.0
    if pieces < MIN_DEBRIS or share < DEBRIS_SHARE:
        return 1.0
    return max(DEBRIS_FLOOR, 1.0 - share)


SIGNALS = ("split_grid", "rows_apart", "debris")


def apply(page: Page, off: frozenset[str] = frozenset()) -> Page:
    """Record each block's structural factor (``Block.structure``); ``off``: signals left
    out (names of :data:`SIGNALS`, for measuring each one's effect)."""
    factor = 1.0
    if "rows_apart" not in off and rows_apart(page):
        factor *= ROWS_APART
    if "debris" not in off:
        factor *= debris(page)
    for b in page.blocks:
        own = factor
        if "split_grid" not in off and b.label == Label.TABLE and split_grid(b, page.line_h):
            own *= SPLIT_GRID
        b.structure = own
    return page
