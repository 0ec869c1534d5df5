"""Dot leaders, notes under a table and the TEDS helper, without models (issue 23): each case
is the geometry a real page gives (the Census Bureau's census_12s0324.pdf: "Total . . . .
11,062.6", "Source: U.S. Department ..." under the table; test_cpu_tables_issue23.py reads
the page itself)."""

from __future__ import annotations

from tests.engines.cpu.tables.teds import parse_tables, table, teds
from workbench.engines.cpu.boxes import LayoutBox, Line, Word, union_all
from workbench.engines.cpu.page import Page
from workbench.engines.cpu.tables.boxes import aligned_tables
from workbench.engines.cpu.tables.fragments import _before_leader, find_tables, fragments
from workbench.engines.cpu.tables.grid import build
from workbench.engines.cpu.tables.notes import table_notes
from workbench.engines.cpu.tables.pairs import find_pairs


def _words(y: float, *items: tuple[str, float]) -> Line:
    """A text-layer line of words, each (text, left x), 7 px a character, 12 px high."""
    words = [Word(t, (x, y, x + 7 * len(t), y + 12), 100.0) for t, x in items]
    box = (words[0].box[0], y, words[-1].box[2], y + 12)
    return Line(" ".join(w.text for w in words), box, 100.0, "text_layer", words, size=12.0)


def test_spaced_dot_leader_ends_the_label_and_is_dropped():
    # "Total . . . . 11,062.6": the dots are words of their own, set closer than join_gap
    dots = [(".", 60.0 + 6 * k) for k in range(8)]
    line = _words(0, ("Total", 20.0), *dots, ("11,062.6", 112.0), ("1,540.0", 200.0))
    assert [t for t, _ in fragments([line])] == ["Total", "11,062.6", "1,540.0"]


def test_fused_dot_leader_splits_label_from_its_first_figure():
    # "Net sales........1,234": label, leader and figure in one word (no gap to split at)
    line = _words(0, ("Net", 20.0), ("sales........1,234", 48.0), ("1,100", 220.0))
    frags = fragments([line])
    assert [t for t, _ in frags] == ["Net sales", "1,234", "1,100"]
    label, figure = frags[0][1], frags[1][1]
    assert label[2] < figure[0]  # the figure's box lies right of the label's


def test_ocr_line_with_a_leader_is_two_cells():
    line = Line("Cost of sales ..........  812", (20, 0, 300, 12), 90.0, "rapidocr")
    assert [t for t, _ in fragments([line])] == ["Cost of sales", "812"]


def test_label_keeps_an_abbreviation_but_not_the_leaders_first_dot():
    assert _before_leader("Forcible rape.") == "Forcible rape"
    assert _before_leader("Sex offenses 1.") == "Sex offenses 1"
    assert _before_leader("possessing, etc..") == "possessing, etc."
    assert _before_leader("possessing, etc.") == "possessing, etc."


def test_dot_leader_rows_are_found_as_a_table():
    # a statement set with leaders and no ruling, each label fused with its first figure
    # ("Net sales........1,234"): before the leader split a row was two cells, no table
    rows = [
        ("Net sales", "1,234", "1,100"),
        ("Cost of sales", "812", "790"),
        ("Gross", "422", "310"),
    ]
    lines = [
        _words(30.0 * k, (f"{a}{'.' * 12}{b}", 20.0), (c, 330.0))
        for k, (a, b, c) in enumerate(rows)
    ]
    assert len(find_tables(lines)) == 1


def _page(lines: list[Line], box: tuple[float, float, float, float]) -> Page:
    page = Page(1000, 1000, lines, 12.0, [LayoutBox("table", box, 0.9)])
    page.members = {0: list(lines)}
    return page


def _body(y: float, label: str) -> list[Line]:
    return [_words(y, (label, 100.0)), _words(y, ("10.0", 400.0)), _words(y, ("9.1", 600.0))]


def test_source_and_footnotes_under_a_table_leave_it():
    body = _body(0, "Total") + _body(20, "Violent crime") + _body(40, "Runaways")
    note = _words(64, ("–", 110.0), ("Represents", 125.0), ("zero.", 210.0), ("X", 260.0))
    source = _words(84, ("Source:", 110.0), ("U.S.", 170.0), ("Department", 210.0))
    page = table_notes(_page([*body, note, source], (90, 0, 640, 100)))
    assert page.members[0] == body
    assert [[ln.text for ln in page.members[k]] for k in (1, 2)] == [[note.text], [source.text]]
    assert [b.native for b in page.layout] == ["table", "table_note", "table_note"]
    assert page.layout[0].box[3] <= note.box[1]


