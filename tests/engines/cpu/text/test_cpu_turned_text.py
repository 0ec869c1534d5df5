"""Text set on its side is read in its own frame: its lines in the order they are written,
whichever way they run (pdfplumber's issue-848 p5, tests/data/SOURCES.md: a landscape page of
prose whose lines run down the page, so they follow each other right to left)."""

from __future__ import annotations

import io
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import Line, level_box, turned_way
from workbench.engines.cpu.engine import get_cpu_engine
from workbench.engines.cpu.text.passes import sorted_lines
from workbench.markdown.assemble import assemble_page

PAGE = Path(__file__).resolve().parents[3] / "data" / "turned_text_page.pdf"
FIRST = "The movie opens with a news report"  # the synopsis, line by line as written
SECOND = "ideal. Among other stories, three police officers"
LAST = "the next day and admonishes them harshly"


def _read(data: bytes) -> tuple[str, list[str]]:
    doc = open_document("turned.pdf", data)
    try:
        page = doc.page(1, dpi=100)
        engine = get_cpu_engine().configured(text_layer="auto")
        [out] = list(
            engine.run([PageRequest(key="p", image=page.image, text_layer=page.text_layer)])
        )
    finally:
        doc.close()
    assert out.ok, out.error
    styles = sorted({w.style for w in page.text_layer.words}) if page.text_layer else []
    return assemble_page(out.regions or []), styles


def _turned(degrees: int) -> bytes:
    pdf = pdfium.PdfDocument(PAGE.read_bytes())
    pdf[0].set_rotation(degrees)
    buf = io.BytesIO()
    pdf.save(buf)
    pdf.close()
    return buf.getvalue()


@pytest.mark.parametrize(
    ("degrees", "runs"), [(0, "d"), (180, "a")], ids=["running-down", "running-up"]
)
def test_the_lines_of_a_turned_page_read_in_the_order_they_are_written(
    degrees: int, runs: str
) -> None:
    """As printed (lines run down: read right to left) and shown upside down by the page's
    /Rotate (they run up: read left to right; the characters' angle in the file is the same,
    so the way is read from where they are drawn)."""
    markdown, styles = _read(PAGE.read_bytes() if degrees == 0 else _turned(degrees))
    assert any(s.endswith("u" + runs) for s in styles), styles
    first, second, last = (markdown.find(t) for t in (FIRST, SECOND, LAST))
    assert -1 < first < second < last, markdown[:400]


def _line(text: str, box: tuple[float, float, float, float], turned: int) -> Line:
    return Line(text, box, 100.0, "text_layer", turned=turned)


def test_turned_lines_in_one_block_follow_the_way_they_run() -> None:
    down = [_line(t, (x, 10, x + 10, 300), -1) for t, x in (("b", 40), ("a", 60), ("c", 20))]
    assert [ln.text for ln in sorted_lines(down)] == ["a", "b", "c"]  # right to left
    up = [_line(t, (x, 10, x + 10, 300), 1) for t, x in (("b", 40), ("a", 20), ("c", 60))]
    assert [ln.text for ln in sorted_lines(up)] == ["a", "b", "c"]  # left to right
    level = [_line(t, (10, y, 300, y + 10), 0) for t, y in (("b", 40), ("a", 20))]
    assert [ln.text for ln in sorted_lines(level)] == ["a", "b"]


def test_the_way_is_the_one_most_characters_take() -> None:
    stamp = _line("arXiv:2412.00001v1 [cs.CL] 1 Dec 2024", (5, 100, 20, 600), 1)
    prose = [_line("A paragraph of level text " * 3, (50, y, 500, y + 10), 0) for y in (10, 30)]
    assert turned_way([stamp, *prose]) == 0  # a margin stamp does not turn a paper
    assert turned_way([stamp]) == 1 and turned_way([]) == 0
    # down a page 1000 wide: the right edge is the frame's top; up a page 800 high: the left
    assert level_box((900, 100, 950, 700), -1, 1000, 800) == (100, 50, 700, 100)
    assert level_box((50, 100, 100, 700), 1, 1000, 800) == (100, 50, 700, 100)


def test_a_turned_margin_label_opens_no_entry_of_a_form_read_as_contents() -> None:
    """IRS forms read as contents ("43 Add lines 41 and 42 … 43"): the turned label beside
    their rows ("Tax and Credits", set up the margin) is a row of its own, not the start of
    the entry level with its middle."""
    from workbench.engines.cpu.furniture import contents

    label = _line("Tax and Credits", (38, 100, 50, 190), 1)  # centre y 145, 12 px wide
    entry = _line("43 Add lines 41 and 42 … 43", (80, 140, 900, 152), 0)  # centre y 146
    rows = contents._rows([entry, label])
    assert [[ln.text for ln in r] for r in rows] == [["Tax and Credits"], [entry.text]]
