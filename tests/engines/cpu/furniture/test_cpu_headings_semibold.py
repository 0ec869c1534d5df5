"""Bold thinned by a degraded scan (issue 23 item 6), and headings one under the other: a
body-size heading whose stroke is only 1.08-1.2 × the body's is a heading when it stands apart
(a paragraph break and more above, a gap under it), never when it sits in a column of entries
or runs on into its next line. The lines are OCR lines as the engine measures them
(``stroke``: mean ink depth), 26 px tall on a 200 DPI page; the strokes are those measured on
the development set's scans."""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line, union_all
from workbench.engines.cpu.furniture import headings
from workbench.engines.cpu.page import Block

H = 26.0  # body line height
BODY = 1.20  # body stroke


def _ocr(text: str, top: float, stroke: float = BODY, x1: float = 1100) -> Line:
    return Line(text, (100, top, x1, top + H), 95.0, "tesseract", stroke=stroke)


def _paragraph(top: float, n: int = 3) -> list[Line]:
    """``n`` lines of running text at body pitch (gap 0.25 × H)."""
    return [
        _ocr("the quick brown fox jumps over the lazy dog and runs on and on", top + i * 1.25 * H)
        for i in range(n)
    ]


def _kind(lines: list[Line], line: Line) -> str:
    return headings.Page(lines, H).kind(line)


def test_a_semi_bold_line_set_apart_is_a_heading() -> None:
    above = _paragraph(100)
    head = _ocr("Vector Operations", above[-1].box[3] + 1.7 * H, stroke=1.12 * BODY, x1=400)
    below = _paragraph(head.box[3] + 0.95 * H)
    assert _kind([*above, head, *below], head) == "weight"


def test_semi_bold_under_a_paragraph_break_only_is_body_text() -> None:
    """A paragraph break (~0.95 × H) above is not enough: that is how every paragraph starts."""
    above = _paragraph(100)
    line = _ocr("Vector Operations", above[-1].box[3] + 0.95 * H, stroke=1.12 * BODY, x1=400)
    below = _paragraph(line.box[3] + 0.95 * H)
    assert _kind([*above, line, *below], line) == ""


def test_contents_entries_under_their_heading_are_not_headings() -> None:
    title = _ocr("Contents", 100, stroke=1.83 * BODY, x1=300)
    entries = [
        _ocr(text, title.box[3] + 0.1 * H + i * 1.15 * H, stroke=s * BODY, x1=300)
        for i, (text, s) in enumerate(
            [("1 History", 1.10), ("2 Techniques", 1.0), ("3 Types", 1.09)]
        )
    ]
    lines = [title, *entries, *_paragraph(entries[-1].box[3] + 2 * H)]
    assert [_kind(lines, e) for e in entries] == ["", "", ""]


def test_a_list_item_whose_bold_first_words_run_on_is_not_a_heading() -> None:
    above = _paragraph(100)
    item = _ocr("1. Research, where a variety of", above[-1].box[3] + 1.5 * H, 1.1 * BODY, 600)
    rest = _paragraph(item.box[3] + 0.25 * H, 2)
    assert _kind([*above, item, *rest], item) == ""


def test_a_semi_bold_heading_wrapped_over_two_lines_is_one_heading() -> None:
    above = _paragraph(100)
    first = _ocr("What is User Centered De-", above[-1].box[3] + 2.2 * H, 1.19 * BODY, 500)
    second = _ocr("Sign", first.box[3] + 0.5 * H, 1.15 * BODY, 200)
    below = _paragraph(second.box[3] + 0.95 * H)
    lines = [*above, first, second, *below]
    assert (_kind(lines, first), _kind(lines, second)) == ("weight", "weight")


def test_thin_strokes_stay_body_text_however_apart() -> None:
    line = _ocr("Vector Operations", 400, stroke=1.06 * BODY, x1=400)
    lines = [*_paragraph(100), line, *_paragraph(600)]
    assert _kind(lines, line) == ""


def test_two_headings_one_under_the_other_stay_two() -> None:
    """A section heading and its first subsection, 1.2 line heights apart, are two headings,
    not one two-line heading ("What is cached HTTP responses")."""
    above = _paragraph(100)
    section = _ocr("What is cached", above[-1].box[3] + 2 * H, stroke=1.22 * BODY, x1=400)
    sub = _ocr("HTTP responses", section.box[3] + 1.2 * H, stroke=1.14 * BODY, x1=400)
    below = _paragraph(sub.box[3] + 0.95 * H)
    lines = [*above, section, sub, *below]
    block = Block("text", union_all([ln.box for ln in lines]), lines, 0.9)
    out = headings.split([block], lines, H, 2000)
    heads = [" ".join(ln.text for ln in b.lines) for b in out if b.native.startswith("heading")]
    assert heads == ["What is cached", "HTTP responses"]
