"""The CPU engine's label vocabulary, its ground floor: how a native layout label (CDLA's,
Tesseract's block types, and the engine's own finds) maps to a canonical
:class:`~workbench.schema.Label`. Every pass that names or maps a label imports it from here;
it imports only :mod:`~workbench.engines.cpu.boxes` of the engine (the CPU engine's floors
are an import-linter contract in ``pyproject.toml``).

Label mapping (native → canonical :class:`~workbench.schema.Label`)
------------------------------------------------------------------
CDLA: ``text``→text, ``title``→title or section_header (decided by the ``title`` pass by size and
position), ``figure``→figure, ``figure_caption``/``table_caption``→caption, ``table``→table,
``header``→header, ``footer``→footer (either becomes page_number when its text is only a page
number), ``equation``→formula, ``reference``→footnote when it sits in the bottom quarter of the
page (CDLA uses it for footnote-style citations there) and text elsewhere (bibliographies read
as body text).

Tesseract block types (fallback): FLOWING/HEADING/PULLOUT/CAPTION/VERTICAL text → text (HEADING
→ section_header, CAPTION_TEXT → caption), TABLE → table, *_IMAGE → figure, EQUATION → formula;
rules (HORZ_LINE, VERT_LINE, NOISE) give no region.
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box
from workbench.schema import Label

CDLA_LABELS: dict[str, Label] = {
    "text": Label.TEXT,
    "title": Label.SECTION_HEADER,
    "figure": Label.FIGURE,
    "figure_caption": Label.CAPTION,
    "table": Label.TABLE,
    "table_caption": Label.CAPTION,
    "header": Label.HEADER,
    "footer": Label.FOOTER,
    "reference": Label.TEXT,
    "equation": Label.FORMULA,
    "aligned_table": Label.TABLE,  # found from word alignment (tables.find_tables), not CDLA
    "running_header": Label.HEADER,  # furniture found by position, size, content (furniture)
    "running_footer": Label.FOOTER,
}

TESSERACT_LABELS: dict[str, Label] = {
    "FLOWING_TEXT": Label.TEXT,
    "HEADING_TEXT": Label.SECTION_HEADER,
    "PULLOUT_TEXT": Label.TEXT,
    "VERTICAL_TEXT": Label.TEXT,
    "CAPTION_TEXT": Label.CAPTION,
    "TABLE": Label.TABLE,
    "FLOWING_IMAGE": Label.FIGURE,
    "HEADING_IMAGE": Label.FIGURE,
    "PULLOUT_IMAGE": Label.FIGURE,
    "EQUATION": Label.FORMULA,
    "INLINE_EQUATION": Label.FORMULA,
}


def canonical(native: str, box: Box | None = None, page_height: float | None = None) -> Label:
    """The canonical label for a CDLA or Tesseract native label (unknown → text)."""
    if native == "reference" and box is not None and page_height:
        return Label.FOOTNOTE if box[1] > 0.75 * page_height else Label.TEXT
    return CDLA_LABELS.get(native) or TESSERACT_LABELS.get(native) or Label.TEXT
