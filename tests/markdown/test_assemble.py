"""assemble: one Markdown assembler for every engine."""

from __future__ import annotations

from workbench.markdown.assemble import assemble_document, assemble_page
from workbench.schema import BBox, Label, Region


def reg(i: int, label: Label, text: str, **kw: object) -> Region:
    box = BBox(x0=0, y0=i * 10, x1=100, y1=i * 10 + 9)
    return Region(
        id=f"r{i}", label=label, native_label=label.value, bbox=box, text=text, order=i, **kw
    )


def test_rules_per_label_and_reading_order() -> None:
    regions = [
        reg(5, Label.FORMULA, "E = mc^2"),
        reg(0, Label.HEADER, "ACME Quarterly"),
        reg(1, Label.TITLE, "Results"),
        reg(2, Label.SECTION_HEADER, "Sales"),
        reg(3, Label.TEXT, "Sales rose."),
        reg(4, Label.FIGURE, "Figure 1: growth"),
        reg(6, Label.CODE, "print(1)"),
        reg(7, Label.SIGNATURE, ""),
        reg(8, Label.PAGE_NUMBER, "7"),
    ]
    md = assemble_page(regions, page=3)
    assert md.splitlines()[0] == "# Results"
    assert "## Sales\n\nSales rose." in md
    assert "![Figure r4](page-0003-r4.png)\n\nFigure 1: growth" in md
    assert "$$\nE = mc^2\n$$" in md
    assert "```\nprint(1)\n```" in md
    assert "*[signature]*" in md
    assert "ACME" not in md and "\n7\n" not in md  # furniture left out by default
    with_furniture = assemble_page(regions, page=3, include_furniture=True)
    assert with_furniture.startswith("ACME Quarterly") and with_furniture.rstrip().endswith("7")


def test_existing_markup_is_not_doubled() -> None:
    md = assemble_page([reg(0, Label.TITLE, "# Done"), reg(1, Label.FORMULA, "$$x$$")])
    assert md == "# Done\n\n$$x$$\n"
    # a numbered exercise's formula is an ordered item with inline math: not wrapped again
    item = assemble_page([reg(0, Label.FORMULA, "150. $s(t) = t^{2}$")])
    assert item == "150. $s(t) = t^{2}$\n"
    assert assemble_page([reg(0, Label.FORMULA, "x = 5")]) == "$$\nx = 5\n$$\n"


def test_continued_blocks_join_the_previous_one() -> None:
    md = assemble_page(
        [reg(0, Label.TEXT, "The end of a"), reg(1, Label.TEXT, "sentence.", continues=True)]
    )
    assert md == "The end of a sentence.\n"


def test_empty_page_and_document_join() -> None:
    assert assemble_page([]) == ""
    doc = assemble_document([(1, "one"), (2, "two\n")])
    assert doc.index("<!-- page 1 -->") < doc.index("one") < doc.index("<!-- page 2 -->")


def test_no_control_character_reaches_the_markdown() -> None:
    regions = [
        reg(0, Label.TEXT, "a NUL\x00 here, a C1 bullet \x88 there,\r\nCR LF and a tab\tkept"),
        reg(1, Label.TABLE, "| a\x07 | b\x1b |"),
        reg(2, Label.SECTION_HEADER, "\x0cHeading\x7f"),
    ]
    md = assemble_page(regions)
    assert not [c for c in md if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F]
    assert "a NUL here, a C1 bullet  there,\nCR LF and a tab\tkept" in md
    assert "## Heading" in md
    doc = assemble_document([(1, "one\x00\n"), (2, "half a pair \ud800")])
    assert "\x00" not in doc and "\ufffd" in doc
    doc.encode("utf-8")  # writable
