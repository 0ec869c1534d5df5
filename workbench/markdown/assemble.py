"""Regions to Markdown: one assembler for every engine, so every model reads the same way.

Rules, per canonical label (regions in their ``order``):

=====================  ==========================================================
title                  ``# text`` (unless the text is already a heading)
section_header         ``## text`` (likewise)
table                  the region's table as given (pipe table or sanitized HTML)
formula                ``$$ … $$`` unless the text already carries math delimiters
figure                 ``![Figure rN](page-NNNN-rN.png)`` placeholder, then its text
code                   fenced block unless already fenced
signature              ``*[signature]*`` (plus any text read in it)
header, footer,        left out unless ``include_furniture``; then plain text
page_number
everything else        the text as is
=====================  ==========================================================

Control characters never reach the Markdown (:func:`without_controls`). A region with
``continues`` (LightOnOCR ``text+``) is joined to the previous block with a
space instead of a blank line. Document Markdown joins pages with ``<!-- page N -->``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from workbench.schema import FURNITURE, Label, Region

#: What a signature region reads as (metrics drop it: it is a placeholder, not text).
SIGNATURE_MARK = "*[signature]*"


def figure_filename(page: int, region_id: str) -> str:
    return f"page-{page:04d}-{region_id}.png"


_FIGURE_FILE = re.compile(r"^page-(\d{4,})-[^/\\]+\.png$")


def figure_page(name: str) -> int | None:
    """The page number of a :func:`figure_filename`, or None for any other name."""
    found = _FIGURE_FILE.match(name)
    return int(found.group(1)) if found else None


_MATH = re.compile(r"\$[^$]+\$")
#: C0 controls but tab and newline, DEL, C1 controls (a glyph a PDF font maps to its code, a
#: model's stray byte): never Markdown, whichever engine wrote the region
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # half a pair: not writable as UTF-8


def without_controls(text: str) -> str:
    """``text`` with CR LF and CR as LF, control characters (but tab and LF) removed and
    lone surrogates as U+FFFD: what every engine's Markdown goes through here."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _SURROGATE.sub("\ufffd", _CONTROLS.sub("", text))


def _block(region: Region, page: int) -> str:
    text = without_controls(region.text).strip()
    label = region.label
    if label is Label.TITLE:
        return text if text.startswith("#") or not text else f"# {text}"
    if label is Label.SECTION_HEADER:
        return text if text.startswith("#") or not text else f"## {text}"
    if label is Label.FORMULA:
        if not text or _MATH.search(text) or text.startswith("\\["):
            return text  # already delimited (a numbered item "150. $s(t) = …$" too)
        return f"$$\n{text}\n$$"
    if label is Label.FIGURE:
        placeholder = f"![Figure {region.id}]({figure_filename(page, region.id)})"
        return f"{placeholder}\n\n{text}" if text else placeholder
    if label is Label.CODE:
        return text if not text or text.startswith("```") else f"```\n{text}\n```"
    if label is Label.SIGNATURE:
        return f"{SIGNATURE_MARK} {text}".strip()
    return text


def assemble_page(regions: Sequence[Region], page: int = 1, include_furniture: bool = False) -> str:
    parts: list[str] = []
    for region in sorted(regions, key=lambda r: r.order):
        if region.label in FURNITURE and not include_furniture:
            continue
        block = _block(region, page)
        if not block:
            continue
        if region.continues and parts:
            parts[-1] = f"{parts[-1]} {block}"
        else:
            parts.append(block)
    return "\n\n".join(parts).strip() + ("\n" if parts else "")


def assemble_document(pages: Iterable[tuple[int, str]]) -> str:
    """Join ``(page number, page Markdown)`` pairs into one document."""
    chunks = [f"<!-- page {n} -->\n\n{without_controls(md).strip()}\n" for n, md in pages]
    return "\n".join(chunks)
