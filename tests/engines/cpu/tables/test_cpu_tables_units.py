"""Table structure rules without models (table_grid, table_render, tables.fragments): each
case is the geometry a real page gives (see test_cpu_tables.py for the pages themselves)."""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.tables import grid as table_grid
from workbench.engines.cpu.tables import render as table_render
from workbench.engines.cpu.tables.fragments import (
    Fragment,
    find_tables,
    fragments,
    is_numeric,
    is_value,
)
from workbench.markdown.sanitize import sanitize_markdown

# four columns: a label column and three number columns (right edges 300, 400, 500)
LABEL, NUMS = (20.0, 150.0), [(250.0, 300.0), (350.0, 400.0), (450.0, 500.0)]


def _row(y: float, label: str, *values: str) -> list[Fragment]:
    out: list[Fragment] = (
        [(label, (LABEL[0], y, LABEL[0] + 8 * len(label), y + 12))] if label else []
    )
    for (_, x1), v in zip(NUMS, values, strict=True):
        if v:
            out.append((v, (x1 - 8 * len(v), y, x1, y + 12)))
    return out


def _centred(text: str, centre: float, y: float) -> Fragment:
    half = 4 * len(text)
    return (text, (centre - half, y, centre + half, y + 12))


def test_lone_header_centred_over_the_number_columns_spans_them():
    frags = [_centred("Year Ended", 375.0, 0.0)]
    frags += [_centred(y, c, 16.0) for y, c in (("2023", 275.0), ("2022", 375.0), ("2021", 475.0))]
    frags += _row(40.0, "Revenue", "$1,204", "$1,087", "$962") + _row(
        56.0, "Cost", "178", "141", "138"
    )
    table = table_grid.build(frags)
    assert table.header_rows == 2
    assert table.cells[0] == table_grid.Cell("Year Ended", 0, 1, 1, 3)
    html = table_render.render(table)
    assert '<tr><th></th><th colspan="3">Year Ended</th></tr>' in html
    assert (
        "<tr><td>Revenue</td><td>&#36;1,204</td><td>&#36;1,087</td><td>&#36;962</td></tr>" in html
    )


def test_two_line_group_headers_are_one_header_row():
    """10-Q style: "Three Months Ended" / "September 30," over two years, twice."""
    nums = [(250.0, 300.0), (330.0, 380.0), (450.0, 500.0), (530.0, 580.0)]
    frags = [_centred("Three Months Ended", 315.0, 0.0), _centred("Nine Months Ended", 515.0, 0.0)]
    frags += [_centred("September 30,", 315.0, 13.0), _centred("September 30,", 515.0, 13.0)]
    years = ("2024", "2023", "2024", "2023")
    frags += [_centred(y, (a + b) / 2, 28.0) for y, (a, b) in zip(years, nums, strict=True)]
    for k, y in enumerate((50.0, 66.0, 82.0)):
        frags.append((f"Item {k}", (20.0, y, 120.0, y + 12)))
        frags += [
            (v, (b - 30, y, b, y + 12))
            for v, (_, b) in zip(("$12", "9", "40", "31"), nums, strict=True)
        ]
    table = table_grid.build(frags)
    assert table.header_rows == 2
    assert [(c.text, c.row, c.col, c.colspan) for c in table.cells[:2]] == [
        ("Three Months Ended September 30,", 0, 1, 2),
        ("Nine Months Ended September 30,", 0, 3, 2),
    ]
    assert table.rows()[2] == ["Item 0", "$12", "9", "40", "31"]


def test_first_line_of_a_wrapped_head_centred_on_its_column_stays_there():
    """ "Net" over "income" is a wrapped head, not a header over all the columns: set close
    above, centred on its own column, it joins the head under it."""
    frags = [_centred("Net", 275.0, 0.0)]
    frags += [
        _centred(t, c, 13.0) for t, c in (("income", 275.0), ("Sales", 375.0), ("Cost", 475.0))
    ]
    frags += _row(40.0, "North", "12", "40", "28") + _row(56.0, "South", "9", "31", "22")
    table = table_grid.build(frags)
    assert not table.spanning
    assert table.rows()[0] == ["", "Net income", "Sales", "Cost"]
    assert table_render.render(table).startswith("|  | Net income | Sales | Cost |\n|---|")


