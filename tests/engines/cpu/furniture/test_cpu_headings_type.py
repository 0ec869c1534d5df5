"""Headings from type on real pdfLaTeX pages (issue 23 item 6), and a table of contents read
one entry a line. tests/data/headings_pdftex.pdf: a two-column paper page whose numbered
section headings are small capitals at body size, with a rotated stamp in the margin, bold
terms of a description list, a bold run-in "Scope." and a bold "Note:" label.
tests/data/contents_pdftex.pdf: a report's table of contents (chapters in bold without leaders,
sections with dotted leaders). Both written for this project, their sources beside them."""

from __future__ import annotations

import re

import pytest

from tests.engines.cpu.furniture.reading import read_markdown
from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.furniture import contents, cues, headings
from workbench.engines.cpu.page import Block


def _line(text: str, box: tuple[float, float, float, float], **kw: object) -> Line:
    return Line(text, box, 100.0, "text_layer", size=30.0, **kw)  # type: ignore[arg-type]


def test_a_line_on_its_side_is_never_a_heading() -> None:
    stamp = _line("arXiv:2601.01234v2", (60, 1300, 100, 1850), bold=True)
    page = headings.Page([stamp, _line("Body text of the page here.", (150, 400, 800, 430))], 30)
    assert cues.vertical(stamp)
    assert page.kind(stamp) == ""


def test_numbered_small_caps_at_body_size_is_a_heading_and_labels_are_not() -> None:
    body = [_line("A line of running text, set at the body size.", (150, y, 800, y + 30))
            for y in range(400, 1000, 40)]  # fmt: skip
    caps = _line("1. Introduction", (150, 300, 400, 330), caps=True)
    upper = _line("2. RELATED WORK", (150, 1100, 400, 1130))
    label = _line("Since: 1.6", (150, 1200, 400, 1230), bold=True)
    page = headings.Page([*body, caps, upper, label], 30)
    assert page.kind(caps) == "weight"
    assert page.kind(upper) == "weight"
    assert page.kind(label) == ""
    assert page.kind(_line("1. Introduction", (150, 300, 400, 330))) == ""  # plain face


def test_contents_rows_with_and_without_leaders_become_one_block() -> None:
    rows = [("1 Getting Started", "2", False)] + [
        (f"1.{k} Section number {k} . . . . . . . . . . . . {2 + k}", None, True) for k in range(5)
    ]
    lines, y = [], 100.0
    for text, page, _ in rows:
        lines.append(_line(text, (200, y, 1500 if page is None else 600, y + 27)))
        if page is not None:
            lines.append(_line(page, (1485, y, 1500, y + 27)))
        y += 38
    blocks = [
        Block("text", (200, 100, 1500, y), lines[:3], 0.9),
        Block("table", (200, 180, 1500, y), lines[3:], 0.9),
    ]
    out = contents.find(blocks, 1700.0)
    assert [b.native for b in out] == ["contents"]
    texts = [ln.text for ln in out[0].lines]
    assert texts[0] == "• 1 Getting Started … 2"
    assert texts[1] == "• 1.0 Section number 0 … 2"
    assert len(texts) == 6


def test_a_table_of_figures_is_no_contents() -> None:
    lines = []
    for k, v in enumerate(["12", "9", "30", "4", "17", "25", "8"]):
        y = 100.0 + 38 * k
        lines += [_line(f"Region {k}", (200, y, 400, y + 27)), _line(v, (1480, y, 1500, y + 27))]
    blocks = [Block("text", (200, 100, 1500, 400), lines, 0.9)]
    assert contents.find(blocks, 1700.0) is blocks


@pytest.mark.slow
def test_paper_page_headings(engine) -> None:  # type: ignore[no-untyped-def]
    md = read_markdown(engine, "headings_pdftex.pdf")
    heads = [re.sub(r"^#+ ", "", h).replace("\\", "") for h in md.splitlines() if h.startswith("#")]
    sections = ["1. Introduction", "2. Related Work", "3. Method", "3.1 Sizes", "3.2 Weights",
                "4. Results"]  # fmt: skip
    assert all(s in heads for s in sections), heads
    assert heads[0] == "Reading Page Structure from Type"
    for not_heading in ("arXiv", "quiet", "verbose", "Note", "Scope"):
        assert not [h for h in heads if not_heading in h], heads
    assert "**" not in md and "Scope. We look at born-digital pages only" in md


@pytest.mark.slow
def test_contents_page_one_entry_a_line(engine) -> None:  # type: ignore[no-untyped-def]
    md = read_markdown(engine, "contents_pdftex.pdf")
    entries = [ln for ln in md.splitlines() if ln.startswith("- ")]
    assert entries[0] == "- 1 Getting Started … 2"
    assert "- 2.1.2 Fonts without Unicode … 3" in entries
    assert entries[-1] == "- A Command-line options … 5"
    assert len(entries) == 14
    assert not [ln for ln in md.splitlines() if re.fullmatch(r"\d+", ln.strip())][:-1]


def test_bold_keys_of_a_key_value_list_are_not_headings() -> None:
    body = [_line("A line of running text, set at the body size.", (150, y, 800, y + 30))
            for y in range(1000, 1400, 40)]  # fmt: skip
    keys, values = [], []
    for k, (key, value) in enumerate(
        [("Name", "black"), ("Version", "26.10.1"), ("License", "MIT")]
    ):
        y = 300 + 60 * k
        keys.append(_line(key, (173, y, 290, y + 27), bold=True))
        values.append(_line(value, (685, y, 780, y + 27)))
    alone = _line("Results", (173, 900, 290, 927), bold=True)
    page = headings.Page([*body, *keys, *values, alone], 30)
    assert [page.kind(k) for k in keys] == ["", "", ""]
    assert page.kind(alone) == "weight"


