"""Page furniture and reading order in the CPU engine (furniture.py, compose.py,
reading_order.py): on a born-digital report drawn with PDFium (tests/data/furniture_pages.pdf,
make_born_digital.furniture), the same pages rasterized (OCR path), and real pages in
tests/data. Furniture leaves the Markdown but stays a region; a page of furniture alone keeps
it; cards under one big picture box read column by column; each line once."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import LayoutBox, Line
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.furniture.running import find
from workbench.engines.cpu.order.columns import reading_order
from workbench.markdown.assemble import assemble_page
from workbench.schema import FURNITURE, Label

DATA = Path(__file__).resolve().parents[3] / "data"
PAGES = DATA / "furniture_pages.pdf"


def _image(name: Path, index: int, dpi: float = 200):
    return pdfium.PdfDocument(name)[index - 1].render(scale=dpi / 72).to_pil().convert("RGB")


def _run(engine, name: Path, index: int, layer: bool = True, image=None):
    image = image if image is not None else _image(name, index)
    tl = extract_pdf(name, index) if layer else None
    req = PageRequest(key=f"{name.name}:{index}", image=image, text_layer=tl)
    out = next(iter(engine.run([req])))
    assert out.error is None, out.error
    return out


def _furniture(out) -> dict[str, Label]:
    return {r.text: r.label for r in out.regions if r.label in FURNITURE}


@pytest.mark.slow
@pytest.mark.parametrize("layer", [True, False], ids=["text_layer", "ocr"])
def test_running_head_with_folio_and_control_line_leave_the_markdown(engine, layer):
    out = _run(engine, PAGES, 1, layer)
    md = assemble_page(out.regions)
    assert "Drainage Trials on Clay Soils" in md and md.count("Clay soils hold water") == 4
    for gone in ("Field Notes", "17", "Rev.", "88-204", "May 2026"):
        assert gone not in md, gone
    furniture = " ".join(_furniture(out))
    for kept in ("Field Notes on Soil", "17", "Rev. 3.1", "88-204", "4 May 2026"):
        assert kept in furniture, kept  # still regions: the viewer draws them
    with_furniture = assemble_page(out.regions, include_furniture=True)
    assert "Rev. 3.1" in with_furniture and "Field Notes on Soil" in with_furniture


@pytest.mark.slow
@pytest.mark.parametrize("layer", [True, False], ids=["text_layer", "ocr"])
def test_folio_well_above_the_bottom_margin_is_a_page_number(engine, layer):
    """Page 2 ends mid-page: its folio "18" stands at 60 % of the page height, after a wide
    gap, centred. (The small "Spring Meeting 2026" above it is furniture by its font size on
    the text layer; on the scan its line height alone does not tell.)"""
    image = _image(PAGES, 2)
    out = _run(engine, PAGES, 2, layer, image)
    md = assemble_page(out.regions)
    assert "every week." in md
    assert not re.search(r"\b18\b", md)
    assert ("Spring Meeting" not in md) or not layer
    furniture = _furniture(out)
    assert furniture.get("18") is Label.PAGE_NUMBER
    number = next(r for r in out.regions if r.text == "18")
    assert 0.4 < number.bbox.y0 / image.height < 0.8  # not in any margin band


@pytest.mark.slow
def test_page_of_furniture_alone_keeps_it(engine):
    """The document-control row cropped as a page of its own is the page's content."""
    image = _image(PAGES, 1)
    line = image.crop((150, 1930, 1560, 2010))  # "Rev. 3.1 … Doc. No. 88-204 … 4 May 2026"
    out = next(iter(engine.run([PageRequest(key="line", image=line)])))
    assert out.error is None
    md = assemble_page(out.regions)
    assert "88-204" in md and "2026" in md


