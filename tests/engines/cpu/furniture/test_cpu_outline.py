"""Headings from the PDF's outline (issue 35): the bookmarks reach the engine with the text
layer (:mod:`workbench.documents.outline`) and set heading levels
(:mod:`workbench.engines.cpu.furniture.outline`), on real pages: pypdf's pdflatex-outline.pdf
and sympy's G-function page (``structure/sympy-gfunctions-2col.pdf``, whose hyperref outline
puts "0.1 Applying the Integral Theorems" at the top level and "0.1.1 The G-Function
Integration Theorems" under it)."""

from __future__ import annotations

from pathlib import Path

from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.furniture import outline
from workbench.engines.cpu.page import Block

DATA = Path(__file__).resolve().parents[3] / "data"


def _page(name: str, index: int):  # type: ignore[no-untyped-def]
    path = DATA / name
    return open_document(path.name, path.read_bytes()).page(index, 200)


def test_the_outline_entries_of_a_page_travel_with_its_text_layer():
    assert _page("pdflatex_outline.pdf", 1).text_layer.outline == ()
    assert _page("pdflatex_outline.pdf", 3).text_layer.outline == (
        (1, "Bar"),
        (1, "Baz"),
        (1, "Foo"),
    )


def test_outline_depths_set_the_heading_levels(engine):
    page = _page("structure/sympy-gfunctions-2col.pdf", 1)
    req = PageRequest(key="g", image=page.image, text_layer=page.text_layer)
    out = next(iter(engine.run([req])))
    heads = [r.text for r in out.regions or [] if r.text.startswith("#")]
    # the numbering alone made them ### and #### (a numbered section is never the page's ##)
    assert "## 0.1 Applying the Integral Theorems" in heads
    assert "### 0.1.1 The G-Function Integration Theorems" in heads


def _line(text: str, y: float) -> Line:
    box = (100.0, y, 100.0 + 8 * len(text), y + 12)
    return Line(text, box, 100.0, "text_layer", [Word(text, box, 100.0)])


def test_a_heading_glued_to_its_paragraph_is_cut_out_at_its_entry_depth():
    lines = [_line("2.3 Sampling", 100), _line("We drew 40 plots at random from", 116)]
    lines.append(_line("the survey area.", 132))
    blocks = [Block("text", (100.0, 100.0, 400.0, 144.0), lines, 0.9)]
    out = outline.apply(blocks, ((1, "Methods"), (2, "Sampling")))
    assert [(b.native, [ln.text for ln in b.lines]) for b in out] == [
        ("heading:3", ["2.3 Sampling"]),
        ("text", ["We drew 40 plots at random from", "the survey area."]),
    ]
    assert outline.apply(blocks, ((1, "Results"),)) == blocks  # no entry: left as it was