def test_dot_leaders_before_figures_that_go_down_are_a_table() -> None:
    lines = []
    for k, v in enumerate(["21", "19", "30", "4", "17"]):
        y = 100.0 + 38 * k
        lines.append(_line(f"Model {k} . . . . . . . . . . {v}", (200, y, 1500, y + 27)))
    blocks = [Block("table", (200, 100, 1500, 300), lines, 0.9)]
    assert contents.find(blocks, 1700.0) is blocks


def _split_labels(heads: list[Line]) -> list[tuple[str, str]]:
    body = [_line("A line of running text, set at the body size.", (150, y, 1400, y + 30))
            for y in range(600, 1400, 40)]  # fmt: skip
    blocks = [Block("text", ln.box, [ln], 0.9) for ln in heads]
    blocks.append(Block("text", (150, 600, 1400, 1390), body, 0.9))
    out = headings.split(blocks, [*heads, *body], 30, 2200)
    return [(b.native, b.lines[0].text) for b in out if b.lines[0] in heads]


def test_three_bold_heads_on_one_row_are_column_heads_not_headings() -> None:
    row = [_line(t, (150 + 400 * k, 400, 400 + 400 * k, 430), bold=True)
           for k, t in enumerate(["Quantity", "Unit price", "Amount"])]  # fmt: skip
    alone = _line("Terms of delivery", (150, 500, 500, 530), bold=True)
    found = _split_labels([*row, alone])
    assert [n for n, t in found if t != "Terms of delivery"] == ["text"] * 3
    assert dict((t, n) for n, t in found)["Terms of delivery"].startswith("heading:")
    pair = _split_labels(row[:2])  # two columns' heads side by side stay headings
    assert all(n.startswith("heading:") for n, _ in pair), pair


def test_a_heading_wrapped_onto_a_line_of_figures_stays_one_heading() -> None:
    body = [_line("A line of running text, set at the body size.", (150, y, 800, y + 30))
            for y in range(500, 1300, 40)]  # fmt: skip
    big = {"conf": 100.0, "source": "text_layer", "size": 36.0}
    head = [Line("Expatriation After June 3,", (150, 400, 600, 436), **big),  # type: ignore[arg-type]
            Line("2004", (150, 440, 230, 476), **big)]  # type: ignore[arg-type]  # fmt: skip
    blocks = [Block("text", (150, 400, 800, 1290), [*head, *body], 0.9)]
    out = headings.split(blocks, [*head, *body], 30, 2200)
    heads = [b for b in out if b.native.startswith("heading:")]
    assert [[ln.text for ln in b.lines] for b in heads] == [["Expatriation After June 3,", "2004"]]
    page = headings.Page([*head, *body], 30)
    assert page.kind(head[1]) == ""  # alone, "2004" is no heading: only as the wrap of one
    smaller = Line("2004", (150, 440, 230, 470), 100.0, "text_layer", size=30.0)
    assert not page.wraps(head[:1], smaller)  # body type under a heading is the paragraph
    run_in = Line("exemption amount decreased. The", (150, 440, 700, 476), **big)  # type: ignore[arg-type]
    assert not page.wraps(head[:1], run_in)  # a run-in heading's line goes on as its paragraph


def test_a_heading_wrapped_into_the_next_block_takes_its_wrap_back() -> None:
    # i1040nr p7 (issue 35): the layout model boxed "2004" with the paragraph under the heading,
    # and a table's rows stood level with it in the next column
    body = [_line("A line of running text, set at the body size.", (150, y, 800, y + 30))
            for y in range(480, 1300, 40)]  # fmt: skip
    big = {"conf": 100.0, "source": "text_layer", "size": 36.0}
    head = Line("Expatriation Before June 4,", (150, 400, 600, 436), **big)  # type: ignore[arg-type]
    wrap = Line("2004", (150, 440, 230, 476), **big)  # type: ignore[arg-type]
    figures = [_line(f"{1997 + k}", (1000, 440 + 40 * k, 1080, 470 + 40 * k)) for k in range(4)]
    blocks = [
        Block("title", head.box, [head], 0.9),
        Block("text", (150, 440, 800, 1290), [wrap, *body], 0.9),
        Block("table", (1000, 440, 1080, 600), figures, 0.9),
    ]
    out = headings.split(blocks, [head, wrap, *body, *figures], 30, 2200)
    heads = [b for b in out if b.native.startswith("heading:")]
    assert [[ln.text for ln in b.lines] for b in heads] == [["Expatriation Before June 4,", "2004"]]
    paragraph = next(b for b in out if b.native == "text")
    assert wrap not in paragraph.lines and len(paragraph.lines) == len(body)
    # a block that held only the wrap is gone, not left as an empty region
    alone = [Block("title", head.box, [head], 0.9), Block("text", wrap.box, [wrap], 0.9),
             blocks[1], blocks[2]]  # fmt: skip
    out = headings.split(alone, [head, wrap, *body, *figures], 30, 2200)
    assert all(b.lines for b in out) and len(out) == 3
    # the same line set in the next column, level with the heading's next row: not its wrap
    aside = Line("2004", (900, 440, 980, 476), **big)  # type: ignore[arg-type]
    blocks[1] = Block("text", (150, 480, 800, 1290), body, 0.9)
    blocks.append(Block("text", (900, 440, 1500, 480), [aside], 0.9))
    out = headings.split(blocks, [head, aside, *body, *figures], 30, 2200)
    heads = [b for b in out if b.native.startswith("heading:")]
    assert [[ln.text for ln in b.lines] for b in heads] == [["Expatriation Before June 4,"]]
