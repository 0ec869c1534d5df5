"""Table boxes on a page, before lines are assigned to regions (two passes).

* :func:`aligned_tables`: tables the layout model missed, found from the words' alignment
  (:func:`frag.find_tables`), become ``aligned_table`` boxes; text boxes mostly inside one
  are dropped so that its lines go to the table.
* :func:`table_headers`: a table box grows upward over the header lines set above its number
  columns (a "Year Ended December 31," spanning the year columns, a group header row
  "ReACT / Plan+Execute" over sub-columns) that the layout model left out; boxes inside the
  grown table are dropped so those lines go to the table.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import LayoutBox, Line, cover
from workbench.engines.cpu.layout.detect import canonical
from workbench.engines.cpu.tables import fragments as frag
from workbench.schema import Label

HEADER_WORDS = 6  # a header line above a table has at most this many words
HEADER_INDENT = 0.15  # ... and its row starts this share of the table's width right of its edge
LONE_INDENT = 0.45  # ... or this share when the row is one line (a centred title starts left)
_CAPTION = re.compile(r"^(Table|Figure|Fig\.|Source|Note)\b", re.I)
TEXT_BOXES = {"text", "reference", "title", "FLOWING_TEXT", "HEADING_TEXT", "PULLOUT_TEXT"}


def aligned_tables(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """Tables the layout model missed (:func:`frag.find_tables`) become ``aligned_table``
    boxes; text boxes mostly inside one are dropped so its lines go to the table."""
    for t in frag.find_tables(lines):
        if any(canonical(b.native) is Label.TABLE and cover(t, b.box) > 0.5 for b in boxes):
            continue
        boxes = [b for b in boxes if not (b.native in TEXT_BOXES and cover(b.box, t) >= 0.8)]
        boxes.append(LayoutBox("aligned_table", t, 0.5))
    return boxes


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
