"""Formula passes. Text-layer formulas are typeset (``$$ … $$``, their TeX form, scripts
included); an OCR'd formula never is: its region becomes a figure, shown as an image crop.

* ``prose_formulas`` (assigned lines): a formula box holding ``PROSE_LINES`` lines of prose
  or more (a page of cards read as one equation) is dissolved; its lines go to the boxes
  under it (a figure that spans the page…).
* ``display_formulas`` (blocks): display formulas found on the text layer stand alone
  (:func:`.blocks.split_blocks`).
* ``display_math`` (labelled blocks): one or two text-layer lines of a text block with
  scripts and an equals sign and no word of prose are a formula (:func:`display_math`).
* ``ocr_formulas`` (labelled blocks): an OCR'd formula whose lines read as words is text the
  layout model took for math ("Earthy and saline matter .... 40" in a two-row tally); any
  other is a figure crop with no text (OCR'd math is garbage).
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import LayoutBox, Line, assign_lines
from workbench.engines.cpu.formulas import blocks
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.page import Page
from workbench.schema import Label

PROSE_LINES = 3  # lines of prose that make a formula box a paragraph
PROSE_WORDS = 4  # words of three letters or more that make a line prose


def prose_formulas(page: Page) -> Page:
    dissolved = {
        k for k, b in enumerate(page.layout) if canonical(b.native) is Label.FORMULA
        and _prosy(page.members.get(k, []))
    }  # fmt: skip
    if dissolved:
        gone = (0.0, 0.0, 0.0, 0.0)
        kept = [
            LayoutBox(b.native, gone, 0.0) if k in dissolved else b
            for k, b in enumerate(page.layout)
        ]
        page.members = assign_lines(kept, page.lines)
        page.dissolved |= dissolved
    return page


def display_formulas(page: Page) -> Page:
    page.blocks = blocks.split_blocks(page.blocks)
    return page


def display_math(page: Page) -> Page:
    for b in page.blocks:
        if b.native in ("ocr_lines", "text") and is_display_math(b.lines):
            b.label = Label.FORMULA
    return page


def ocr_formulas(page: Page) -> Page:
    for b in page.blocks:
        lines = b.printed
        if (
            b.label is Label.FORMULA
            and lines
            and not any(ln.source == "text_layer" for ln in lines)
        ):
            if blocks.worded(lines):
                b.label = Label.TEXT
            else:
                b.label, b.crop = Label.FIGURE, True
    return page


def is_display_math(group: list[Line]) -> bool:
    """One or two text-layer lines with scripts and an equals sign, and no word of prose (three
    letters or more, "s(t)" has none; "x² = 9 means …" is a sentence): a displayed formula."""
    return 0 < len(group) <= 2 and all(
        ln.tex and "=" in ln.text and not re.search(r"[A-Za-z]{3,}", ln.text) for ln in group
    )


def _prosy(group: list[Line]) -> bool:
    """``PROSE_LINES`` lines or more of prose (``PROSE_WORDS`` words of three letters or more
    each): a formula box the layout model drew over paragraphs."""
    prose = sum(len(re.findall(r"\b[A-Za-z]{3,}\b", ln.text)) >= PROSE_WORDS for ln in group)
    return prose >= PROSE_LINES
