"""Chandra (datalab-to) layout HTML: one top-level ``<div>`` per block.

Format (checked against chandra-ocr 0.1.8 and 0.2.0 ``prompts.py`` / ``output.py``)::

    <div data-bbox="x0 y0 x1 y1" data-label="Section-Header"><h2>…</h2></div>

* Chandra 2 (``datalab-to/chandra-ocr-2``): ``data-bbox="x0 y0 x1 y1"`` normalised **0-1000**.
* Chandra 1 (``datalab-to/chandra``): ``data-bbox="[x0, y0, x1, y1]"`` normalised **0-1024**.

Both parsers accept both spellings (the model sometimes answers in the other one); a box that
cannot be read leaves the region unlocated instead of Chandra 0.2.0's ``[0, 0, 1, 1]``
fallback. ``Blank-Page`` blocks are skipped. The HTML inside each block becomes Markdown
(:mod:`workbench.parsers.html_md`). A block whose ``</div>`` never came (output cut off) is
dropped and ``truncated`` is set; every complete block before it is kept.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from workbench.parsers.base import ParseContext, ParsedPage, register
from workbench.parsers.common import Draft, finish, read_box, unlocated_note
from workbench.parsers.html_md import html_to_markdown
from workbench.schema import Label

LABELS: dict[str, Label] = {
    "Caption": Label.CAPTION,
    "Footnote": Label.FOOTNOTE,
    "Equation-Block": Label.FORMULA,
    "List-Group": Label.LIST,
    "Page-Header": Label.HEADER,
    "Page-Footer": Label.FOOTER,
    "Image": Label.FIGURE,
    "Section-Header": Label.SECTION_HEADER,
    "Table": Label.TABLE,
    "Text": Label.TEXT,
    "Complex-Block": Label.TEXT,
    "Code-Block": Label.CODE,
    "Form": Label.FORM,
    "Table-Of-Contents": Label.TABLE,  # Chandra writes a table of contents as a <table>
    "Figure": Label.FIGURE,
    # Chandra 2 additions
    "Chemical-Block": Label.FORMULA,
    "Diagram": Label.FIGURE,
    "Bibliography": Label.LIST,
}
SKIP = {"blankpage"}

_DIV = re.compile(r"<(/?)div\b([^>]*)>", re.I)


def _attrs(tag_text: str) -> dict[str, str]:
    """Attributes of one start tag, via the standard parser (handles both quote styles)."""
    found: dict[str, str] = {}

    class _One(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if not found:
                found.update({k: v or "" for k, v in attrs})

    parser = _One()
    parser.feed(tag_text)
    parser.close()
    return found


def split_divs(html: str) -> tuple[list[tuple[dict[str, str], str]], bool]:
    """Top-level divs as (attributes, inner HTML); True when the last one was never closed."""
    blocks: list[tuple[dict[str, str], str]] = []
    depth = 0
    start_attrs: dict[str, str] = {}
    inner_start = 0
    for match in _DIV.finditer(html):
        closing = match.group(1) == "/"
        if not closing:
            if depth == 0:
                start_attrs = _attrs(match.group(0))
                inner_start = match.end()
            if not match.group(0).rstrip().endswith("/>"):
                depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0:
                blocks.append((start_attrs, html[inner_start : match.start()]))
    truncated = depth > 0
    if not truncated and html.rstrip() and not html.rstrip().endswith(">"):
        truncated = True  # cut inside a tag or between blocks
    return blocks, truncated


def _parse(raw: str, ctx: ParseContext, scale: int) -> ParsedPage:
    divs, truncated = split_divs(raw or "")
    drafts: list[Draft] = []
    for attrs, inner in divs:
        native = attrs.get("data-label", "").strip() or "Text"
        if re.sub(r"[\s_\-]", "", native).lower() in SKIP:
            continue
        drafts.append(Draft(native, read_box(attrs.get("data-bbox")), html_to_markdown(inner)))
    regions = finish(
        drafts, LABELS, scale_x=scale, scale_y=scale, width=ctx.width, height=ctx.height
    )
    notes = unlocated_note(regions)
    if not divs and (raw or "").strip() and not re.search(r"<div\b", raw, re.I):
        # No layout divs at all (e.g. the plain "ocr" prompt): keep the text, unlocated.
        text = html_to_markdown(raw)
        regions = finish(
            [Draft("Text", None, text)],
            LABELS,
            scale_x=scale,
            scale_y=scale,
            width=ctx.width,
            height=ctx.height,
        )
        notes.append("the output had no layout blocks; its text is kept as one unlocated block")
    if truncated:
        notes.append("the output was cut off; the unfinished last block was dropped")
    return ParsedPage(regions=regions, truncated=truncated, notes=notes)


@register("chandra2")
def parse_chandra2(raw: str, ctx: ParseContext) -> ParsedPage:
    """Chandra OCR 2: boxes normalised 0-1000."""
    return _parse(raw, ctx, 1000)


@register("chandra1")
def parse_chandra1(raw: str, ctx: ParseContext) -> ParsedPage:
    """Chandra 1: boxes normalised 0-1024."""
    return _parse(raw, ctx, 1024)