def test_a_tables_last_row_stays():
    # a last row alone in its band but short and unmarked ("Other") is the table's own
    body = _body(0, "Total") + _body(20, "Violent crime") + [_words(40, ("Other", 100.0))]
    page = table_notes(_page(body, (90, 0, 640, 60)))
    assert page.members[0] == body and len(page.layout) == 1


def test_teds_is_one_for_the_same_table_and_falls_with_a_spurious_column():
    truth = table([["Offense", "Total"], ["Robbery", "102.1"]])
    assert teds(table([["Offense", "Total"], ["Robbery", "102.1"]]), truth) == 1.0
    shifted = table([["", "Offense", "Total"], ["Robbery", "", "102.1"]])
    assert teds(shifted, truth) < 0.8
    assert teds(None, truth) == 0.0


def test_teds_reads_pipe_and_html_tables_alike():
    md = '| a | b |\n|---|---|\n| 1 | 2 |\n\ntext\n\n<table><tr><th colspan="2">G</th></tr></table>'
    pipe, html = parse_tables(md)
    assert teds(pipe, table([["a", "b"], ["1", "2"]])) == 1.0
    assert teds(html, table([[("G", 1, 2)]])) == 1.0


def _pairs(rows: list[tuple[str, str]], value_x: float = 300.0) -> list[Line]:
    return [_words(20.0 * k, (a, 20.0), (b, value_x)) for k, (a, b) in enumerate(rows)]


def test_labels_beside_their_figures_are_a_two_column_table():
    """The geometry of tables_paper.pdf's last table: four labels, one figure each, set two
    columns apart (the layout model boxed labels and figures apart: two paragraphs)."""
    rows = [("Annotators", "14"), ("Documents annotated", "3,920"), ("Hours per doc", "0.63")]
    lines = _pairs(rows)
    assert find_pairs(lines) == [union_all([ln.box for ln in lines])]
    # keys with a colon take any value (a receipt's or a form's "Date: 12/03/2024")
    keys = _pairs([("Date:", "12/03/2024"), ("Cashier:", "Ann"), ("Subtotal:", "11.20")])
    assert len(find_pairs(keys)) == 1


def test_a_price_list_with_section_labels_is_one_pair_table():
    """camelot's wine list (detect_vertical_false.pdf): prices set after the figure ("8 €"),
    an appellation alone on its line over its wines; a section label ends no table, and a
    trailing one is not the table's."""
    rows = [("Les Blancs", "12.5CL"), ("A.O.P Vacqueyras", ""), ("Domaine de Montvac", "10 €")]
    rows += [("A.O.P Cornas", ""), ("Domaine Lionnet 2012", "15 €"), ("Chateau Leoube", "9 €")]
    lines = [
        _words(20.0 * k, (a, 20.0), (b, 300.0)) if b else _words(20.0 * k, (a, 20.0))
        for k, (a, b) in enumerate([*rows, ("A.O.P Saint Joseph", "")])
    ]
    assert find_pairs(lines) == [union_all([ln.box for ln in lines[:-1]])]
    # two label rows in a row: the run stops there (three pairs above still make a table)
    stacked = _pairs([("Les Blancs", "12.5CL"), ("Domaine", "10 €"), ("Lionnet", "15 €")])
    stacked += [_words(60.0, ("Notes", 20.0)), _words(80.0, ("Misc", 20.0))]
    stacked += [_words(100.0, ("Other", 20.0), ("8 €", 300.0))]
    assert find_pairs(stacked) == [union_all([ln.box for ln in stacked[:3]])]


def test_prose_contents_and_short_runs_are_not_pair_tables():
    # page numbers in order: a table of contents
    assert find_pairs(_pairs([("Introduction", "1"), ("Methods", "4"), ("Results", "9")])) == []
    # a word gap, not a column gap
    close = [_words(20.0 * k, ("Total", 20.0), ("12", 70.0)) for k in range(4)]
    assert find_pairs(close) == []
    assert find_pairs(_pairs([("Annotators", "14"), ("Documents", "3,920")])) == []


