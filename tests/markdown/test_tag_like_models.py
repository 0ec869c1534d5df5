"""Tag-like text in every model's output format reaches the reader whole.

"(see Note #5 and <Segment Information>)" is text on a real page
(tests/data/financial_statement.pdf).
Whatever format a model writes it in, the page's Markdown and each region's block, sanitized as
the Viewer and the Runs view show them and rendered as ``st.markdown`` renders (HTML first, then
Markdown), keep the words; so does the HTML export.
"""

from __future__ import annotations

import html
import json
import re

import pytest
from markdown_it import MarkdownIt

from workbench.markdown.assemble import assemble_page
from workbench.markdown.sanitize import render_html, sanitize_markdown
from workbench.parsers import ParseContext, get_parser

TAG_LIKE = "(see Note #5 and <Segment Information>)"
SENTENCE = f"Guidance on segment reporting {TAG_LIKE} is being evaluated."
CTX = ParseContext(width=1000, height=1000)

#: One raw answer per parser, in the format its model writes (HTML models escape the "<" as
#: HTML does; the others write it as is).
RAW = {
    "chandra2": f'<div data-bbox="100 100 900 200" data-label="Text"><p>'
    f"{html.escape(SENTENCE)}</p></div>",
    "chandra1": f'<div data-bbox="100 100 900 200" data-label="Text"><p>'
    f"{html.escape(SENTENCE)}</p></div>",
    "lighton_plain": f"# Notes\n\n{SENTENCE}\n",
    "lighton_grounding": f"![text](100,100,900,200) {SENTENCE}\n",
    "olmocr": f"---\nprimary_language: en\nrotation_correction: 0\n---\n{SENTENCE}\n",
    "dots_ocr": json.dumps([{"bbox": [100, 100, 900, 200], "category": "Text", "text": SENTENCE}]),
    "deepseek_ocr": f"<|ref|>text<|/ref|><|det|>[[100, 100, 900, 200]]<|/det|>\n{SENTENCE}\n",
}


def _shown(sanitized: str) -> str:
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(sanitized)
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", rendered)).split())


@pytest.mark.parametrize("name", sorted(RAW))
def test_every_format_keeps_tag_like_text(name: str) -> None:
    parsed = get_parser(name)(RAW[name], CTX)
    assert parsed.regions, name
    page_md = assemble_page(parsed.regions, 1)
    assert TAG_LIKE in _shown(sanitize_markdown(page_md)), page_md
    blocks = [assemble_page([r], 1, include_furniture=True) for r in parsed.regions]
    assert any(TAG_LIKE in _shown(sanitize_markdown(b)) for b in blocks), blocks
    export = " ".join(html.unescape(re.sub(r"<[^>]*>", "", render_html(page_md))).split())
    assert TAG_LIKE in export
