"""Reading-order pass: ``reading_order`` sorts the blocks by :func:`.columns.reading_order`,
given the numbered headings' section numbers (a grid of numbered cards reads in their order,
by rows or by columns) and the empty figures as frames (a picture behind text blocks does not
block the column cut). Boxes are the layout model's, not yet grown over their lines. A page
whose text is mostly set on its side is ordered in that text's frame."""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import level_box, turned_way
from workbench.engines.cpu.order.columns import reading_order as order_of
from workbench.engines.cpu.page import Block, Page
from workbench.engines.cpu.text.passes import sorted_lines

_SECTION = re.compile(r"^\s*(\d{1,3})(\.\d{1,2})?[.)]?\s+[A-Za-z]")


def reading_order(page: Page) -> Page:
    """The blocks in reading order; on a page whose text is mostly set on its side, the order
    of that text's own frame (its lines level: :func:`~..boxes.level_box`)."""
    blocks = page.blocks
    way = turned_way(ln for b in blocks for ln in b.printed)
    order = order_of(
        [level_box(b.box, way, page.width, page.height) for b in blocks],
        numbers=[section_number(b) for b in blocks],
        frames={k for k, b in enumerate(blocks) if b.native == "figure" and not b.lines},
    )
    page.blocks = [blocks[k] for k in order]
    return page


def section_number(block: Block) -> float | None:
    """A heading's section number ("2. Pythagorean Theorem" → 2, "3.1 Area" → 3.1)."""
    if not block.native.startswith("heading") or not block.lines:
        return None
    found = _SECTION.match(sorted_lines(block.lines)[0].text)
    return float(found.group(1) + (found.group(2) or "")) if found else None
