"""DeepSeek-OCR grounding output (deepseek-ai/DeepSeek-OCR ``run_dpsk_ocr_image.py``).

With the prompt ``<image>\\n<|grounding|>Convert the document to markdown.`` the model writes::

    <|ref|>sub_title<|/ref|><|det|>[[217, 209, 520, 225]]<|/det|>
    ### 5.1 Hyper Parameter Optimization

A block's Markdown follows its marker up to the next ``<|ref|>``. Coordinates are normalised
**0-999** (the official scripts divide by 999); ``<|det|>`` may hold several boxes, which are
united. The special tokens only survive with ``skip_special_tokens=False``.

Quirk handled: the model often emits an empty ``table`` marker, then the ``table_caption``
marker, then the caption text followed by the table HTML; the table is moved back into the
empty table block. A marker cut off mid-way is not a block (``truncated`` is set).

Text outside any marker is kept, as upstream keeps it (``run_dpsk_ocr_image.py`` only removes
the matched ref/det spans): text before the first marker becomes an unlocated ``text`` block.
"""

from __future__ import annotations

import ast
import itertools
import re

from workbench.parsers.base import ParseContext, ParsedPage, register
from workbench.parsers.common import Draft, finish, read_box, union_box, unlocated_note
from workbench.parsers.html_md import clean_tables
from workbench.schema import Label

SCALE = 999

LABELS: dict[str, Label] = {
    "title": Label.TITLE,
    "sub_title": Label.SECTION_HEADER,
    "text": Label.TEXT,
    "table": Label.TABLE,
    "table_caption": Label.CAPTION,
    "table_footnote": Label.FOOTNOTE,
    "image": Label.FIGURE,
    "figure": Label.FIGURE,
    "image_caption": Label.CAPTION,
    "figure_caption": Label.CAPTION,
    "equation": Label.FORMULA,
    "formula": Label.FORMULA,
    "list": Label.LIST,
    "header": Label.HEADER,
    "page_header": Label.HEADER,
    "footer": Label.FOOTER,
    "page_footer": Label.FOOTER,
    "page_number": Label.PAGE_NUMBER,
    "footnote": Label.FOOTNOTE,
    "code": Label.CODE,
}

MARKER = re.compile(r"<\|ref\|>(.*?)<\|/ref\|>\s*<\|det\|>(.*?)<\|/det\|>", re.S)
_TABLE_START = re.compile(r"<table\b", re.I)
_PARTIAL = re.compile(r"<(?:\|[^\n]*)?$")


def _boxes(det: str) -> list[float] | None:
    try:
        value = ast.literal_eval(det.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return read_box(det)
    if (
        isinstance(value, list | tuple)
        and value
        and all(isinstance(v, list | tuple) for v in value)
    ):
        boxes = [b for b in (read_box(list(v)) for v in value) if b is not None]
        return union_box(boxes) if boxes else None
    return read_box(list(value)) if isinstance(value, list | tuple) else None


@register("deepseek_ocr")
def parse_deepseek(raw: str, ctx: ParseContext) -> ParsedPage:
    raw = raw or ""
    marks = list(MARKER.finditer(raw))
    drafts: list[Draft] = []
    lead = raw[: marks[0].start()].strip() if marks else ""
    if lead:
        drafts.append(Draft("text", None, lead))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(raw)
        text = raw[m.end() : end]
        if i == len(marks) - 1:
            text = _PARTIAL.sub("", text)  # a next marker cut off mid-way is not text
        drafts.append(Draft(m.group(1).strip(), _boxes(m.group(2)), text.strip()))
    for prev, cur in itertools.pairwise(drafts):
        if prev.native_label == "table" and not prev.text and cur.native_label.endswith("caption"):
            found = _TABLE_START.search(cur.text)
            if found and re.search(r"</table\s*>", cur.text[found.start() :], re.I):
                prev.text, cur.text = cur.text[found.start() :], cur.text[: found.start()]
    for draft in drafts:
        draft.text = clean_tables(draft.text)
    regions = finish(
        drafts,
        LABELS,
        scale_x=SCALE,
        scale_y=SCALE,
        width=ctx.width,
        height=ctx.height,
        keep_empty=frozenset({Label.FIGURE, Label.TABLE}),
    )
    notes = unlocated_note(regions)
    tail = raw[marks[-1].end() :] if marks else raw
    truncated = "<|ref|>" in tail or bool(_PARTIAL.search(raw))
    if truncated:
        notes.append("the output was cut off inside a block marker")
    if not marks and raw.strip() and "<|ref|>" not in raw:
        notes.append("the output had no grounding markers (was the <|grounding|> prompt used?)")
        regions = finish(
            [Draft("text", None, clean_tables(raw))],
            LABELS,
            scale_x=SCALE,
            scale_y=SCALE,
            width=ctx.width,
            height=ctx.height,
        )
    return ParsedPage(regions=regions, truncated=truncated, notes=notes)