@pytest.mark.slow
def test_real_pages_keep_their_content_and_drop_their_folios(engine):
    """Real pages: the financial statement's folio F-12 and the two-column article's running
    head and folio are furniture; the form's footer row (VA 21-0966) too; no body line is."""
    fin = _run(engine, DATA / "financial_statement.pdf", 1)
    md = assemble_page(fin.regions)
    assert "F-12" not in md and "ACME WIDGETS" in md and "Unaudited" in md
    art = _run(engine, DATA / "two_column_article.pdf", 1)
    md = assemble_page(art.regions)
    assert "Journal of Test Documents" not in md and not re.search(r"^7$", md, re.M)
    assert "Readers of a two-column article" in md and "Use the text layer" in md
    assert md.index("1 Introduction") < md.index("2 Method") < md.index("3 Results")


@pytest.mark.slow
def test_form_footer_at_the_forms_own_line_spacing_leaves_the_markdown(engine):
    """DD Form 293 page 2 (real): its footer "DD FORM 293, FEB 2025 … CUI … Page 2 of 4" and
    "PREVIOUS EDITION IS OBSOLETE." follow the last line at the form's own spacing; the page
    number segment marks the row as furniture all the same. The last line stays."""
    out = _run(engine, DATA / "dd0293_p1-2.pdf", 2)
    md = assemble_page(out.regions)
    assert "Additional information about requesting an upgrade" in md
    for gone in ("DD FORM 293", "Page 2 of 4", "PREVIOUS EDITION"):
        assert gone not in md, gone
    assert "Page 2 of 4" in " ".join(_furniture(out))


def _line(text: str, box, size: float = 0.0) -> Line:
    return Line(text, box, 95.0, "text_layer", size=size)


def _body(x0: float, y0: float, n: int, step: float = 30.0, size: float = 20.0) -> list[Line]:
    return [
        _line(
            f"body line {k} of the report with several words",
            (x0, y0 + k * step, x0 + 900, y0 + k * step + 22),
            size,
        )
        for k in range(n)
    ]


def test_find_needs_a_separation_and_furniture_content():
    body = _body(200, 300, 20)  # rows 300 … 892
    folio = _line("62", (840, 1000, 862, 1022), 20)  # after a gap, centred on a 1700 page
    found = find([*body, folio], 1700, 2200)
    assert [(e, [ln.text for ln in row]) for e, row in found] == [("running_footer", ["62"])]
    close = _line("62", (840, 900, 862, 922), 20)  # at the body's own line spacing
    assert find([*body, close], 1700, 2200) == []
    words = _line("and so the report ends here", (200, 1000, 600, 1022), 20)
    assert find([*body, words], 1700, 2200) == []  # separated, but the page's content
    large = _line("3", (840, 1000, 880, 1040), 40)  # a folio is never larger than the body
    assert find([*body, large], 1700, 2200) == []


def test_a_row_of_bare_figures_at_the_foot_is_an_axis_not_a_folio():
    body = _body(200, 300, 20)
    ticks = [_line(str(50 * k), (200 + 180 * k, 2000, 240 + 180 * k, 2022), 20) for k in range(5)]
    assert find([*body, *ticks], 1700, 2200) == []  # "0 50 100 150 200" under a chart
    pair = [_line("Annual report 2024", (200, 2000, 500, 2022), 18),
            _line("17", (1050, 2000, 1080, 2022), 18)]  # fmt: skip
    assert [e for e, _ in find([*body, *pair], 1700, 2200)] == ["running_footer"]


def test_find_running_head_and_short_page():
    body = _body(200, 300, 20)
    head = [_line("Chapter 3 | Derivatives", (200, 100, 500, 122), 18),
            _line("273", (1050, 100, 1100, 122), 18)]  # fmt: skip
    found = find([*head, *body], 1700, 2200)
    assert [e for e, _ in found] == ["running_header"]
    assert find([*head, *body[:1]], 1700, 2200) == []  # too few rows: all of it is content


