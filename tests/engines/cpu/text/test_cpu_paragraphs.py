"""Paragraphs and title lines on a born-digital page set like a poem or an essay with no
space between paragraphs (hanging indents), under a title and a smaller date line. The page
is written here with PDFium (tests/born_digital.py): real text objects, the real engine."""

from __future__ import annotations

import pypdfium2 as pdfium
import pytest

from tests.born_digital import mbd
from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu import get_cpu_engine
from workbench.engines.cpu.boxes import Line, paragraph_gaps
from workbench.engines.cpu.markdown import paragraphs
from workbench.markdown.assemble import assemble_page

PARAGRAPHS = [
    ("Here is to the quiet ones. The patient readers of old ledgers.", "They keep the records."),
    (
        "The ones who count things twice. They are not fond of guesses. And they have",
        "no respect for a total that does not add up.",
    ),
    ("We make tools for these kinds of people.", ""),
]


def essay(path) -> None:  # type: ignore[no-untyped-def]
    pdf = pdfium.PdfDocument.new()
    page = mbd.Page(pdf)
    page.text(72, 90, "The Quiet Ones", size=20, font="Times-Italic")
    page.text(72, 116, "October 14, 1998", size=14, font="Times-Italic")
    y = 150.0
    for first, rest in PARAGRAPHS:
        page.text(80, y, first, size=11)
        y += 14
        if rest:
            page.text(96, y, rest, size=11)  # the continuation hangs, indented
            y += 14
    page.close()
    pdf.save(path)


@pytest.mark.slow
def test_title_date_and_paragraphs_set_without_space_between_them(tmp_path):
    path = tmp_path / "essay.pdf"
    essay(path)
    image = pdfium.PdfDocument(path)[0].render(scale=200 / 72).to_pil().convert("RGB")
    req = PageRequest(key="p", image=image, text_layer=extract_pdf(path, 1))
    out = next(iter(get_cpu_engine().run([req])))
    assert out.error is None, out.error
    blocks = assemble_page(out.regions or []).strip().split("\n\n")
    assert blocks[0] == "# The Quiet Ones"
    assert blocks[1].lstrip("#").strip() == "October 14, 1998" and blocks[1].startswith("##")
    assert blocks[2:] == [" ".join(p for p in pair if p) for pair in PARAGRAPHS]


def test_a_short_line_ending_a_sentence_ends_its_paragraph():
    def line(text: str, x1: float, y: float) -> Line:
        return Line(text, (100.0, y, x1, y + 20), 95.0, "text_layer")

    group = [
        line("a full line of a paragraph that runs to the", 900, 0),
        line("margin and ends here.", 400, 22),  # short, a sentence ends: a paragraph ends
        line("Next paragraph starts here and runs to the right", 900, 44),
        line("margin; this line is full too, and ends with", 880, 66),
        line("a word.", 300, 88),
        line("lower case after a short line: the same paragraph", 900, 110),
    ]
    gaps = paragraph_gaps(group)
    assert [g == float("inf") for g in gaps] == [False, True, False, False, False]


def _full(text: str, y: float, source: str = "text_layer") -> Line:
    return Line(text, (100.0, y, 900.0, y + 25), 95.0, source)


def test_space_between_paragraphs_of_a_tight_block_ends_a_paragraph():
    """i1040nr p7 (the IRS's instructions): lines 3 px apart, a paragraph's last line and the
    next paragraph 25 px apart, less than the 1.2 line heights every block splits at."""
    ys = [0, 28, 56, 84, 133, 161]  # 3 px between lines, 24 px after the fourth
    group = [
        _full(f"line {k} of running text, a full one and then some", y) for k, y in enumerate(ys)
    ]
    gaps = paragraph_gaps(group)
    assert [g == float("inf") for g in gaps] == [False, False, False, True, False]
    # OCR boxes follow ink: the same gaps keep the block whole (the 1.2-line rule decides)
    ocr = [_full(ln.text, ln.box[1], "tesseract") for ln in group]
    assert float("inf") not in paragraph_gaps(ocr)
    # a block set with loose leading throughout has no such gap
    loose = [_full(f"line {k}", y) for k, y in enumerate([0, 40, 80, 120, 160])]
    assert float("inf") not in paragraph_gaps(loose)


def test_a_numbered_run_inside_prose_opens_an_item_at_each_number():
    lines = [
        "considered to have tax avoidance as a principal purpose if:",
        "1. Your average annual net income tax was more than",
        "$100,000, or",
        "2. Your net worth on the date of your action was",
        "$500,000 or more.",
    ]
    out = paragraphs(lines, [3.0] * 4, 25.0).split("\n\n")
    assert out == [
        "considered to have tax avoidance as a principal purpose if:",
        "1. Your average annual net income tax was more than \\$100,000, or",
        "2. Your net worth on the date of your action was \\$500,000 or more.",
    ]
    # a wrapped line that happens to start with a number is no item
    wrapped = ["the amounts are adjusted after", "2004 (see the chart below). Then", "5. the rest"]
    assert paragraphs(wrapped, [3.0, 3.0], 25.0).count("\n\n") == 0
