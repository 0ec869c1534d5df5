"""Text passes: each block's lines in reading order, its Markdown, lists, ordered runs.

* ``line_order``: a block's lines top to bottom; lines sharing a row (centres within half a
  height) left to right; text set on its side in its own frame.
* ``markdown``: a block's text as escaped Markdown (:mod:`..markdown`): formulas as
  ``$$ … $$`` of their TeX form, tables as pipe or HTML tables (a table over a ruled grid of
  its PDF as that grid, ``ruled_tables``: :mod:`..tables.ruled`), titles and headers as one line
  (``#`` × level for a heading from type), the rest as paragraphs split where a short line
  ends a sentence; a figure's tick labels are not printed.
* ``lists``: ungrouped OCR lines that start with bullets or numbers are a list.
* ``ordered_runs``: no ordered item renumbered by the renderer across regions
  (:func:`.markdown.ordered_runs`): furniture does not print; headings, tables, formulas and
  figures end a run.
"""

from __future__ import annotations

from workbench.engines.cpu import markdown as md
from workbench.engines.cpu.boxes import Line, level_box, median, paragraph_gaps, rows, turned_way
from workbench.engines.cpu.figures.ticks import without_ticks
from workbench.engines.cpu.page import Grid, Page
from workbench.engines.cpu.tables import ruled
from workbench.engines.cpu.tables.banded import banded
from workbench.engines.cpu.tables.render import render, table_markdown
from workbench.schema import FURNITURE, Label

_AS_IS = {Label.TEXT, Label.LIST, Label.FOOTNOTE, Label.CAPTION}  # printed as their text


def line_order(page: Page) -> Page:
    for b in page.blocks:
        b.lines = sorted_lines(b.lines)
    return page


def markdown(page: Page) -> Page:
    for b in page.blocks:
        label = b.label or Label.TEXT
        shown = b.printed
        if label is Label.FIGURE:
            shown = without_ticks(shown, b.box, page.line_h)
        b.text = body(label, shown, page.line_h)
        if b.level:
            b.text = "#" * b.level + " " + b.text
    return page


def lists(page: Page) -> Page:
    for b in page.blocks:
        texts = [ln.text for ln in b.printed]
        if b.native == "ocr_lines" and b.label is Label.TEXT and md.is_list(texts):
            b.label = Label.LIST
    return page


def ordered_runs(page: Page) -> Page:
    printed = [
        "" if b.label in FURNITURE or not b.text else b.text if b.label in _AS_IS else "x"
        for b in page.blocks
    ]
    fixed = md.ordered_runs(printed)
    for b, was, now in zip(page.blocks, printed, fixed, strict=True):
        if now != was:
            b.text = now
    return page


def body(label: Label, group: list[Line], line_h: float) -> str:
    """The Markdown of lines printed under ``label``."""
    if not group:
        return ""
    if label is Label.FORMULA:
        return md.formula_markdown([ln.tex or ln.text for ln in group])
    if label is Label.TABLE:
        table = table_markdown(group)
        if table:
            return table
    texts = [ln.text for ln in group]
    if label is Label.TABLE:
        return "\n".join(md.escape(t) for t in texts)
    if label in (Label.TITLE, Label.SECTION_HEADER):
        return md.escape(md.join_lines(texts))
    gaps = paragraph_gaps(group)  # a short line ending a sentence ends its paragraph too
    return md.paragraphs(texts, gaps, median([ln.height for ln in group], line_h))


def ruled_tables(page: Page) -> Page:
    """A table block over a ruled grid of its PDF (``page.grids``) reads as that grid; one
    with a rule under every row and none between columns, as its bands (:mod:`.banded`)."""
    for b in page.blocks:
        if b.label is not Label.TABLE:
            continue
        grid = ruled.grid_for(b.box, page.grids)
        if grid is None or not ruled.holds(grid, b.printed):
            grid = banded(b.box, page.rules, b.printed, page.line_h) if page.rules else None
        if grid is not None and ruled.holds(grid, b.printed):
            b.text = ruled_body(grid, b.printed)
    return page


def ruled_body(grid: Grid, group: list[Line]) -> str:
    """A table block read through its PDF's ruled ``grid``: the lines above the grid, the
    table, the lines below it (no line is lost)."""
    table, above, below = ruled.grid_table(grid, group)
    parts = [md.escape(ln.text) for ln in above] + [render(table)]
    return "\n\n".join(p for p in parts + [md.escape(ln.text) for ln in below] if p)


def sorted_lines(group: list[Line]) -> list[Line]:
    """Lines top to bottom; lines sharing a row (centres within half a height) left to right.
    Text set on its side is read in its own frame (:func:`~..boxes.level_box`): lines running
    down the page right to left, lines running up it left to right."""
    way = turned_way(group)
    if way:
        return sorted(group, key=lambda ln: level_box(ln.box, way)[1::-1])
    return [ln for r in rows(group) for ln in sorted(r, key=lambda ln: ln.box[0])]
