"""Headings on a paper's pages (issue 35): the failure classes the held-out set showed, as
type the text layer gives. A page whose references outweigh its text (the last page of a
paper: two columns of 9 pt references under a few 11 pt paragraphs) must not make its
paragraphs' first lines headings for being larger than the page's median; an italic lettered
subsection at body size ("A. Emily Howell") is a heading, an italic reference that starts
with an author's initial is not; a section title the layout model called a header at the top
of the second column, level with the content of the first, is content."""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.furniture import cues, headings
from workbench.engines.cpu.furniture.passes import layout_furniture
from workbench.engines.cpu.page import Block, Page

BODY, SMALL = 27.0, 22.0
PARA = "neural networks can be trained to generate music note by note for a long time"
REF = "D. Cope, Experiments in music intelligence, 1987. Available online at the library"


def _line(text: str, y: float, size: float, **kw: object) -> Line:
    return Line(text, (116, y, 833, y + size), 100.0, "text_layer", size=size, **kw)  # type: ignore[arg-type]


def _last_page() -> tuple[list[Line], list[Line]]:
    paragraphs = [_line(PARA, 150 + 31 * k, BODY) for k in range(8)]
    references = [_line(REF, 1100 + 23 * k, SMALL) for k in range(60)]
    return paragraphs, references


def test_a_paragraph_line_is_no_heading_where_references_set_the_median() -> None:
    paragraphs, references = _last_page()
    first = _line("However, it is desirable to allow multiple notes", 420, BODY)
    page = headings.Page([*paragraphs, *references, first], 25)
    assert page.body == SMALL  # the references outweigh the text...
    assert cues.prose_sizes([*paragraphs, *references, first]) == [SMALL, BODY]
    assert page.kind(first) == ""  # ...but 27 px is where the paragraphs are set
    assert page.kind(_line("VI. DISCUSSION", 470, BODY)) == "weight"  # numbered capitals
    assert page.kind(_line("Discussion", 470, 34.0)) == "size"  # larger than any prose


def test_without_the_paragraphs_a_larger_line_is_still_a_heading() -> None:
    _, references = _last_page()
    page = headings.Page([*references[:3], _line("Results of the study", 100, BODY)], 25)
    assert page.kind(_line("Results of the study", 100, BODY)) == "size"


def test_an_italic_lettered_subsection_is_a_heading_and_an_italic_reference_is_not() -> None:
    paragraphs, _ = _last_page()
    page = headings.Page(paragraphs, 30)
    assert page.kind(_line("A. Emily Howell", 500, BODY, italic=True)) == "weight"
    assert page.kind(_line("2.1 Loading the package", 500, BODY, italic=True)) == "weight"
    assert page.kind(_line("A. Emily Howell", 500, BODY)) == ""  # roman: a line of text
    ref = "A. Gadsby, Ed., Dictionary of Contemporary English. Pearson"
    assert page.kind(_line(ref, 500, BODY, italic=True)) == ""
    assert not cues.italic_section("A study of the problem")  # no label
    assert not cues.italic_section("B. The results are shown below.")  # a sentence


def _blocks(header_top: float, content_top: float) -> Page:
    head = Block("header", (1099, header_top, 1286, header_top + 25), [], 0.9)
    head.lines = [_line("IV. TEXT DATA", header_top, BODY)]
    figure = Block("figure", (133, content_top, 451, 420), [], 0.9)
    text = Block("text", (841, 222, 1546, 414), [_line(PARA, 222, BODY)], 0.9)
    return Page(1654, 2339, [], 25.0, [], blocks=[head, figure, text])


def test_a_header_level_with_the_content_is_content() -> None:
    page = layout_furniture(_blocks(header_top=160, content_top=162))
    assert page.blocks[0].native == "text"  # the figure of the other column tops it
    page = layout_furniture(_blocks(header_top=60, content_top=162))
    assert page.blocks[0].native == "header"  # above everything: a running head


def test_a_heading_in_a_script_without_case_is_a_heading() -> None:
    """A Latin-only rule ("starts with A-Z") refused every CJK heading: issue-71's résumé set
    "教育经历" (education) larger than its text and found none of its six."""
    body = "我们获取的上述资料证实截至年末神鹰集团的主要财务风险是对银行融资依赖性较高"
    paragraphs = [_line(body, 150 + 31 * k, BODY) for k in range(8)]
    page = headings.Page(paragraphs, 30)
    assert page.kind(_line("教育经历", 500, 34.0)) == "size"
    assert page.kind(_line("测试", 500, 34.0)) == "size"  # two ideographs: a word
    assert page.kind(_line("教育经历", 500, BODY, bold=True)) == "weight"
    assert page.kind(_line("这是一个句子。", 500, BODY, bold=True)) == ""  # a sentence
    assert cues.starts_like_heading("Дополнительно") and cues.starts_like_heading("“Ébauche")
    assert cues.starts_like_heading("（３）連結株主資本等変動計算書")  # full-width bracket, digit
    assert not cues.starts_like_heading("however, the") and not cues.enough_letters("Ab")
