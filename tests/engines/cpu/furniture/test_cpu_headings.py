"""Headings on scans (issue 12 item 5): line height and stroke weight find the headings the
text layer finds from its fonts, and body lines, list items, table rows, bold sentences and
captions stay what they are. Every page goes through both readers: the text layer (``auto``)
and OCR of the rendered page with its layer left out (``never``).

Real pages: tests/data's born-digital article, statement, LaTeX and Census pages, and two real
scans (a Dickens page without headings, Huckleberry Finn's chapter opening). Constructed pages
(written with PDFium, as tests/data/make_born_digital.py writes its pages): the textbook page
of test_cpu_boxes ("2.3 Area of a Triangle", 14 pt bold over 11 pt text) and a methods page
whose numbered section headings are bold at body size.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from tests.engines.cpu.figures.test_cpu_boxes import DATA, _run, _textbook, mbd
from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.furniture import headings, weight
from workbench.engines.cpu.page import Block
from workbench.markdown.assemble import assemble_page

pytestmark = pytest.mark.slow
PARA = (
    "Every sample was taken from the same field on the same morning and kept cold until it "
    "reached the laboratory, where it was weighed and dried."
)


def _methods(out: Path) -> None:
    """Numbered headings bold at body size (11 pt Times-Bold), and what must not be one: a
    numbered list, a bold sentence, a bold row of figures, a bold caption line."""
    pdf = pdfium.PdfDocument.new()
    p = mbd.Page(pdf)
    p.text(72, 72, "3 Methods", 11, "Times-Bold")
    y = p.paragraph(72, 92, 468, PARA + " " + PARA, 11)
    p.text(72, y + 10, "3.1 Sampling", 11, "Times-Bold")
    y = p.paragraph(72, y + 30, 468, PARA, 11)
    for item in ("1. Collect the samples", "2. Weigh each sample twice", "3. Dry the samples"):
        p.text(90, y + 4, item, 11)
        y += 15
    p.text(72, y + 14, "Note that every sample was weighed twice.", 11, "Times-Bold")
    y = p.paragraph(72, y + 34, 468, PARA, 11)
    p.text(72, y + 10, "Total", 11, "Helvetica-Bold")
    for x, v in ((330, "1,204"), (420, "1,087"), (510, "962")):
        p.text(x, y + 10, v, 11, "Helvetica-Bold", "right")
    p.text(72, y + 40, "Figure 2: Weights of the samples", 11, "Times-Bold")
    y = p.paragraph(72, y + 60, 468, PARA, 11)
    p.text(72, y + 16, "3.2 Drying", 11, "Times-Bold")
    p.paragraph(72, y + 36, 468, PARA, 11)
    p.close()
    pdf.save(out)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("pages")
    _textbook(d / "textbook.pdf")
    _methods(d / "methods.pdf")
    return {"textbook": d / "textbook.pdf", "methods": d / "methods.pdf"}


def _headings(engine, path: Path, index: int, mode: str) -> tuple[list[str], str]:  # type: ignore[no-untyped-def]
    regions, _ = _run(engine, path, index, mode)
    md = assemble_page(regions, include_furniture=True)
    return [ln for ln in md.splitlines() if ln.startswith("#")], md


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_numbered_section_heading_on_the_textbook_page(engine, made, mode):
    heads, md = _headings(engine, made["textbook"], 1, mode)
    # a numbered section is a subsection, never the page title; both readers agree
    assert heads == ["### 2.3 Area of a Triangle", "### 2.4 Similar Triangles"]
    # the 11 pt sentences are larger than the 9 pt exercises, but they are sentences
    assert "\nTwo triangles are similar when their angles are equal." in md
    assert "The area of a triangle is half the product" in md
    assert md.count("protractor") == 1


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_bold_body_size_headings_and_what_is_not_one(engine, made, mode):
    heads, md = _headings(engine, made["methods"], 1, mode)
    assert heads == ["## 3 Methods", "### 3.1 Sampling", "### 3.2 Drying"]
    for words in ("Collect the samples", "weighed twice.", "1,204", "Figure 2: Weights"):
        assert words in md
        assert not any(words in h for h in heads), words


@pytest.mark.parametrize(
    "name,index,expected",
    [
        (
            "two_column_article.pdf",
            1,
            [
                "Reading Order in Two-Column Articles",
                "Abstract",
                "1 Introduction",
                "2 Method",
                "3 Results",
                "4 Conclusion",
            ],
        ),
        (
            "financial_statement.pdf",
            1,
            [
                "ACME WIDGETS, INC. CONSOLIDATED STATEMENTS OF OPERATIONS",
                "Note 2 - Business Combination",
                "Recently Issued Accounting Pronouncements",
            ],
        ),
        ("pdflatex_outline.pdf", 2, ["1 Foo", "2 Bar", "3 Baz", "4 Foo"]),
        (
            "census_12s0324.pdf",
            1,
            ["Table 324. Arrests by Sex and Age: 2009", "Table 325. Arrests by Race: 2009"],
        ),
    ],
)
@pytest.mark.parametrize("mode", ["auto", "never"])
def test_real_pages_give_the_same_headings_through_both_readers(
    engine, name, index, expected, mode
):
    heads, _ = _headings(engine, DATA / name, index, mode)
    # exactly these: no body line, list item, table row or caption became a heading
    assert [h.lstrip("#").strip() for h in heads] == expected


@pytest.mark.parametrize(
    "name,expected", [("scan_two_columns.pdf", []), ("scan_huckfinn_c03-29.pdf", ["# Chapter"])]
)
def test_real_scans_keep_their_body_text(engine, name, expected):
    """A dense book scan (heavy, uneven ink) has no heading: the stroke is measured against
    the page's own body text, not an absolute weight."""
    heads, _ = _headings(engine, DATA / name, 1, "never")
    assert heads == expected


