"""olmOCR output (allenai/olmocr 0.4.27 ``pipeline.py``, ``train/front_matter.py``).

Each page is YAML front matter, then Markdown (LaTeX math, HTML tables)::

    ---
    primary_language: en
    is_rotation_valid: True
    rotation_correction: 0
    is_table: False
    is_diagram: False
    ---
    olmOCR: Unlocking Trillions of Tokens in PDFs with Vision Language Models

No layout boxes: the Markdown is split into unlocated blocks like LightOnOCR's plain mode.

``rotation_correction`` (0, 90, 180 or 270) becomes ``ParsedPage.rotation``; the pipeline
applies it. Direction, from the olmOCR code (not its schema text, which says "clockwise"):
olmOCR re-renders the page with PIL ``Image.Transpose.ROTATE_<n>``, i.e. turned ``n`` degrees
**counter-clockwise** (``image.rotate(n, expand=True)``). Missing or malformed front matter is
not an error: the text is kept and rotation stays 0. A body of ``null`` means "no text".
"""

from __future__ import annotations

import re

import yaml

from workbench.parsers.base import ParseContext, ParsedPage, register
from workbench.parsers.lighton import markdown_regions

_FRONT = re.compile(r"\A\s*---[ \t]*\n(.*?)(?:\n---[ \t]*(?:\n|\Z)|\Z)", re.S)


def split_front_matter(raw: str) -> tuple[dict[str, object], str, bool]:
    """(front matter, body, complete): complete is False when the closing ``---`` is missing."""
    match = _FRONT.match(raw)
    if not match:
        return {}, raw, True
    complete = match.end() > match.end(1)
    try:
        data = yaml.safe_load(match.group(1)) if complete else _loose_yaml(match.group(1))
    except yaml.YAMLError:
        data = _loose_yaml(match.group(1))
    if not isinstance(data, dict):
        data = {}
    return data, raw[match.end() :], complete


def _loose_yaml(text: str) -> dict[str, object]:
    """Key: value lines, read one by one (for cut-off or malformed front matter)."""
    out: dict[str, object] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            try:
                out[key.strip()] = yaml.safe_load(value.strip()) if value.strip() else None
            except yaml.YAMLError:
                out[key.strip()] = value.strip()
    return out


@register("olmocr")
def parse_olmocr(raw: str, ctx: ParseContext) -> ParsedPage:
    front, body, complete = split_front_matter(raw or "")
    if body.strip() == "null":
        body = ""
    page = markdown_regions(body, ctx)
    rotation = front.get("rotation_correction")
    try:
        degrees = int(str(rotation)) % 360 if rotation is not None else 0
    except ValueError:
        degrees = 0
    if degrees not in (0, 90, 180, 270):
        page.notes.append(f"ignored an invalid rotation_correction: {rotation!r}")
        degrees = 0
    page.rotation = degrees
    if degrees:
        page.notes.append(
            f"olmOCR says the page needs turning {degrees}° "
            "(counter-clockwise, as olmOCR applies it)"
        )
    if not complete:
        page.truncated = True
        page.notes.append("the output was cut off inside the front matter")
    if front.get("is_rotation_valid") is False and not degrees:
        page.notes.append("olmOCR flagged the page orientation as wrong but gave no correction")
    return page