def test_group_headers_between_others_span_the_columns_they_are_centred_on():
    cols = [(100.0, 140.0), (160.0, 200.0), (220.0, 260.0), (280.0, 320.0)]
    frags: list[Fragment] = [_centred("Spring", 150.0, 0.0), _centred("Autumn", 270.0, 0.0)]
    frags += [("Site", (20.0, 16.0, 52.0, 28.0))]
    frags += [(h, (x0, 16.0, x1, 28.0)) for (x0, x1), h in zip(cols, "ABAB", strict=True)]
    for k, y in enumerate((40.0, 56.0, 72.0)):
        frags += [(f"S{k}", (20.0, y, 40.0, y + 12))]
        frags += [("0.5", (x1 - 24, y, x1, y + 12)) for _, x1 in cols]
    table = table_grid.build(frags)
    assert [(c.text, c.row, c.col, c.rowspan, c.colspan) for c in table.cells[:3]] == [
        ("Site", 0, 0, 2, 1),  # nothing above it in the header: spans both header rows
        ("Spring", 0, 1, 1, 2),
        ("Autumn", 0, 3, 1, 2),
    ]


def test_continuation_lines_join_their_cell_but_section_rows_stay():
    frags = _row(0.0, "Item", "2023", "2022", "2021")
    frags += _row(16.0, "Operating expenses:", "", "", "")  # a section row
    frags += _row(32.0, "Research", "402", "371", "330")
    frags += _row(48.0, "Net income attributable to", "", "", "")  # numbers on the last line
    frags += _row(64.0, "common stockholders", "312", "270", "251")
    frags += _row(80.0, "Deferred revenue", "12", "10", "9")  # numbers on the first line
    frags += _row(96.0, "recognized later", "", "", "")
    frags += _row(112.0, "Total", "726", "651", "590")
    rows = table_grid.build(frags).rows()
    assert [r[0] for r in rows] == [
        "Item",
        "Operating expenses:",
        "Research",
        "Net income attributable to common stockholders",
        "Deferred revenue recognized later",
        "Total",
    ]
    assert rows[3][1:] == ["312", "270", "251"]


def test_text_wrapped_in_a_later_column_joins_the_row_above():
    frags: list[Fragment] = []
    table = (
        (0.0, "Site", "Plot", "Yield"),
        (16.0, "A1", "North field,", "$412"),
        (32.0, "", "drained", ""),
        (48.0, "A2", "South field", "$377"),
    )
    for y, site, desc, v in table:
        if site:
            frags.append((site, (20.0, y, 40.0, y + 12)))
        frags.append((desc, (60.0, y, 60 + 7 * len(desc), y + 12)))
        if v:
            frags.append((v, (260.0, y, 300.0, y + 12)))
    assert table_grid.build(frags).rows()[1:] == [
        ["A1", "North field, drained", "$412"],
        ["A2", "South field", "$377"],
    ]


def test_rotated_header_words_stand_on_their_columns():
    """Text-layer words set at 45° (box much taller than the font size) are one fragment
    each, at their foot, not one run-on line over several columns."""
    words = [
        Word(t, (x, 0.0, x + 70, 70.0), 100.0) for t, x in (("Procedure", 200.0), ("Recall", 260.0))
    ]
    line = Line(
        "Procedure Recall", (200.0, 0.0, 330.0, 70.0), 100.0, "text_layer", words, size=18.0
    )
    assert fragments([line]) == [
        ("Procedure", (200.0, 52.0, 218.0, 70.0)),
        ("Recall", (260.0, 52.0, 278.0, 70.0)),
    ]


def test_numbers_with_units_are_numbers():
    assert all(is_numeric(t) for t in ("3.71T", "78.7M", "$1,204", "(5.2)", "12%", "2.5x", "—"))
    assert not any(is_numeric(t) for t in ("Total", "Jan 26, 2025", "A1B2C", "v2 beta"))


def test_html_cells_are_escaped_and_survive_the_sanitizer():
    frags = [_centred("Change <%>", 375.0, 0.0)]
    frags += [_centred(y, c, 16.0) for y, c in (("Q1", 275.0), ("Q2", 375.0), ("Q3", 475.0))]
    frags += _row(40.0, "R&D", "$5", "$(2)", "—") + _row(56.0, "Ops", "1", "2", "3")
    html = table_render.render(table_grid.build(frags))
    assert '<th colspan="3">Change &lt;%&gt;</th>' in html
    assert "<td>R&amp;D</td><td>&#36;5</td><td>&#36;(2)</td><td>—</td>" in html
    assert "\n\n" not in html  # one HTML block for Markdown
    clean = sanitize_markdown(html)
    assert '<th colspan="3">Change &lt;%&gt;</th>' in clean
    assert "<td>R&amp;D</td><td>$5</td><td>$(2)</td><td>—</td>" in clean  # no math guard hit


