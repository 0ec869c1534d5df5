"""LightOnOCR output (lightonai/LightOnOCR ``grounding.py``, ``models.py``, README).

Plain mode (LightOnOCR-1B-1025, LightOnOCR-2-1B, and LightOnOCR-3 without the "grounding"
prompt): Markdown with HTML tables and LaTeX math, **no boxes**. The page is split into
unlocated blocks by :func:`~workbench.parsers.md_blocks.split_markdown`.

Grounding mode (LightOnOCR-3 only, the image plus the text "grounding")::

    ![caption](400,555,591,566) Figure 1: Model architecture.

One marker before each block, coordinates ``x1,y1,x2,y2`` normalised **0-1000** on both axes
whatever the image size; a block's text runs to the next marker (tables and lists span
lines). A ``+`` after the label (``text+``) marks a block that continues the previous one
(``Region.continues``). A marker cut off mid-way (``![text](12,3``) is not a block.

Labels: the 15 of the README plus the variants LightOn's own code handles: ``page_header``,
``page_footer``, ``page_footnote``, ``header_image``, ``footer_image`` (``grounding.py``
``HEADER_FOOTER``: running furniture, kept out of the document Markdown) and ``figure``,
``figure_title``, ``paragraph`` (``benchmarks/…/loocr_grounding.py`` ``LABEL_MAP``). A figure
block is kept even without text (it is worth drawing).

Both modes repair escaped dollars first, as LightOn's client does for every output
(``postprocess/fix_escaped_dollars.py``: ``\\$x\\$`` → ``$x$``): the model sometimes escapes the
delimiters of inline math. A lone escaped dollar (a price: ``\\$5``) is left alone.
"""

from __future__ import annotations

import re

from workbench.parsers.base import NO_BOXES_NOTE, ParseContext, ParsedPage, register
from workbench.parsers.common import Draft, finish, unlocated_note
from workbench.parsers.html_md import clean_tables
from workbench.parsers.md_blocks import split_markdown
from workbench.schema import Label

LABELS: dict[str, Label] = {
    "title": Label.TITLE,
    "section": Label.SECTION_HEADER,
    "text": Label.TEXT,
    "list": Label.LIST,
    "caption": Label.CAPTION,
    "footnote": Label.FOOTNOTE,
    "aside_text": Label.TEXT,
    "header": Label.HEADER,
    "footer": Label.FOOTER,
    "page_number": Label.PAGE_NUMBER,
    "table": Label.TABLE,
    "chart": Label.FIGURE,  # a chart's data comes as an HTML table, its place is a figure
    "formula": Label.FORMULA,
    "code": Label.CODE,
    "image": Label.FIGURE,
    # grounding.py HEADER_FOOTER
    "page_header": Label.HEADER,
    "page_footer": Label.FOOTER,
    "page_footnote": Label.FOOTNOTE,
    "header_image": Label.HEADER,
    "footer_image": Label.FOOTER,
    # benchmarks' loocr_grounding.py LABEL_MAP
    "figure": Label.FIGURE,
    "figure_title": Label.CAPTION,
    "paragraph": Label.TEXT,
}

# \$…\$ on one line, content not starting or ending with a space: inline math escaped twice.
_ESCAPED_MATH = re.compile(r"\\\$(?=\S)([^$\n]*?\S)\\\$")


def fix_escaped_dollars(text: str) -> str:
    """``\\$x^2\\$`` → ``$x^2$`` (LightOnOCR's dollar-delimiter repair)."""
    return _ESCAPED_MATH.sub(r"$\1$", text)


# Same marker grammar as LightOnOCR's grounding.MARKER (label, optional "+", four integers).
MARKER = re.compile(
    r"!\[([A-Za-z_][\w-]*?)(\+?)\]\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)[ \t]*"
)

# The start of a marker at the very end of the text (cut off before its closing parenthesis).
_PARTIAL = re.compile(r"!\[(?:[A-Za-z_][\w-]*\+?(?:\]\(?[\d\s,]*)?)?$")


def markdown_regions(raw: str, ctx: ParseContext) -> ParsedPage:
    """Unlocated blocks from a Markdown page (shared with olmOCR)."""
    drafts = [Draft(native, None, text, label=label) for label, native, text in split_markdown(raw)]
    regions = finish(drafts, {}, scale_x=1, scale_y=1, width=ctx.width, height=ctx.height)
    return ParsedPage(regions=regions, notes=[NO_BOXES_NOTE])


@register("lighton_plain")
def parse_plain(raw: str, ctx: ParseContext) -> ParsedPage:
    return markdown_regions(fix_escaped_dollars(raw or ""), ctx)


@register("lighton_grounding")
def parse_grounding(raw: str, ctx: ParseContext) -> ParsedPage:
    raw = fix_escaped_dollars(raw or "")
    marks = list(MARKER.finditer(raw))
    partial = _PARTIAL.search(raw)
    if not marks and partial and not raw[: partial.start()].strip():
        # Cut off inside the very first marker: nothing complete yet.
        return ParsedPage(
            regions=[], truncated=True, notes=["the output was cut off inside a block marker"]
        )
    if not marks:
        # The server answered in plain mode (a LightOnOCR-1/2 model, or no "grounding" text).
        page = markdown_regions(raw, ctx)
        if raw.strip():
            page.notes = ["the output had no grounding markers; shown as Markdown without boxes"]
        return page
    drafts: list[Draft] = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(raw)
        if i == len(marks) - 1 and partial and partial.start() >= m.end():
            end = partial.start()  # a next marker cut off mid-way is not text
        text = raw[m.end() : end].strip()
        box = [float(m.group(k)) for k in (3, 4, 5, 6)]
        drafts.append(Draft(m.group(1), box, clean_tables(text), continues=m.group(2) == "+"))
    truncated = partial is not None
    regions = finish(drafts, LABELS, scale_x=1000, scale_y=1000, width=ctx.width, height=ctx.height)
    notes = unlocated_note(regions)
    if truncated:
        notes.append("the output was cut off inside a block marker")
    return ParsedPage(regions=regions, truncated=truncated, notes=notes)