@pytest.mark.parametrize("dpi", [150, 200, 300])
def test_stroke_tells_bold_from_regular(engine, made, dpi):
    """On the rendered methods page the bold lines' strokes are ≥ 1.2 × the body's at any
    usual scan resolution, and regular lines stay within 10 % of it."""
    page = pdfium.PdfDocument(made["methods"])[0]
    image = page.render(scale=dpi / 72).to_pil().convert("RGB")
    lines, _ = engine.tess.read(image)
    gray = np.asarray(image.convert("L"))
    weight.weigh(lines, gray)
    body = headings.Page(lines, float(np.median([ln.height for ln in lines]))).stroke
    bold = [ln for ln in lines if re.match(r"(3 Methods|3\.[12] |Note that|Figure 2)", ln.text)]
    assert len(bold) == 5, [ln.text for ln in lines]
    for ln in bold:
        assert ln.stroke >= 1.2 * body, (ln.text, ln.stroke, body)
    for ln in lines:
        if ln.text.startswith(("Every sample", "1. Collect", "2. Weigh")):
            assert abs(ln.stroke - body) <= 0.1 * body, (ln.text, ln.stroke, body)


def test_heading_rules_on_lines():
    def ln(text: str, h: float = 25.0, stroke: float = 1.0, size: float = 0.0, bold=False):  # type: ignore[no-untyped-def]
        return Line(text, (0.0, 0.0, 20.0 * len(text), h), 95.0, "tesseract", size=size,
                    bold=bold, stroke=stroke)  # fmt: skip

    body = [ln("a body line of ordinary running text " * 3) for _ in range(20)]
    page = headings.Page(body, 25.0)
    assert page.stroke == 1.0 and page.heights["tesseract"] == 25.0
    assert page.kind(ln("2.3 Area of a Triangle", 34.0)) == "size"  # 1.36 × body
    assert page.kind(ln("2.3 Area of a Triangle", 30.0, 1.5)) == "size"  # larger and bold
    assert page.kind(ln("2.3 Area of a Triangle", 30.0)) == ""  # 1.2 × and regular
    assert page.kind(ln("Recently Issued Pronouncements", 25.0, 1.3)) == "weight"
    for text in (
        "Two triangles are similar when their angles are equal.",  # a sentence, even large
        "Total revenue 1,204 1,087 962",  # a row of figures
        "1 204 1 087",  # no words
        "with a lower-case start",
    ):
        assert page.kind(ln(text, 40.0, 1.6)) == "", text
    for text in ("Figure 3: Revenue by quarter", "Note that the sample was dried,"):
        assert page.kind(ln(text, 25.0, 1.6)) == "", text  # bold at body size only
    assert page.kind(ln("Figure 3: Revenue by quarter", 40.0)) == "size"  # a table's title
    assert page.kind(ln("Small bold print", 15.0, 1.6)) == ""  # under body height
    # a page set mostly in bold (a form): its body stroke is the bold one, so no bold line
    # at body size stands out
    heavy = headings.Page([ln("A LABEL OF A FORM FIELD", stroke=1.5) for _ in range(30)]
                          + body[:5], 25.0)  # fmt: skip
    assert heavy.stroke == 1.5 and heavy.kind(ln("Section A Applicant", 25.0, 1.5)) == ""
    # text layer: sizes and the bold flag, the same sentence rule
    layer = headings.Page([ln("body text " * 8, size=11.0) for _ in range(10)], 25.0)
    assert layer.kind(ln("Results", size=14.0)) == "size"
    assert layer.kind(ln("Results", size=11.0, bold=True)) == "weight"
    assert layer.kind(ln("Two triangles are similar when their angles are equal.", size=14.0)) == ""


def test_levels_follow_size_then_numbering():
    def block(text: str, y: float, h: float, stroke: float = 1.0) -> Block:
        line = Line(text, (100.0, y, 400.0, y + h), 95.0, "tesseract", stroke=stroke)
        return Block("text", line.box, [line], 0.9)

    body = Line("running text of the body " * 4, (100.0, 2000.0, 1000.0, 2025.0), 95.0,
                "tesseract", stroke=1.0)  # fmt: skip
    blocks = [block("Sales Report", 400.0, 45.0), block("2 Results", 600.0, 25.0, 1.5),
              block("2.1 Revenue", 800.0, 25.0, 1.5), block("Outlook", 1000.0, 36.0)]  # fmt: skip
    out = headings.split(blocks + [Block("text", body.box, [body], 0.9)] * 8,
                         [b.lines[0] for b in blocks] + [body] * 8, 25.0, 3000.0)  # fmt: skip
    assert [b.native for b in out[:4]] == ["heading:1", "heading:3", "heading:3", "heading:2"]
