"""CPU engine logic without models: reading order, table gridding, labels, text, compose."""

from __future__ import annotations

from workbench.engines.cpu.boxes import LayoutBox, Line, Word
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.labels import canonical
from workbench.engines.cpu.markdown import (
    formula_markdown,
    is_page_number,
    join_lines,
    paragraphs,
)
from workbench.engines.cpu.order.columns import reading_order
from workbench.engines.cpu.readers.ocr import clean_latin, is_latin_page
from workbench.engines.cpu.tables.fragments import fragments
from workbench.engines.cpu.tables.render import grid, table_markdown
from workbench.schema import Label, Region


def test_two_columns_under_a_title_read_column_by_column():
    boxes = [
        (100, 300, 480, 600),  # 0 right column, top   -- deliberately shuffled
        (20, 20, 480, 80),  # 1 title across both columns
        (20, 100, 240, 300),  # 2 left column, top
        (260, 100, 480, 280),  # 3 right column, top
        (20, 320, 240, 600),  # 4 left column, bottom
        (20, 650, 480, 700),  # 5 full-width footer
    ]
    boxes[0] = (260, 300, 480, 600)
    assert reading_order(boxes) == [1, 2, 4, 3, 0, 5]


def test_aligned_paragraphs_in_two_columns_do_not_interleave():
    boxes = [(0, 0, 100, 50), (120, 0, 220, 50), (0, 60, 100, 110), (120, 60, 220, 110)]
    assert reading_order(boxes) == [0, 2, 1, 3]


def test_single_column_reads_top_to_bottom():
    boxes = [(0, 200, 300, 250), (0, 0, 300, 50), (0, 100, 300, 150)]
    assert reading_order(boxes) == [1, 2, 0]


def _frag_line(text, box):
    return Line(text, box, 95.0, "rapidocr")


def test_grid_from_synthetic_cell_boxes():
    lines = []
    cols = [(10, 90), (150, 200), (260, 310)]
    for r, row in enumerate(
        [["Name", "Qty", "Price"], ["apple", "3", "1.20"], ["pear", "", "0.80"]]
    ):
        for (x0, x1), cell in zip(cols, row, strict=True):
            if cell:
                lines.append(_frag_line(cell, (x0, 20 + r * 30, x1, 40 + r * 30)))
    table = grid([(ln.text, ln.box) for ln in lines])
    assert table == [["Name", "Qty", "Price"], ["apple", "3", "1.20"], ["pear", "", "0.80"]]
    md = table_markdown(lines)
    assert md.splitlines()[0] == "| Name | Qty | Price |"
    assert md.splitlines()[1] == "|---|---|---|"
    assert len(md.splitlines()) == 4


def test_spanning_header_does_not_fuse_columns():
    lines = [_frag_line("Totals by year", (10, 0, 300, 18))]
    for r in range(3):
        y = 30 + r * 25
        lines += [
            _frag_line(f"a{r}", (10, y, 60, y + 15)),
            _frag_line(f"b{r}", (250, y, 300, y + 15)),
        ]
    table = grid([(ln.text, ln.box) for ln in lines])
    assert len(table[0]) == 2 and table[1] == ["a0", "b0"]


def test_tesseract_words_merge_into_cells_by_gap():
    words = [Word("Motor", (0, 0, 50, 20), 90), Word("vehicle", (58, 0, 120, 20), 90)]
    words.append(Word("65.6", (300, 0, 340, 20), 90))
    line = Line("Motor vehicle 65.6", (0, 0, 340, 20), 90, "tesseract", words)
    assert grid(fragments([line])) == [["Motor vehicle", "65.6"]]


def test_label_mapping():
    assert canonical("figure_caption") is Label.CAPTION
    assert canonical("table_caption") is Label.CAPTION
    assert canonical("equation") is Label.FORMULA
    assert canonical("header") is Label.HEADER
    assert canonical("reference", (0, 900, 10, 950), 1000) is Label.FOOTNOTE
    assert canonical("reference", (0, 100, 10, 150), 1000) is Label.TEXT
    assert canonical("HEADING_TEXT") is Label.SECTION_HEADER
    assert canonical("FLOWING_IMAGE") is Label.FIGURE
    assert canonical("something-new") is Label.TEXT