def test_formula_box_over_prose_cards_is_dissolved_and_cards_read_by_column():
    """A layout model that saw one equation box over a page of four cards (two columns)
    under one picture box: the prose goes back to text, and the picture box, which holds
    every card, does not stop the columns from being read one after the other."""
    cards = {  # (x0, y0): heading, then three lines of prose
        (100, 300): "Card One",
        (100, 900): "Card Two",
        (1100, 300): "Card Three",
        (1100, 900): "Card Four",
    }
    lines: list[Line] = []
    for (x, y), head in cards.items():
        lines.append(_line(head, (x, y, x + 400, y + 30), 24))
        for k in range(3):
            yy = y + 80 + 30 * k
            lines.append(_line(f"prose about {head} that runs on and on", (x, yy, x + 800,
                               yy + 22), 18))  # fmt: skip
    layout = [
        LayoutBox("figure", (80, 280, 1960, 1300), 0.9),
        LayoutBox("equation", (90, 290, 1950, 1290), 0.8),
    ]
    regions = compose(2200, 1700, layout, lines)
    md = assemble_page(regions)
    assert "$$" not in md
    order = [md.index(h) for h in cards.values()]
    assert order == sorted(order), md
    for head in cards.values():
        assert md.count(head + " ") + md.count(head + "\n") == 1 + 3  # each line once


def test_reading_order_container_box_is_read_before_what_it_holds():
    boxes = [
        (0, 0, 100, 10),  # title
        (0, 20, 45, 50), (55, 20, 100, 50),  # two columns, two rows
        (0, 60, 45, 90), (55, 60, 100, 90),
        (0, 15, 100, 95),  # a frame around all four
    ]  # fmt: skip
    assert reading_order(boxes) == [0, 5, 1, 3, 2, 4]


def test_grid_of_numbered_cards_reads_in_the_numbers_order():
    """Two columns of cards, each a heading over a body. Numbered 1 3 / 2 4 down the columns
    they read by columns; numbered 1 2 / 3 4 across, by rows (heading, body, next card)."""
    boxes = [
        (0, 0, 100, 10),  # title
        (0, 20, 45, 30), (55, 20, 100, 30),  # first row of cards: headings ...
        (0, 35, 45, 50), (55, 35, 100, 50),  # ... and bodies
        (0, 60, 45, 70), (55, 60, 100, 70),  # second row
        (0, 75, 45, 90), (55, 75, 100, 90),
    ]  # fmt: skip
    by_columns = [None, 1, 3, None, None, 2, 4, None, None]
    assert reading_order(boxes, numbers=by_columns) == [0, 1, 3, 5, 7, 2, 4, 6, 8]
    by_rows = [None, 1, 2, None, None, 3, 4, None, None]
    assert reading_order(boxes, numbers=by_rows) == [0, 1, 3, 2, 4, 5, 7, 6, 8]
    assert reading_order(boxes) == [0, 1, 3, 5, 7, 2, 4, 6, 8]  # no numbers: columns


def test_numbered_exercises_keep_their_numbers_and_tex_quotes_print_as_quotes():
    from workbench.engines.cpu.markdown import paragraphs

    md = paragraphs(
        ["157. A potato is launched", "upward.", "a. Find its speed.", "b. Find its height."],
        [0.0, 0.0, 0.0],
        10.0,
    )
    assert md.splitlines() == [
        "157. A potato is launched upward.",  # its own number is the list marker
        "- a. Find its speed.",
        "- b. Find its height.",
    ]
    assert paragraphs(["153. A rocket is fired", "from the ground."], [0.0], 10.0) == (
        "153. A rocket is fired from the ground."
    )
    assert paragraphs(["1986. was a dry year"], [], 10.0) == "1986\\. was a dry year"
    # an exercise read by OCR: its formula starts in lower case, still the item "150."
    assert paragraphs(["150. s(t) = 2t3 - 8"], [], 10.0) == "150. s(t) = 2t3 - 8"
    assert paragraphs(["The term ‘‘corporate’’ is in ‘vogue’."], [], 10.0) == (
        "The term “corporate” is in ‘vogue’."
    )


