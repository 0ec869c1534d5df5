"""Bulleted items inside a block of prose: each a Markdown list item, its wrapped lines joined
to it; a real pdfLaTeX page (tests/data/bullets_pdftex.pdf) and pure line lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu import markdown as md
from workbench.markdown.assemble import assemble_page

PAGE = Path(__file__).resolve().parents[3] / "data" / "bullets_pdftex.pdf"


def test_bullet_lines_inside_prose_become_list_items() -> None:
    lines = [
        "The points below are the ones",
        "a user will notice first.",
        "• Pages keep their text layer, so",
        "the reader runs no OCR.",
        "• Lists are kept as lists.",
        "Everything else works as before.",
    ]
    gaps = [1.0, 1.0, 1.0, 1.0, float("inf")]
    out = md.paragraphs(lines, gaps, 10.0)
    assert out.split("\n\n") == [
        "The points below are the ones a user will notice first.",
        "- Pages keep their text layer, so the reader runs no OCR.\n- Lists are kept as lists.",
        "Everything else works as before.",
    ]


def test_a_hyphen_opening_a_wrapped_prose_line_is_no_item() -> None:
    out = md.paragraphs(["the range is 5", "- 7 units wide."], [1.0], 10.0)
    assert out == "the range is 5 - 7 units wide."


@pytest.mark.slow
def test_real_latex_itemize_is_a_list_without_controls(engine) -> None:  # type: ignore[no-untyped-def]
    doc = open_document(PAGE.name, PAGE.read_bytes())
    page = doc.page(1, dpi=200)
    req = PageRequest(key="p", image=page.image, text_layer=page.text_layer)
    out = next(iter(engine.configured(text_layer="auto").run([req])))
    assert out.error is None, out.error
    text = assemble_page(out.regions or [], include_furniture=True)
    assert all(c in "\n\t" or (ord(c) >= 32 and not 0x7F <= ord(c) <= 0x9F) for c in text)
    items = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert len(items) == 3
    assert items[0].startswith("- Pages exported from Acrobat and other word processors")
    assert items[0].endswith("carry their own text.")  # the wrapped line joined to its item
    assert "\nEverything else works as before." in text
    assert all(r.source == "text_layer" for r in out.regions or [] if r.text)