def test_text_helpers():
    assert join_lines(["an exam-", "ple of self-", "Help"]) == "an example of self- Help"
    # a URL, path or address broken at its own hyphen keeps the hyphen and no space
    assert join_lines(["see https://a.gov/online-", "form.html now"]) == (
        "see https://a.gov/online-form.html now"
    )
    assert join_lines(["mail jane.doe-", "smith@x.org"]) == "mail jane.doe-smith@x.org"
    assert paragraphs(["• one", "• two", "continued"], [2, 2], 20) == "- one\n- two continued"
    assert paragraphs(["a", "b"], [50], 20) == "a\n\nb"
    for s in ("12", "- 3 -", "Page 2 of 4", "iv", "3 of 9"):
        assert is_page_number(s), s
    for s in ("206 Law Enforcement", "Table 3", ""):
        assert not is_page_number(s), s
    assert formula_markdown(["E = mc2 ± α"]) == "$$\nE = mc2 \\pm \\alpha\n$$"
    # an exercise number before its formula: an ordered-list item with inline math
    assert formula_markdown(["150. s(t) = 2t^{3} - 8"]) == "150. $s(t) = 2t^{3} - 8$"
    assert formula_markdown(["12) x^{2}"]) == "12) $x^{2}$"


def test_cjk_filter():
    assert clean_latin("Total\u3002 Arrests\u4e2d") == "Total. Arrests"
    assert is_latin_page(["Hello world", "x\u4e2d"])
    assert not is_latin_page(["\u4e2d\u6587\u8868\u683c", "\u6570\u636e"])


def _line(text, box, conf=95.0):
    return Line(text, box, conf, "tesseract", [Word(text, box, conf)])


def test_compose_keeps_every_line_and_orders_regions():
    layout = [
        LayoutBox("title", (50, 40, 950, 100), 0.9),
        LayoutBox("text", (50, 150, 480, 700), 0.9),
        LayoutBox("text", (520, 150, 950, 700), 0.9),
        LayoutBox("figure", (50, 720, 950, 900), 0.9),
        LayoutBox("text", (600, 950, 700, 980), 0.9),  # receives no line: dropped
    ]
    lines = [
        _line("Big Title", (60, 45, 900, 95)),
        _line("left one", (60, 160, 470, 180)),
        _line("left two", (60, 185, 470, 205)),
        _line("right one", (530, 160, 940, 180)),
        _line("stray note", (60, 1200, 300, 1220)),  # outside every box
        _line("7", (490, 1960, 510, 1980)),  # page number at the bottom edge
    ]
    regions = compose(1000, 2000, layout, lines)
    text = "\n".join(r.text for r in regions)
    for ln in lines:
        assert ln.text in text
    assert [r.id for r in regions] == [f"r{i}" for i in range(len(regions))]
    assert [r.order for r in regions] == list(range(len(regions)))
    labels = [r.label for r in regions]
    assert labels[0] is Label.TITLE
    assert text.index("left two") < text.index("right one")
    assert Label.FIGURE in labels  # empty figures are kept
    assert regions[-1].label is Label.PAGE_NUMBER
    assert any(r.native_label == "ocr_lines" and r.text == "stray note" for r in regions)
    assert all(r.bbox is not None for r in regions)


def test_texty_figure_is_dissolved_into_text():
    layout = [LayoutBox("figure", (0, 0, 1000, 1000), 0.9)]
    lines = [_line(f"field {i}:", (20, 30 + 60 * i, 400, 50 + 60 * i)) for i in range(14)]
    regions = compose(1000, 1000, layout, lines)
    assert Label.FIGURE not in [r.label for r in regions]
    assert sum(r.text.count("field") for r in regions) == 14


def test_escape_keeps_text_literal_and_readable():
    from workbench.engines.cpu.markdown import escape

    assert escape("John Smith*, Jane Doe**") == "John Smith\\*, Jane Doe\\*\\*"
    assert escape("snake_case stays, _emphasis_ not") == "snake_case stays, \\_emphasis\\_ not"
    assert escape("# not a heading") == "\\# not a heading"
    assert escape("1. not a list") == "1\\. not a list" and escape("- dash") == "\\- dash"
    assert escape("a * b and [1] and C# and 3.5") == "a * b and [1] and C# and 3.5"
    assert escape("cost $ 5 | x <div> [a](b) AT&amp;") == (
        "cost \\$ 5 \\| x \\<div> \\[a\\](b) AT&amp;amp;"
    )
    assert escape("1. cell", line_start=False) == "1. cell"


def test_ocr_formula_is_a_crop_never_typeset():
    ocr = [Line("s(7) = —161% + 5601", (100, 100, 500, 140), 60.0, "tesseract")]
    regions = compose(800, 1000, [LayoutBox("equation", (90, 90, 510, 150), 0.9)], ocr)
    assert [(r.label, r.text) for r in regions] == [(Label.FIGURE, "")]
    layer = [Line("s(t) = -16t² + 560t", (100, 100, 500, 140), 100.0, "text_layer",
                  tex="s(t) = -16t^{2} + 560t")]  # fmt: skip
    regions = compose(800, 1000, [LayoutBox("equation", (90, 90, 510, 150), 0.9)], layer)
    assert regions[0].label is Label.FORMULA and "t^{2}" in regions[0].text


