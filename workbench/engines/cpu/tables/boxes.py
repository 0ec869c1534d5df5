"""Table boxes on a page, before lines are assigned to regions (two passes).

* :func:`aligned_tables`: tables the layout model missed, found from the words' alignment
  (:func:`frag.find_tables`; two-column ones: :func:`.pairs.find_pairs`), become
  ``aligned_table`` boxes; text, formula and picture boxes mostly inside one are dropped so
  that its lines go to the table, and a text box that holds one keeps only its parts above
  and below it. Where the model found the table but also drew a formula or
  picture box over it, or drew such a box over a table it missed (IoU 0.7 or more: a
  booktabs table in a paper read as an "equation" that took its lines), the alignment
  decides: that box is dropped.
* :func:`table_headers`: a table box grows upward over the header lines set above its number
  columns (a "Year Ended December 31," spanning the year columns, a group header row
  "ReACT / Plan+Execute" over sub-columns) that the layout model left out; boxes inside the
  grown table are dropped so those lines go to the table.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, cover, iou
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.tables import fragments as frag
from workbench.engines.cpu.tables import side
from workbench.engines.cpu.tables.pairs import find_pairs
from workbench.schema import Label

HEADER_WORDS = 6  # a header line above a table has at most this many words
HEADER_INDENT = 0.15  # ... and its row starts this share of the table's width right of its edge
LONE_INDENT = 0.45  # ... or this share when the row is one line (a centred title starts left)
INNER = 0.8  # a text box this much inside a table box is the model's second reading of cells
_CAPTION = re.compile(r"^(Table|Figure|Fig\.|Source|Note)\b", re.I)
_NOT_TABLES = (Label.FORMULA, Label.FIGURE)
TEXT_BOXES = {"text", "reference", "title", "FLOWING_TEXT", "HEADING_TEXT", "PULLOUT_TEXT"}


def aligned_tables(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """Tables the layout model missed (:func:`frag.find_tables`) become ``aligned_table``
    boxes; text boxes mostly inside one are dropped so its lines go to the table, and formula
    or picture boxes drawn over a found table (the model's or this one) give way to it."""
    for t in side.refind(frag.find_tables(lines), lines) + find_pairs(lines):
        model = [
            b.box for b in boxes if canonical(b.native) is Label.TABLE and cover(t, b.box) > 0.5
        ]
        tables = model or [t]
        boxes = [
            b
            for b in boxes
            if not (
                canonical(b.native) in _NOT_TABLES and any(iou(b.box, m) >= 0.7 for m in tables)
            )
        ]
        if model:
            continue
        boxes = [
            b
            for b in boxes
            if not (
                (b.native in TEXT_BOXES or canonical(b.native) in _NOT_TABLES)
                and cover(b.box, t) >= 0.8
            )
        ]
        boxes = [p for b in boxes for p in _around(b, t)]
        boxes.append(LayoutBox("aligned_table", t, 0.5))
    return boxes


def _around(b: LayoutBox, t: Box) -> list[LayoutBox]:
    """A text box that holds the found table ``t`` (prose above or below it boxed with it as
    one paragraph) keeps only its parts above and below the table."""
    if b.native not in TEXT_BOXES or cover(t, b.box) < 0.8:
        return [b]
    x0, y0, x1, y1 = b.box
    parts = [(x0, y0, x1, t[1]), (x0, t[3], x1, y1)]
    return [LayoutBox(b.native, p, b.score) for p in parts if p[3] - p[1] > 1.0]


def table_headers(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """A table box grows upward over header rows set above its columns that the layout model
    left out (a "Year Ended December 31," over the year columns, "ReACT / Plan+Execute /
    Hypothesizer" over their sub-columns); boxes inside the grown table are dropped so those
    lines go to the table.

    The table's top is that of its own lines (half or more inside the box: a header set at
    45° straddles the box's edge). Above it, rows of lines (vertical overlap) are taken one
    by one while the next is within 2.5 line heights, each of its lines is short (at most
    ``HEADER_WORDS`` words) and not a caption, and the row starts right of the table's first
    ``HEADER_INDENT`` of its width (``LONE_INDENT`` for a row of one line: a caption or a
    title centred over the whole table starts left of that)."""
    out = list(boxes)
    for k, b in enumerate(out):
        if canonical(b.native) is not Label.TABLE:
            continue
        x0, y0, x1, y1 = b.box
        own = [ln.box[1] for ln in lines if cover(ln.box, b.box) >= 0.5]
        top = min([y0, *own])
        above = [
            ln
            for ln in lines
            if ln.box[3] <= top + 0.5 * ln.height and ln.box[2] > x0 and ln.box[0] < x1
        ]
        for band in _bands(sorted(above, key=lambda ln: -ln.box[3])):
            lh = max(max(ln.height for ln in band), 1.0)
            if max(ln.box[3] for ln in band) < top - 2.5 * lh:
                break
            starts = min(ln.box[0] for ln in band)
            indent = HEADER_INDENT if len(band) > 1 else LONE_INDENT
            if starts < x0 + indent * (x1 - x0) or any(
                len(ln.text.split()) > HEADER_WORDS or _CAPTION.match(ln.text) for ln in band
            ):
                break  # a caption, title or paragraph over the whole table
            top = min(ln.box[1] for ln in band)
        if top < y0:
            grown = (x0, top - 1, x1, y1)
            out[k] = LayoutBox(b.native, grown, b.score)
            out = [
                o
                for o in out
                if o is out[k] or not (o.native != b.native and cover(o.box, grown) >= 0.8)
            ]
    return out


def inner_text(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """A text box drawn inside a table box (``INNER`` of it or more) over some of the table's
    cells is dropped, so that its lines stay in the table's rows: a receipt's "Date / Time /
    Register" boxed apart from their values went under the table as a paragraph. It is a
    column of cells when at least half of its lines share a row (vertical overlap of half the
    lower height) with a line of the table outside it."""
    tables = [b.box for b in boxes if canonical(b.native) is Label.TABLE]
    out = []
    for b in boxes:
        held = (t for t in tables if b.native in TEXT_BOXES and cover(b.box, t) >= INNER)
        if (host := next(held, None)) is not None:
            inside = [ln for ln in lines if cover(ln.box, b.box) >= 0.5]
            rest = [ln for ln in lines if cover(ln.box, host) >= 0.5 and cover(ln.box, b.box) < 0.5]
            shared = sum(any(_same_row(ln, o) for o in rest) for ln in inside)
            if inside and 2 * shared >= len(inside):
                continue
        out.append(b)
    return out


def _same_row(a: Line, b: Line) -> bool:
    overlap = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return overlap >= 0.5 * min(a.height, b.height)


def _bands(lines: list[Line]) -> list[list[Line]]:
    """Lines (sorted bottom-up) grouped into rows by vertical overlap."""
    bands: list[list[Line]] = []
    for ln in lines:
        if bands:
            lo = min(o.box[1] for o in bands[-1])
            if ln.box[3] > lo + 0.3 * ln.height:
                bands[-1].append(ln)
                continue
        bands.append([ln])
    return bands
