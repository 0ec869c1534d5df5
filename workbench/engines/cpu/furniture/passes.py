"""Furniture and heading passes: what is page furniture (out of the Markdown, still drawn in
the viewer), what is a heading and of which level, which block is the title.

* ``stroke_weight`` (lines, needs the image): the stroke weight of OCR lines, measured on the
  image, so that bold headings count on scans (:func:`.weight.weigh`).
* ``layout_furniture`` (blocks): a header/footer box the layout model found keeps that label
  only when it looks like furniture: above ``TOP_EDGE`` or below ``BOTTOM_EDGE`` of the page
  with no content level with it (a section title topping a paper's second column), or set
  smaller than the body text (text layer). Otherwise (a statement's title under the top
  margin) it is text.
* ``page_furniture`` (blocks): furniture judged on the page alone (the outer rows, set apart
  from the body, that are a folio, a running head with its page number, a document-control
  line, or small type) is cut out of whatever block holds it (:func:`.running.split_off`).
* ``contents`` (blocks): a table of contents is one block of entries, "entry … page" each
  (:func:`.contents.find`), before headings are looked for.
* ``headings`` (blocks): heading-like lines (font size and weight on the text layer; line
  height and stroke weight on OCR lines) are cut out of text blocks as ``heading:N`` blocks
  (:func:`.headings.split`). ``outline_headings``: where the PDF has bookmarks on the page,
  blocks (or their first lines) titled as an entry are headings at its depth (:mod:`.outline`).
* ``title`` (labelled blocks, in reading order): the first layout-model ``title`` whose lines
  are ``TITLE_HEIGHT`` × the page's median line height is the page title; others are section
  headers. ``heading_levels``: a ``heading:1`` block is the title, deeper ones section headers.
* ``margin_lines``: one or two ungrouped lines in the bottom ``FOOT`` or top ``HEAD`` of the
  page are running footers/headers the layout model missed. ``page_numbers``: headers,
  footers and text above ``FOLIO_TOP``/below ``FOLIO_BOTTOM`` whose text is only a page number are
  ``page_number``. ``furniture_only_page``: a page whose only text is furniture keeps it as
  text (a one-line page is content).
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, median
from workbench.engines.cpu.furniture import contents, headings, outline, running, weight
from workbench.engines.cpu.markdown import is_page_number
from workbench.engines.cpu.page import Block, Page
from workbench.schema import FURNITURE, Label

TOP_EDGE, BOTTOM_EDGE = 0.08, 0.92  # a layout header/footer above/below these is furniture
SMALLER = 0.95  # ...or one set this much smaller than the body (text layer sizes)
TITLE_HEIGHT = 1.4  # a title's lines are this much taller than the page's median line
FOOT, HEAD = 0.93, 0.05  # loose lines below FOOT or above HEAD (share of height): furniture
FOLIO_TOP, FOLIO_BOTTOM = 0.06, 0.94  # a text block only a number above/below: a folio
_FURNITURE = ("header", "footer")
_FOLIO_END = re.compile(r"^\d{1,4}\b|\b\d{1,4}$")  # "41 | Flight Safety", "Chapter 3 … 273"


def stroke_weight(page: Page) -> Page:
    if page.gray is not None:
        weight.weigh(page.lines, page.gray)
    return page


def layout_furniture(page: Page) -> Page:
    body, height = headings.body_size(page.lines), page.height
    content = [
        b.box
        for b in page.blocks
        if b.native not in _FURNITURE and (b.lines or b.native == "figure")
    ]
    for b in page.blocks:
        if b.native in _FURNITURE and b.lines:
            margin = b.box[3] < TOP_EDGE * height or b.box[1] > BOTTOM_EDGE * height
            margin = margin and not _level_with(b, content)
            size = median([ln.size for ln in b.lines if ln.size > 0], 0.0)
            small = body > 0 and 0 < size < SMALLER * body
            if not (margin or small):
                b.native = "text"
    return page


def _level_with(b: Block, content: list[Box]) -> bool:
    """Whether a layout header has the page's content beside it, not under it: a section
    title at the top of a paper's second column ("IV. TEXT DATA", level with the figure that
    tops the first) is content, whatever the model called it. Not a footer (a page's last
    box often reaches its foot) nor a line with a page number at either end (a running
    head's folio)."""
    text = " ".join(ln.text for ln in b.lines).strip()
    if b.native != "header" or is_page_number(text) or _FOLIO_END.search(text):
        return False
    return any(c[1] < b.box[1] + 0.5 * (b.box[3] - b.box[1]) for c in content)


def page_furniture(page: Page) -> Page:
    page.blocks = running.split_off(page.blocks, page.lines, page.width, page.height)
    return page


def table_of_contents(page: Page) -> Page:
    page.blocks = contents.find(page.blocks, page.width)
    return page


def heading_blocks(page: Page) -> Page:
    page.blocks = headings.split(page.blocks, page.lines, page.line_h, page.height)
    return page


def outline_headings(page: Page) -> Page:
    page.blocks = outline.apply(page.blocks, page.outline)
    return page


def title(page: Page) -> Page:
    for b in page.blocks:
        tall = bool(b.lines) and median([ln.height for ln in b.lines]) >= TITLE_HEIGHT * page.line_h
        if b.native == "title" and tall:
            b.label = Label.TITLE
            break
    return page


def heading_levels(page: Page) -> Page:
    for b in page.blocks:
        if b.native.startswith("heading:"):
            b.level = int(b.native.split(":")[1])
        if b.level:
            b.label = Label.TITLE if b.level == 1 else Label.SECTION_HEADER
    return page


def margin_lines(page: Page) -> Page:
    for b in page.blocks:
        if b.native == "ocr_lines" and len(b.printed) <= 2:
            if b.box[1] > FOOT * page.height:
                b.label = Label.FOOTER
            elif b.box[3] < HEAD * page.height:
                b.label = Label.HEADER
    return page


def page_numbers(page: Page) -> Page:
    for b in page.blocks:
        raw = " ".join(ln.text for ln in b.printed)
        if b.label in (Label.HEADER, Label.FOOTER, Label.TEXT) and is_page_number(raw):
            edge = b.box[1] < FOLIO_TOP * page.height or b.box[3] > FOLIO_BOTTOM * page.height
            if b.label is not Label.TEXT or edge:
                b.label = Label.PAGE_NUMBER
    return page


def furniture_only_page(page: Page) -> Page:
    if any((b.text or "").strip() and b.label not in FURNITURE for b in page.blocks):
        return page
    for b in page.blocks:
        if b.label in FURNITURE and b.text:
            b.label = Label.TEXT
    return page
