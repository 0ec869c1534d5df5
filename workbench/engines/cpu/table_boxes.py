"""Table boxes on a page, before lines are assigned to regions (called by :mod:`compose`).

* :func:`aligned_tables`: tables the layout model missed, found from the words' alignment
  (:func:`tables.find_tables`), become ``aligned_table`` boxes; text boxes mostly inside one
  are dropped so that its lines go to the table.
* :func:`table_headers`: a table box grows upward over the header lines set above its number
  columns (a "Year Ended December 31," spanning the year columns, a group header row
  "ReACT / Plan+Execute" over sub-columns) that the layout model left out; boxes inside the
  grown table are dropped so those lines go to the table.
"""

from __future__ import annotations

from workbench.engines.cpu import tables
from workbench.engines.cpu.boxes import LayoutBox, Line, cover
from workbench.engines.cpu.layout import canonical
from workbench.schema import Label

TEXT_BOXES = {"text", "reference", "title", "FLOWING_TEXT", "HEADING_TEXT", "PULLOUT_TEXT"}


def aligned_tables(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """Tables the layout model missed (:func:`tables.find_tables`) become ``aligned_table``
    boxes; text boxes mostly inside one are dropped so its lines go to the table."""
    for t in tables.find_tables(lines):
        if any(canonical(b.native) is Label.TABLE and cover(t, b.box) > 0.5 for b in boxes):
            continue
        boxes = [b for b in boxes if not (b.native in TEXT_BOXES and cover(b.box, t) >= 0.8)]
        boxes.append(LayoutBox("aligned_table", t, 0.5))
    return boxes


def table_headers(boxes: list[LayoutBox], lines: list[Line]) -> list[LayoutBox]:
    """A table box grows upward over header lines set above its number columns (a "Year Ended
    December 31," spanning the year columns) that the layout model left out; boxes inside the
    grown table are dropped so those lines go to the table."""
    out = list(boxes)
    for k, b in enumerate(out):
        if canonical(b.native) is not Label.TABLE:
            continue
        x0, y0, x1, y1 = b.box
        top = y0
        above = [ln for ln in lines if ln.box[1] < top and ln.box[3] <= top + 0.5 * ln.height]
        for ln in sorted(above, key=lambda ln: -ln.box[3]):
            lh = max(ln.height, 1.0)
            if ln.box[3] < top - 2.5 * lh or ln.box[2] < x0 or ln.box[0] > x1:
                if ln.box[3] < top - 2.5 * lh:
                    break
                continue  # beside the table, not above it
            if ln.box[0] < x0 + 0.45 * (x1 - x0) or len(ln.text.split()) > 8:
                break  # a caption or title over the whole table
            top = ln.box[1]
        if top < y0:
            grown = (x0, top - 1, x1, y1)
            out[k] = LayoutBox(b.native, grown, b.score)
            out = [
                o
                for o in out
                if o is out[k] or not (o.native != b.native and cover(o.box, grown) >= 0.8)
            ]
    return out
