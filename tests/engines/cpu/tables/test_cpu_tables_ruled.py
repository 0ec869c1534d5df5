"""Ruled tables (issue 35): cell grids from the PDF's ruling lines by pdfplumber's table
finder (:mod:`workbench.engines.cpu.tables.ruled`), on real pages: tabula-java's fully ruled
frx_2012_disclosure page (``ruled_frx_2012_disclosure.pdf``) and the Census Bureau's
``census_12s0324.pdf``, whose only rules frame its column groups (Total / Male), not its
cells: that partial grid must not take the table over; camelot's ``health.pdf`` page
(``ruled_shaded_health.pdf``), whose rows are ruled but whose columns are only shaded: the
shading's sides are no rules; tabula-java's AnimalSounds page (``ruled_rows_animalsounds.pdf``),
ruled under every row and not between its columns, with cells that wrap over two to four
lines: its rows are the bands between the rules (:mod:`workbench.engines.cpu.tables.banded`)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.engines.cpu.boxes import Line, Word, median, union_all
from workbench.engines.cpu.readers.pdftext import lines_from_layer
from workbench.engines.cpu.tables import banded, ruled
from workbench.schema import Label

DATA = Path(__file__).resolve().parents[3] / "data"
FRX, CENSUS = DATA / "ruled_frx_2012_disclosure.pdf", DATA / "census_12s0324.pdf"
SHADED = DATA / "ruled_shaded_health.pdf"
ROWS = DATA / "ruled_rows_animalsounds.pdf"
W, H = 1700, 2200  # any page_px size: the grid scales with the layer


def _grids(pdf: Path) -> tuple[list[ruled.Grid], list]:  # type: ignore[type-arg]
    layer = extract_pdf(pdf, 1)
    assert layer is not None
    return ruled.grids(layer.edges, *layer.scale(W, H)), lines_from_layer(layer, W, H)


def test_a_fully_ruled_table_is_one_grid_of_its_five_columns():
    found, lines = _grids(FRX)
    assert len(found) == 1
    grid = found[0]
    assert len({c[0] for c in grid.cells}) == 5
    assert len({c[1] for c in grid.cells}) >= 30  # one row a payment or TOTAL line
    assert ruled.holds(grid, lines)  # every word but the title and the foot is in a cell
    table, above, _ = ruled.grid_table(grid, lines)
    rows = table.rows()
    assert ["AALAEI, BEHZAD", "", "HIGHLAND, IN", "MEALS", "$51.24"] in rows
    assert ["TOTAL", "", "", "", "$51.24"] in rows
    assert [ln.text for ln in above][:2] == ["Forest Laboratories, Inc.", "Disclosure Report"]


def test_rules_around_column_groups_only_are_not_the_table():
    found, lines = _grids(CENSUS)
    assert len(found) == 1  # the Total / Male group frames make a small grid...
    grid = found[0]
    end = min(ln.box[3] for ln in lines if ln.text.startswith("Runaways"))
    table_324 = [ln for ln in lines if grid.box[1] <= ln.box[1] and ln.box[3] <= end]
    assert len(table_324) > 50
    assert not ruled.holds(grid, table_324)  # ...that holds under half of Table 324's words


def test_shaded_cells_make_no_grid():
    """Rows ruled, columns only shaded (alternate rows in light blue): no ruled grid, so the
    word-alignment grid reads the table (with the shading's sides as rules, pdfplumber's
    finder made a 24-column grid of the 8 columns, half its rows one merged cell)."""
    found, lines = _grids(SHADED)
    assert not [g for g in found if ruled.holds(g, lines)]


@pytest.mark.slow
def test_engine_reads_a_shaded_table_by_its_columns(engine):
    pdf = pdfium.PdfDocument(SHADED)
    image = pdf[0].render(scale=200 / 72).to_pil().convert("RGB")
    req = PageRequest(key=SHADED.name, image=image, text_layer=extract_pdf(SHADED, 1))
    page = next(iter(engine.run([req])))
    table = "\n".join(r.text for r in page.regions or [] if r.label is Label.TABLE)
    cells = ["Arunachal Pradesh", "2,241,609", "107,549", "23,000", "0", "2,372,158", "86,336"]
    cells.append("2,458,494")  # the state's eight columns, one cell each
    assert "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>" in table


def test_no_edges_no_grid():
    assert ruled.grids([], 1.0, 1.0) == []


def _paper(n: int) -> list[tuple[float, float, float, float]]:
    step = 600 / n
    flat = [(0.0, k * step, 600.0, k * step) for k in range(n + 1)]
    return flat + [(k * step, 0.0, k * step, 600.0) for k in range(n + 1)]


def test_graph_paper_is_no_table_but_a_big_ruled_table_is():
    assert ruled.grids(_paper(100), 1.0, 1.0) == []  # 10,201 crossings: not searched
    [grid] = ruled.grids(_paper(40), 1.0, 1.0)
    assert len(grid.cells) == 1600


@pytest.mark.slow
def test_engine_reads_a_ruled_table_through_its_grid(engine):
    pdf = pdfium.PdfDocument(FRX)
    image = pdf[0].render(scale=200 / 72).to_pil().convert("RGB")
    req = PageRequest(key=FRX.name, image=image, text_layer=extract_pdf(FRX, 1))
    [with_grid, without] = [
        next(iter(e.run([req]))) for e in (engine, engine.without("ruled_tables"))
    ]
    tables = [r.text for r in with_grid.regions or [] if r.label is Label.TABLE]
    assert len(tables) == 1
    assert "| AALAEI, BEHZAD |  | HIGHLAND, IN | MEALS | \\$51.24 |" in tables[0]
    assert "| TOTAL |  |  |  | \\$51.24 |" in tables[0]
    old = "\n".join(r.text for r in without.regions or [] if r.label is Label.TABLE)
    assert "| TOTAL |  |  |  | \\$51.24 |" not in old  # the word-alignment grid misses it


def test_a_table_ruled_under_every_row_reads_its_rows_between_the_rules():
    layer = extract_pdf(ROWS, 1)
    assert layer is not None
    lines = lines_from_layer(layer, W, H)
    assert not ruled.grids(layer.edges, *layer.scale(W, H))  # no column rules: no cells
    rules = ruled.rules(layer.edges, *layer.scale(W, H))
    box = union_all([ln.box for ln in lines])
    grid = banded.banded(box, rules, lines, median([ln.height for ln in lines], 20.0))
    assert grid is not None and ruled.holds(grid, lines)
    table, above, below = ruled.grid_table(grid, lines)
    rows = table.rows()
    assert rows[:2] == [["Animal", "Action", "Result"], ["Cat", "Says", "Meow"]]
    assert rows[2] == ["Parastratiosphecomyiastratiosph ecomyioides", "Says", "bzzzzzzz"]
    assert rows[3][:2] == ["Fox", "Says"] and rows[3][2].startswith("Ring-")
    assert rows[3][2].endswith("ing-dingdingdingdingeringeding")  # four lines, one cell
    assert len(rows) == 4 and not above and not below


def _row(cells: list[str], y: float) -> Line:
    words = [Word(t, (100 + 300 * k, y, 100 + 300 * k + 20 * len(t), y + 20), 100.0)
             for k, t in enumerate(cells) if t]  # fmt: skip
    return Line(" ".join(cells), (100, y, 1000, y + 20), 100.0, "text_layer", words)


def test_a_booktabs_table_is_no_row_ruled_table():
    """Top, middle and bottom rules only: the body band holds four full rows, so the rules
    are not the rows (the word-alignment grid reads them)."""
    lines = [_row(["Model", "Size", "Score"], 110)]
    lines += [_row([f"m{k}", f"{k}B", f"{50 + k}"], 160 + 30 * k) for k in range(4)]
    rules = [(90.0, 100.0, 1010.0), (90.0, 140.0, 1010.0), (90.0, 290.0, 1010.0)]
    assert banded.banded((90, 100, 1010, 290), rules, lines, 20.0) is None
    ruled_rows = rules + [(90.0, 185.0 + 30 * k, 1010.0) for k in range(3)]  # one a row
    assert banded.banded((90, 100, 1010, 290), ruled_rows, lines, 20.0) is not None


def test_a_word_in_overlapping_cells_goes_to_the_smallest():
    """pdfplumber gave an Indian census table's header corner a cell over the whole header
    (its corners are not ruled): every header word went into that first cell."""
    from workbench.engines.cpu.page import Grid

    header = (100.0, 100.0, 1000.0, 160.0)  # the corner cell reaching across the header
    cells = (header, (400.0, 100.0, 700.0, 160.0), (700.0, 100.0, 1000.0, 160.0),
             (100.0, 160.0, 400.0, 200.0), (400.0, 160.0, 700.0, 200.0),
             (700.0, 160.0, 1000.0, 200.0))  # fmt: skip
    lines = [_row(["State", "Person", "Male"], 120), _row(["Assam", "87.1", "86.0"], 170)]
    table, above, below = ruled.grid_table(Grid(cells), lines)
    assert table.rows() == [["State", "Person", "Male"], ["Assam", "87.1", "86.0"]]
    assert not above and not below


def _band_grid(top: float, bottom: float) -> ruled.Grid:
    """Three ruled columns (x 90-390-690-990): a header cell row 90-140, one band below."""
    xs = [90.0, 390.0, 690.0, 990.0]
    rows = [(90.0, 140.0), (top, bottom)]
    return ruled.Grid(tuple((xs[i], a, xs[i + 1], b) for a, b in rows for i in range(3)))


def test_a_ruled_band_of_figures_line_for_line_with_its_labels_is_one_row_a_line():
    """A census table ruled around its column groups only (camelot's assam page, tuning half
    of issue 35's corpus): 24 districts in one ruled band read as one row of 24-line cells.
    Every value cell is a column of figures (a dash where none), line for line with the
    labels, so each line is a row; a wrapped label stays with its row."""
    lines = [_row(["District", "Total", "Rural"], 100)]
    lines += [_row(["Barpeta", "88.8", "88.6"], 150), _row(["Cachar", "85.3", "-"], 180)]
    lines += [_row(["North Cachar", "95.6", "94.8"], 210), _row(["Hills"], 232)]
    lines += [_row(["Sibsagar", "86.2", "85.6"], 260)]
    table, _, _ = ruled.grid_table(_band_grid(140.0, 300.0), lines)
    assert table.rows() == [
        ["District", "Total", "Rural"],
        ["Barpeta", "88.8", "88.6"],
        ["Cachar", "85.3", "-"],
        ["North Cachar Hills", "95.6", "94.8"],
        ["Sibsagar", "86.2", "85.6"],
    ]


def test_wrapped_words_in_a_ruled_row_stay_one_row():
    """Two cells wrapped over two lines at the same heights (a header, a description beside a
    note): words, not figures, so the row is one row of two-line cells."""
    lines = [_row(["Item", "Number", "Share"], 100)]
    lines += [_row(["Voters", "registered in", "of the whole"], 150)]
    lines += [_row(["", "the county", "state"], 175)]
    table, _, _ = ruled.grid_table(_band_grid(140.0, 210.0), lines)
    assert table.rows()[1] == ["Voters", "registered in the county", "of the whole state"]
    assert len(table.rows()) == 2


def test_a_frame_around_a_header_is_no_cell_its_title_goes_above():
    """pdfplumber gives a cell around other cells where a header's rules stop short (camelot's
    assam page: one cell over the title, the corner's "State / District" and the column
    groups): the title was read into the first cell with the corner. The frame is no cell:
    its lines above the cells it holds are the table's title, its corner word takes the
    column and row its place gives."""
    xs = [90.0, 390.0, 690.0, 990.0]
    frame = (90.0, 40.0, 990.0, 140.0)
    heads = tuple((xs[i], 90.0, xs[i + 1], 140.0) for i in (1, 2))
    body = tuple((xs[i], 140.0, xs[i + 1], 190.0) for i in range(3))
    grid = ruled.Grid((frame, *heads, *body))
    title = Line("Schooling status", (300, 50, 700, 70), 100.0, "text_layer",
                 [Word("Schooling", (300, 50, 480, 70), 100.0),
                  Word("status", (500, 50, 700, 70), 100.0)])  # fmt: skip
    lines = [
        title,
        _row(["District", "Total", "Rural"], 105),
        _row(["Barpeta", "88.8", "88.6"], 155),
    ]
    table, above, _ = ruled.grid_table(grid, lines)
    assert [ln.text for ln in above] == ["Schooling status"]
    assert table.rows() == [["District", "Total", "Rural"], ["Barpeta", "88.8", "88.6"]]