def test_prices_after_the_figure_and_short_codes_are_values():
    assert is_numeric("8 €") and is_numeric("12,5 CL") and is_numeric("$178")
    assert not is_numeric("€ rate") and not is_numeric("A1")
    assert is_value("A1") and is_value("B-12") and is_value("17")
    assert not is_value("Outer") and not is_value("COVID-19") and not is_value("Long 1")


def test_a_grid_of_codes_is_a_table_and_prose_columns_are_not():
    """camelot's stream_inner_outer_columns.pdf: cells "C2", "D2", "F2" under six headers."""
    xs = (100.0, 200.0, 300.0, 400.0, 500.0, 600.0)

    def line(y: float, cells: list[tuple[str, float]]) -> Line:
        words = [Word(t, (x, y, x + 8 * len(t), y + 12), 95.0) for t, x in cells]
        box = (words[0].box[0], y, words[-1].box[2], y + 12)
        return Line(" ".join(t for t, _ in cells), box, 95.0, "text_layer", words, size=12.0)

    heads = ["Outer 1", "Outer 2", "Long 1", "Long 2", "Inner", "Long 3"]
    lines = [line(0.0, list(zip(heads, xs, strict=True)))]
    lines.append(line(16.0, [(f"{c}1", x) for c, x in zip("ABCDEF", xs, strict=True)]))
    lines += [
        line(16.0 * k, [(f"C{k - 1}", 300.0), (f"D{k - 1}", 400.0), (f"F{k - 1}", 600.0)])
        for k in (2, 3, 4)
    ]
    assert len(find_tables(lines)) == 1
    words = ["several", "words", "of", "prose", "in", "columns"]
    prose = [line(16.0 * k, [(w, x) for w, x in zip(words, xs, strict=True)]) for k in range(4)]
    assert find_tables(prose) == []


def test_a_head_set_off_its_column_of_dashes_is_one_column():
    """camelot's superscript page (tuning half of issue 35's corpus): "Loans from GIC" sat left
    of its column of dashes, so the grid had a column with the head and nothing under it and
    one with the dashes and no head: one column (TEDS 0.79 -> 0.86 there)."""
    frags: list[Fragment] = [
        ("Name", (20.0, 0.0, 60.0, 12.0)),
        ("Amount", (252.0, 0.0, 300.0, 12.0)),
    ]
    frags += [("GIC", (326.0, 0.0, 350.0, 12.0)), ("Total", (460.0, 0.0, 500.0, 12.0))]
    for k, y in enumerate((20.0, 36.0, 52.0)):
        frags += [
            (f"State {k}", (20.0, y, 76.0, y + 12)),
            (f"{k + 1}.25", (268.0, y, 300.0, y + 12)),
        ]
        frags += [("-", (372.0, y, 378.0, y + 12)), (f"{k + 9}.5", (468.0, y, 500.0, y + 12))]
    rows = table_grid.build(frags).rows()
    assert rows[0] == ["Name", "Amount", "GIC", "Total"]
    assert rows[1:] == [[f"State {k}", f"{k + 1}.25", "-", f"{k + 9}.5"] for k in range(3)]


def test_debit_and_credit_columns_that_never_share_a_row_stay_two():
    """Both columns have a head: the rule above never joins them, though no row fills both."""
    frags: list[Fragment] = [
        ("Item", (20.0, 0.0, 52.0, 12.0)),
        ("Debit", (260.0, 0.0, 300.0, 12.0)),
    ]
    frags += [("Credit", (352.0, 0.0, 400.0, 12.0))]
    for k, y in enumerate((20.0, 36.0, 52.0, 68.0)):
        x = (268.0, 300.0) if k % 2 == 0 else (368.0, 400.0)
        frags += [(f"Entry {k}", (20.0, y, 68.0, y + 12)), (f"{k + 1}.00", (x[0], y, x[1], y + 12))]
    rows = table_grid.build(frags).rows()
    assert rows[0] == ["Item", "Debit", "Credit"] and rows[1] == ["Entry 0", "1.00", ""]
    assert rows[2] == ["Entry 1", "", "2.00"]
