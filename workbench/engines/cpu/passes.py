"""The CPU reader after OCR: one ordered tuple of passes, each ``Page -> Page``.

The readers (:mod:`~workbench.engines.cpu.engine`) give a :class:`~.page.Page` of lines,
layout boxes and signature boxes; the passes below, in this order, turn it into ordered,
labelled blocks (:func:`~.page.regions` makes them regions). Each pass is one concern's
decision, documented in its module. ``FRAME`` passes are the skeleton (lines into blocks,
labels, Markdown); every other pass is a rule whose worth ``benchmarks/cpu_passes.py``
measures by switching it off (:func:`run`'s ``off``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from workbench.engines.cpu.figures import passes as figures
from workbench.engines.cpu.formulas import passes as formulas
from workbench.engines.cpu.furniture import passes as furniture
from workbench.engines.cpu.layout import passes as layout
from workbench.engines.cpu.order import passes as order
from workbench.engines.cpu.page import Page
from workbench.engines.cpu.readers import structure
from workbench.engines.cpu.signatures import passes as signatures
from workbench.engines.cpu.tables import passes as tables
from workbench.engines.cpu.text import passes as text


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Page], Page]


PASSES: tuple[Pass, ...] = (
    # layout boxes, before lines are assigned
    Pass("dedupe_boxes", layout.dedupe_boxes),
    Pass("column_gutters", layout.column_gutters),  # lines/boxes bridging two columns cut
    Pass("caption_boxes", figures.caption_boxes),
    Pass("aligned_tables", tables.aligned_tables),
    Pass("table_headers", tables.table_headers),
    Pass("side_by_side", tables.side_by_side),  # two tables under one box: two (issue 23)
    Pass("inner_text", tables.inner_text),  # a text box over a table's cells leaves (issue 23)
    Pass("table_gutters", layout.table_gutters),  # a table over two columns of prose: cut (35)
    Pass("stroke_weight", furniture.stroke_weight),
    Pass("figure_text", figures.figure_text),
    Pass("signature_boxes", signatures.signature_boxes),
    # lines into boxes
    Pass("assign_lines", layout.assign),
    Pass("prose_formulas", formulas.prose_formulas),
    Pass("caption_tails", tables.caption_tails),
    Pass("table_notes", tables.table_notes),  # notes under a table leave it (issue 23)
    Pass("row_labels", tables.row_labels),  # labels left of a ruled table: its stub (issue 35)
    Pass("text_figures", figures.text_figures),
    Pass("figure_ticks", figures.figure_ticks),
    # blocks
    Pass("blocks", layout.blocks),
    Pass("contents", furniture.table_of_contents),  # a table of contents: one line an entry
    Pass("key_values", layout.key_values),  # a form's key/value rows: key then value (issue 23)
    Pass("display_formulas", formulas.display_formulas),
    Pass("captions", figures.attach_captions),
    Pass("layout_furniture", furniture.layout_furniture),
    Pass("page_furniture", furniture.page_furniture),
    Pass("headings", furniture.heading_blocks),
    Pass("outline_headings", furniture.outline_headings),  # the PDF's bookmarks (issue 35)
    Pass("reading_order", order.reading_order),
    Pass("line_order", text.line_order),
    # labels and text
    Pass("labels", layout.labels),
    Pass("title", furniture.title),
    Pass("display_math", formulas.display_math),
    Pass("ocr_formulas", formulas.ocr_formulas),
    Pass("heading_levels", furniture.heading_levels),
    Pass("markdown", text.markdown),
    Pass("ruled_tables", text.ruled_tables),  # ruled: pdfplumber's grid; row rules: bands (35)
    Pass("margin_lines", furniture.margin_lines),
    Pass("page_numbers", furniture.page_numbers),
    Pass("lists", text.lists),
    Pass("grow_boxes", layout.grow_boxes),
    Pass("ordered_runs", text.ordered_runs),
    Pass("furniture_only_page", furniture.furniture_only_page),
    Pass("structure", structure.apply),  # structural doubt lowers confidence (issue 23)
)
NAMES = tuple(p.name for p in PASSES)
FRAME = frozenset({"assign_lines", "blocks", "line_order", "labels", "markdown"})


def run(page: Page, off: Iterable[str] = ()) -> Page:
    """``page`` after every pass not named in ``off`` (an unknown name is a ValueError)."""
    skip = frozenset(off)
    if unknown := skip - set(NAMES):
        raise ValueError(f"no such CPU pass: {', '.join(sorted(unknown))}")
    for p in PASSES:
        if p.name not in skip:
            page = p.run(page)
    return page
