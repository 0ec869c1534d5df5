"""Structural evidence (readers/structure.py): born-digital pages whose words are exact but
whose structure came apart get a confidence under the app's flag; sound pages keep theirs.

The three ``structure/`` pages are development-set pages of issue 23 (tests/data/SOURCES.md):
two tables side by side read as one grid, a key/value form whose keys and values became
separate blocks, and a two-column math page whose formulas fell into pieces."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.documents import open_document
from workbench.engines.cpu import confidence, passes
from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.page import Block, Page
from workbench.engines.cpu.readers import structure
from workbench.schema import LOW_CONFIDENCE, Label, PageResult, Region

DATA = Path(__file__).resolve().parents[3] / "data"


def _read(engine, name: str, index: int = 1) -> list[Region]:
    """The page's regions as the app reads it (200 DPI, its text layer, ``auto`` mode)."""
    doc = open_document(Path(name).name, (DATA / name).read_bytes())
    try:
        page = doc.page(index, dpi=200)
        regions, _ = engine.analyze(page.image, page.text_layer)
    finally:
        doc.close()
    return regions


def _confidence(regions: list[Region]) -> float | None:
    """The page confidence the app flags (:attr:`PageResult.confidence`)."""
    result = PageResult(
        document="d", page=1, width=1, height=1, engine="cpu", model="m", regions=regions
    )
    return result.confidence


def test_structure_runs_last_among_the_passes():
    assert passes.NAMES[-1] == "structure"


@pytest.mark.slow  # real pages through the engine
def test_two_tables_side_by_side_fall_under_the_flag(engine):
    # ``side_by_side`` now reads this page as two tables; the signal is for a pair of tables
    # no pass separates (the reading the engine gave before that pass existed)
    regions = _read(engine.without("side_by_side"), "structure/tabula-multicolumn.pdf")
    [table] = [r for r in regions if r.label == Label.TABLE]
    assert table.confidence is not None and table.confidence < LOW_CONFIDENCE


@pytest.mark.slow  # real pages through the engine
def test_two_tables_read_as_two_keep_their_confidence(engine):
    tables = [
        r for r in _read(engine, "structure/tabula-multicolumn.pdf") if r.label == Label.TABLE
    ]
    assert len(tables) == 2 and all((t.confidence or 1.0) >= LOW_CONFIDENCE for t in tables)


@pytest.mark.slow  # real pages through the engine
def test_keys_and_values_read_apart_fall_under_the_flag(engine):
    # ``key_values`` now reads this form key then value; without it keys and values are
    # read apart, as on a form that pass does not recognise
    conf = _confidence(_read(engine.without("key_values"), "structure/form-pkginfo-sympy.pdf"))
    assert conf is not None and conf < LOW_CONFIDENCE


@pytest.mark.slow  # real pages through the engine
def test_formulas_in_pieces_fall_under_the_flag(engine):
    conf = _confidence(_read(engine, "structure/sympy-gfunctions-2col.pdf"))
    assert conf is not None and conf < LOW_CONFIDENCE


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "two_column_article.pdf",  # prose columns: rows side by side, one block a column
        "tables_paper.pdf",  # tables with a label column and two-line headers
        "born_digital_formulas.pdf",  # display formulas read as formulas
        "census_12s0324.pdf",  # a wide government table with many columns
    ],
)
def test_sound_pages_keep_their_confidence(engine, name):
    # no structural signal fires: each region keeps its characters' confidence, a table the
    # share every table keeps (engines/cpu/confidence.py, issue 35)
    regions = _read(engine, name)

    def floor(r: Region) -> float:
        return 0.9 * (confidence.TABLE_TRUST if r.label is Label.TABLE else 1.0)

    assert all(r.confidence is None or r.confidence >= floor(r) for r in regions if r.text), [
        (r.label, r.confidence, r.text[:40]) for r in regions if (r.confidence or 1) < floor(r)
    ]


def _cells(*columns: tuple[float, float], rows: int = 4, h: float = 20.0) -> Block:
    """A table block: ``rows`` rows of one word per column (x-ranges), one line a row."""
    lines = []
    for i in range(rows):
        y = i * 1.5 * h
        words = [Word("12", (x0, y, x1, y + h), 99.0) for x0, x1 in columns]
        lines.append(Line("12 " * len(columns), (columns[0][0], y, columns[-1][1], y + h), 99.0,
                          "text_layer", words))  # fmt: skip
    box = (columns[0][0], 0.0, columns[-1][1], rows * 1.5 * h)
    return Block("table", box, lines, 1.0, label=Label.TABLE)


def test_a_gutter_inside_the_grid_is_two_tables():
    # columns 30 px (1.5 line heights) apart, then a 150 px gutter, then three more
    left = [(0, 40), (70, 110), (140, 180)]
    right = [(330, 370), (400, 440), (470, 510)]
    assert structure.split_grid(_cells(*left, *right), line_h=20.0)
    assert not structure.split_grid(_cells(*left, (210, 250), (280, 320)), line_h=20.0)


def test_a_label_columns_wide_gap_is_one_table():
    # the widest gap right after the first column: a label column, not a second table
    assert not structure.split_grid(_cells((0, 200), (500, 540), (570, 610), (640, 680)), 20.0)


def test_one_or_two_stray_pieces_are_noise():
    def text(t: str, y: float) -> Block:
        ln = Line(t, (0, y, 10 * len(t), y + 20), 99.0, "text_layer", [])
        return Block("text", ln.box, [ln], 1.0, label=Label.TEXT, text=t)

    prose = [text("a paragraph of words", 100.0 * i) for i in range(4)]
    page = Page(width=800, height=1000, lines=[], line_h=20.0, layout=[])
    page.blocks = [*prose, text("2.", 500), text("p,q 0", 600)]
    assert structure.debris(page) == 1.0  # two pieces: under MIN_DEBRIS
    page.blocks.append(text("3.", 700))
    assert structure.debris(page) == pytest.approx(1 - 3 / 7)