def test_text_and_reference_boxes_on_one_paragraph_make_one_region():
    """The layout model drew a text box and a reference box over one paragraph, the second
    starting half a line lower: one region holds the whole paragraph, each line once."""
    lines = [
        _line(
            f"line {k} of an exercise that runs across the column",
            (200, 700 + 30 * k, 820, 722 + 30 * k),
            20,
        )
        for k in range(8)
    ]
    layout = [
        LayoutBox("text", (198, 696, 828, 940), 0.7),
        LayoutBox("reference", (197, 710, 827, 940), 0.8),
    ]
    regions = [r for r in compose(1700, 2200, layout, lines) if r.text]
    assert len(regions) == 1, [r.text for r in regions]
    assert "\n" not in regions[0].text
    assert all(regions[0].text.count(f"line {k} ") == 1 for k in range(8))


def test_lines_sticking_out_of_their_paragraph_box_stay_with_it():
    """OCR lines overhang their paragraph's box by five pixels; a picture box drawn round the
    whole page holds them entirely. The paragraph keeps them (90 % inside counts as whole)."""
    lines = [
        _line(f"line {k} of the paragraph", (95, 300 + 30 * k, 905, 322 + 30 * k)) for k in range(6)
    ]
    layout = [
        LayoutBox("figure", (0, 0, 1000, 1000), 0.9),
        LayoutBox("text", (100, 298, 900, 474), 0.6),
    ]
    regions = compose(1000, 1000, layout, lines)
    text = [r for r in regions if r.label is Label.TEXT]
    assert len(text) == 1 and all(f"line {k} " in text[0].text for k in range(6))
    assert all(not r.text for r in regions if r.label is Label.FIGURE)


def test_numbered_items_are_never_renumbered_by_the_renderer():
    """A renderer numbers a run of ordered items from the first one on; form fields numbered
    10, 11, 14 (13 and 12 elsewhere on the page) must still read 14, in one block or across
    regions."""
    from markdown_it import MarkdownIt

    from workbench.evaluate.metrics import plain_text

    lines = ["10. NAME", "11. SSN", "14. RELATIONSHIP"]
    regions = compose(
        1700,
        2200,
        [],
        [_line(t, (100, 300 + 200 * k, 900, 322 + 200 * k), 20) for k, t in enumerate(lines)],
    )
    md = assemble_page(regions)
    assert " ".join(plain_text(md).split()) == " ".join(lines), md
    assert "<li>" in MarkdownIt("commonmark").render(md)  # 10 and 11 are still a list
    from workbench.engines.cpu.markdown import list_markdown

    assert plain_text(list_markdown(["1. one", "2. two", "5. five"])).splitlines() == [
        "1. one",
        "2. two",
        "5. five",
    ]


def test_tick_row_at_the_top_of_a_text_box_inside_a_graph_is_the_graphs():
    """A list's text box drawn up over the graph's x axis: the axis's last ticks ("9 10") are
    the picture's, not the list's first words; each list line is printed once."""
    items = [
        _line(
            f"{c}. Use the graph to find the {w} of the object",
            (912, 1760 + 40 * k, 1500, 1782 + 40 * k),
            20,
        )
        for k, (c, w) in enumerate(
            zip("abcd", ["velocity", "speed", "height", "time"], strict=True)
        )
    ]
    ticks = _line("9 10", (1380, 1700, 1500, 1722), 20)
    layout = [
        LayoutBox("figure", (890, 1240, 1510, 2014), 0.8),
        LayoutBox("reference", (905, 1556, 1505, 2005), 0.7),
    ]
    regions = compose(1700, 2200, layout, [ticks, *items])
    md = assemble_page(regions)
    assert "9 10" not in md, md
    text = [r for r in regions if r.label in (Label.TEXT, Label.LIST) and r.text]
    assert text and text[0].text.startswith("- a. Use the graph"), text[0].text
    assert all(md.count(f"find the {w} ") == 1 for w in ["velocity", "speed", "height", "time"])
