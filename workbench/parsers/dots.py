"""dots.ocr layout JSON (rednote-hilab/dots.ocr ``utils/layout_utils.py``, ``image_utils.py``).

With the ``prompt_layout_all_en`` prompt the model answers one JSON array::

    [{"bbox": [x1, y1, x2, y2], "category": "Section-header", "text": "## 1 Intro"}, ...]

Boxes are in **pixels of the image the model saw**: the server resizes every image with
Qwen2-VL's ``smart_resize`` (sides on a 28-pixel grid, area within 3,136..11,289,600 pixels).
The parser scales them from ``ParseContext.input_width/height`` when given, else from
:func:`smart_resize` of the page size, to ``page_px`` (what dots.ocr's ``post_process_cells``
does). Categories: Caption, Footnote, Formula (LaTeX), List-item, Page-footer, Page-header,
Picture (no text), Section-header, Table (HTML), Text, Title; text is Markdown.

Invalid or truncated JSON never raises: every complete object before the break is kept and
``truncated`` is set. A list whose only fault is a missing closing ``]`` after its last
complete object is whole (the model stopped; nothing is lost), not truncated: a real cut-off
by ``max_tokens`` is still reported by the finish reason.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from workbench.parsers.base import ParseContext, ParsedPage, register
from workbench.parsers.common import Draft, finish, read_box, unlocated_note
from workbench.parsers.html_md import clean_tables
from workbench.schema import Label

FACTOR = 28
MIN_PIXELS = 3136
MAX_PIXELS = 11_289_600

LABELS: dict[str, Label] = {
    "Caption": Label.CAPTION,
    "Footnote": Label.FOOTNOTE,
    "Formula": Label.FORMULA,
    "List-item": Label.LIST,
    "Page-footer": Label.FOOTER,
    "Page-header": Label.HEADER,
    "Picture": Label.FIGURE,
    "Section-header": Label.SECTION_HEADER,
    "Table": Label.TABLE,
    "Text": Label.TEXT,
    "Title": Label.TITLE,
}


def smart_resize(
    height: int,
    width: int,
    factor: int = FACTOR,
    min_pixels: int = MIN_PIXELS,
    max_pixels: int = MAX_PIXELS,
) -> tuple[int, int]:
    """(height, width) the Qwen2-VL processor resizes an image to; same arithmetic as
    dots.ocr's ``smart_resize``, except that it never raises (extreme aspect ratios included)."""
    height, width = max(int(height), 1), max(int(width), 1)
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
        if h_bar * w_bar > max_pixels:
            beta = math.sqrt((h_bar * w_bar) / max_pixels)
            h_bar = max(factor, math.floor(h_bar / beta / factor) * factor)
            w_bar = max(factor, math.floor(w_bar / beta / factor) * factor)
    return h_bar, w_bar


def salvage_json(raw: str) -> tuple[list[Any], bool]:
    """The objects of a JSON array, as many as are complete; True when the text was cut or bad."""
    text = raw.strip()
    text = re.sub(r"^```(?:json)?\s*", "", text)
    text = re.sub(r"\s*```$", "", text)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        pass
    else:
        if isinstance(data, list):
            return data, False
        if isinstance(data, dict):
            return [data], False
        return [], True
    decoder = json.JSONDecoder()
    start = text.find("[")
    pos = start + 1 if start >= 0 else 0
    items: list[Any] = []
    while pos < len(text):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            break
        try:
            item, pos = decoder.raw_decode(text, pos)
        except (json.JSONDecodeError, ValueError):
            break
        items.append(item)
    rest = text[pos:].strip(" \t\r\n,")
    complete = start >= 0 and bool(items) and rest in ("", "]")
    return items, not complete


def _text(category: str, value: object) -> str:
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if category == "Formula" and text and not text.startswith(("$", "\\[", "\\(")):
        return f"$$\n{text}\n$$"
    return clean_tables(text)


@register("dots_ocr")
def parse_dots(raw: str, ctx: ParseContext) -> ParsedPage:
    items, broken = salvage_json(raw or "")
    drafts: list[Draft] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        category = str(item.get("category") or "Text")
        drafts.append(
            Draft(category, read_box(item.get("bbox")), _text(category, item.get("text")))
        )
    if ctx.input_width and ctx.input_height:
        in_w, in_h = ctx.input_width, ctx.input_height
    else:
        in_h, in_w = smart_resize(ctx.height, ctx.width)
    regions = finish(drafts, LABELS, scale_x=in_w, scale_y=in_h, width=ctx.width, height=ctx.height)
    notes = unlocated_note(regions)
    if broken and (raw or "").strip():
        notes.append(
            f"the JSON was cut off or invalid; kept the {len(items)} complete block(s) "
            "before the break"
        )
    return ParsedPage(regions=regions, truncated=broken and bool((raw or "").strip()), notes=notes)
