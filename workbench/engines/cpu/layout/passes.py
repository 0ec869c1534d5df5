"""Layout passes: the layout model's boxes cleaned, lines assigned to them, blocks made, labels
given, boxes grown over their lines.

* ``dedupe_boxes``: a box nearly duplicated by a higher-scoring box of the same label (text,
  reference and title count as one; the surer box grows over the other) is dropped.
* ``column_gutters``: lines and prose boxes that bridge a column gutter are cut at it
  (:mod:`.gutters`), so each column's lines land in that column's blocks.
* ``table_gutters``: a table box (the layout model's or one found from alignment) drawn over
  a gutter with prose beside it is cut there, its prose parts text, unless the PDF rules it as
  a grid (:func:`.gutters.split_tables`).
* ``assign_lines``: every line goes to the box holding the largest share of it (at least half;
  90 % counts as whole; the smaller box wins ties, so a caption inside a figure goes to the
  caption); lines no box holds go to ``members[-1]``.
* ``blocks``: one block a kept box (text, title, caption, header and footer boxes that received
  no line are dropped; figures, tables, formulas and signatures are kept empty); lines no box
  holds are grouped into ``ocr_lines`` blocks by vertical proximity and horizontal overlap.
* ``key_values``: a form's or receipt's key/value rows become one block a row, key then
  value (:mod:`.keyvalue`).
* ``labels``: each block's :class:`~workbench.schema.Label` from its native label
  (:func:`~workbench.engines.cpu.labels.canonical`); tables are text when the engine does
  not detect tables.
* ``grow_boxes``: each box grows to the union of its lines (a heading box drawn short of its
  number covers all its words). Reading order was decided on the layout model's boxes before:
  a line reaching into a picture must not reorder them.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box, Line, assign_lines, dedupe_layout, level_box, union_all
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.layout import gutters, keyvalue
from workbench.engines.cpu.page import Block, Page
from workbench.engines.cpu.tables.ruled import grid_for
from workbench.schema import Label

_KEEP_EMPTY = {Label.FIGURE, Label.TABLE, Label.FORMULA, Label.SIGNATURE}
# two lines join a group when the gap between them is at most this share of a line height
# (a paragraph's leading; more is a new paragraph or a new thing)...
JOIN_GAP = 0.9
# ...and they overlap horizontally by this share of the narrower (a column, not a neighbour)
JOIN_OVERLAP = 0.3


def dedupe_boxes(page: Page) -> Page:
    page.layout = dedupe_layout(page.layout)
    return page


def column_gutters(page: Page) -> Page:
    found = gutters.find(page.lines)
    if found:
        page.lines = gutters.split_lines(page.lines, found)
        page.layout = gutters.split_boxes(page.layout, page.lines, found)
        page.gutters = found
    return page


def table_gutters(page: Page) -> Page:
    if page.gutters:
        grids = page.grids

        def ruled(box: Box) -> bool:  # the grid a table block reads (tables.ruled's own rule)
            return grid_for(box, grids) is not None

        page.layout = gutters.split_tables(page.layout, page.lines, page.gutters, ruled)
    return page


def assign(page: Page) -> Page:
    page.members = assign_lines(page.layout, page.lines)
    return page


def blocks(page: Page) -> Page:
    members = dict(page.members)
    orphans = members.pop(-1, [])
    out: list[Block] = []
    for k, b in enumerate(page.layout):
        if k in page.dissolved:
            continue
        if members.get(k) or canonical(b.native) in _KEEP_EMPTY or b.native == "signature":
            out.append(Block(b.native, b.box, members.get(k, []), b.score))
    for group in cluster(orphans, page.line_h):
        out.append(Block("ocr_lines", union_all([ln.box for ln in group]), group, 0.0))
    page.blocks = out
    return page


def key_values(page: Page) -> Page:
    return keyvalue.key_values(page)


def labels(page: Page) -> Page:
    for b in page.blocks:
        if b.native == "signature":
            b.label = Label.SIGNATURE
        else:
            b.label = canonical(b.native, b.box, page.height)
        if b.label is Label.TABLE and not page.tables:
            b.label = Label.TEXT
    return page


def grow_boxes(page: Page) -> Page:
    for b in page.blocks:
        b.box = union_all([b.box] + [ln.box for ln in b.lines])
    return page


def cluster(lines: list[Line], line_h: float) -> list[list[Line]]:
    """Lines no box holds, grouped top to bottom (see ``JOIN_GAP``, ``JOIN_OVERLAP``); text
    set on its side apart, in its own frame (:func:`~..boxes.level_box`)."""
    ways: dict[int, list[Line]] = {}
    for ln in lines:
        ways.setdefault(ln.turned, []).append(ln)
    return [g for way, group in ways.items() for g in _cluster(group, line_h, way)]


def _cluster(lines: list[Line], line_h: float, way: int) -> list[list[Line]]:
    groups: list[list[Line]] = []
    level = {id(ln): level_box(ln.box, way) for ln in lines}
    for ln in sorted(lines, key=lambda ln: level[id(ln)][1::-1]):
        box = level[id(ln)]
        home = None
        for g in groups:
            last = level[id(g[-1])]
            gap = box[1] - last[3]
            h = max(ln.height, line_h)
            overlap = min(box[2], last[2]) - max(box[0], last[0])
            narrow = min(box[2] - box[0], last[2] - last[0])
            if -h <= gap <= JOIN_GAP * h and overlap >= JOIN_OVERLAP * max(narrow, 1.0):
                home = g
        if home is None:
            groups.append([ln])
        else:
            home.append(ln)
    return groups