def test_heading_levels_from_type_and_scan_line_height():
    def ln(text, y, size, bold=False, source="text_layer"):
        return Line(text, (100, y, 100 + 12 * len(text), y + size), 100.0, source,
                    size=size if source == "text_layer" else 0.0, bold=bold)  # fmt: skip

    body = [ln(f"body text line number {k} of the page.", 400 + 30 * k, 20) for k in range(12)]
    lines = [
        ln("A Big Title", 100, 40),
        ln("Section One", 250, 28),
        ln("Run-in head", 330, 20, True),
    ]
    regions = compose(1000, 1400, [], lines + body)
    texts = [r.text for r in regions if r.label in (Label.TITLE, Label.SECTION_HEADER)]
    assert texts == ["# A Big Title", "## Section One", "### Run-in head"]
    scan = [ln("CHAPTER THREE", 100, 45, source="tesseract")]
    scan += [
        ln(f"plain scanned line {k} here.", 200 + 30 * k, 22, source="tesseract") for k in range(8)
    ]
    regions = compose(1000, 1400, [], scan)
    assert regions[0].label is Label.TITLE and regions[0].text == "# CHAPTER THREE"
    assert all(r.label is Label.TEXT for r in regions[1:])


def test_only_content_is_never_furniture():
    line = [Line("INVOICE 4471 total due 12.00", (10, 5, 700, 40), 92.0, "tesseract")]
    regions = compose(800, 60, [LayoutBox("header", (0, 0, 800, 60), 0.9)], line)
    assert regions[0].label is Label.TEXT and regions[0].confidence == 0.92
    assert regions[0].source == "tesseract"


def test_cli_progress_flags_a_low_confidence_page(capsys):
    from workbench.cli.ocr.cmd import progress_printer
    from workbench.schema import PageResult, Region

    weak = [Region(id="r0", label=Label.TEXT, native_label="t", text="Dcar Sur", confidence=0.31)]
    page = PageResult(document="letter.png", page=1, width=9, height=9, engine="cpu", model="m",
                      regions=weak)  # fmt: skip
    progress_printer(quiet=True)(1, 1, page)
    assert "low confidence (0.31)" in capsys.readouterr().err
    sure = page.model_copy(update={"regions": [weak[0].model_copy(update={"confidence": 0.97})]})
    progress_printer(quiet=True)(1, 1, sure)
    assert "low confidence" not in capsys.readouterr().err


def test_ocr_lines_in_an_equation_box_are_text_when_they_are_words():
    """OCR'd math is shown as a crop, never typeset; but words the layout model boxed as an
    equation (a two-row tally in an old book) are text."""

    def page(*texts: str) -> list[Region]:
        lines = [
            Line(t, (300.0, 500.0 + 30 * i, 700.0, 524.0 + 30 * i), 85.0, "tesseract")
            for i, t in enumerate(texts)
        ]
        return compose(1000, 1600, [LayoutBox("equation", (290, 495, 710, 560), 0.9)], lines)

    (tally,) = page("Earthy and saline matter ...... 40", "Cartilage and jelly ...... 60")
    assert tally.label is Label.TEXT
    assert "Earthy and saline matter" in tally.text and "Cartilage and jelly" in tally.text
    (garbage,) = page("ye)gyP(g)∑s∈Si=1Ls,Rs=Ii", "s(7) = —161% + 5601")
    assert garbage.label is Label.FIGURE and garbage.text == ""


def test_a_long_lower_case_ocr_line_is_running_text_not_a_heading():
    from workbench.engines.cpu.furniture.headings import _running_prose

    line = "On light loams, the returns to the Doncaster Committee give bones a"
    assert _running_prose(line.split())  # its OCR box took in a quote mark from above
    for heading in (
        "Recently Issued Accounting Pronouncements",
        "CHAPTER XIX. ON THE USE OF BONES",
    ):
        assert not _running_prose(heading.split())
    assert not _running_prose(["3", "Methods", "and", "data"])  # short: height decides


def test_an_ocr_formula_box_gives_back_a_heading_it_swallowed():
    lines = [
        Line(
            "3. The Fundamental Theorem of Calculus",
            (300.0, 500.0, 760.0, 524.0),
            90.0,
            "tesseract",
        ),
        Line("[f(x)dx = F(b) — F(a)", (320.0, 540.0, 640.0, 580.0), 60.0, "tesseract"),
    ]
    regions = compose(1000, 1600, [LayoutBox("equation", (290, 495, 770, 590), 0.9)], lines)
    assert [(r.label, r.text) for r in regions] == [
        (Label.TEXT, "3. The Fundamental Theorem of Calculus"),  # no heading evidence alone
        (Label.FIGURE, ""),  # the OCR'd formula: a crop, never typeset
    ]
    crop = regions[1].bbox
    assert crop.y0 >= 524 and crop.x0 <= 290 and crop.x1 >= 770  # full width, under the heading