def test_a_formula_box_over_a_found_table_gives_way_to_it():
    """tables_paper.pdf: the layout model drew an "equation" box (0.52) over the booktabs
    table it also boxed as a table (0.9); the equation box took every line of the table."""
    rows = [("Baseline CRF", "1.2", "88.4"), ("BiLSTM", "8.7", "91.3"), ("Small", "22.1", "92.6")]
    lines = [
        _words(20.0 * k, (a, 20.0), (b, 200.0), (c, 300.0)) for k, (a, b, c) in enumerate(rows)
    ]
    t = union_all([ln.box for ln in lines])
    boxes = [LayoutBox("table", t, 0.9), LayoutBox("equation", t, 0.52), LayoutBox("text", t, 0.9)]
    assert [b.native for b in aligned_tables(boxes, lines)] == ["table", "text"]
    # a table the model missed under a picture box: the picture goes, the table is found
    out = aligned_tables([LayoutBox("figure", t, 0.8)], lines)
    assert [b.native for b in out] == ["aligned_table"]


def test_a_sparse_headless_column_joins_the_cell_on_its_left():
    """A dot leader OCR'd as letters in one row ("Storage cooiiiiiiii") made a column of its
    own, empty in every other row: the figures stay under their year heads."""
    frags = [("2024", (300.0, 0.0, 340.0, 12.0)), ("2023", (400.0, 0.0, 440.0, 12.0))]
    for k, label in enumerate(["Compute", "Storage", "Data", "Annotation", "Total"]):
        y = 20.0 * (k + 1)
        frags += [(label, (20.0, y, 90.0, y + 12)), ("310", (310.0, y, 340.0, y + 12))]
        frags += [("288", (410.0, y, 440.0, y + 12))]
    frags.append(("cooiiii", (150.0, 40.0, 220.0, 52.0)))
    rows = build(frags).rows()
    assert rows[0] == ["", "2024", "2023"]
    assert rows[2] == ["Storage cooiiii", "310", "288"]


def test_titles_centred_over_a_table_leave_its_top():
    """A receipt boxed whole as one table: the shop's name and address, centred lines alone
    in their rows, go to a box above; the items stay."""
    # the items run from x 100 to 621: both title lines are centred on 364
    name = _words(0, ("HARBOR", 310.0), ("GROCERY", 370.0))
    address = _words(20, ("118", 290.0), ("Harbor", 320.0), ("Lane", 370.0), ("ME", 424.0))
    items = _body(40, "Whole milk") + _body(60, "Sourdough") + _body(80, "Eggs")
    page = table_notes(_page([name, address, *items], (90, 0, 640, 100)))
    assert page.members[0] == items
    assert [ln.text for ln in page.members[1]] == [name.text, address.text]
    assert page.layout[0].box[1] >= address.box[3]


def test_two_stacked_statements_are_two_tables_and_prose_around_them_stays():
    """tables_stacked.pdf's geometry: "Revenue" rows, a heading, a blank gap, "Expenses"
    rows; the layout model boxed the first statement with the paragraph above as one text
    box. Before, find_tables joined both statements over the heading into one table and the
    text box kept the first one's lines: a paragraph of "Grants received . . . 412,000 ...".
    """

    def rows(y0: float, labels: list[str]) -> list[Line]:
        return [
            _words(y0 + 20.0 * k, (a, 20.0), ("41,000", 250.0), ("39,800", 330.0))
            for k, a in enumerate(labels)
        ]

    first = rows(100.0, ["Grants", "Dues", "Fees", "Total"])
    heading = _words(200.0, ("Expenses", 20.0))
    second = rows(240.0, ["Salaries", "Travel", "Rent", "Total"])
    found = find_tables([*first, heading, *second])
    assert found == [union_all([ln.box for ln in first]), union_all([ln.box for ln in second])]
    prose = _words(60.0, ("The", 20.0), ("statements", 50.0), ("below", 130.0))
    text = LayoutBox("text", union_all([prose.box, *[ln.box for ln in first]]), 0.9)
    out = aligned_tables([text], [prose, *first])
    assert [b.native for b in out] == ["text", "aligned_table"]
    assert out[0].box[3] <= first[0].box[1]  # the text box keeps the part above the table
