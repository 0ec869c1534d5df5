"""Tables on real pages (issue 12 item 4): the right rows, columns and headers, headers that
span several columns (HTML with colspan/rowspan) and multi-line cells, through the text layer
and through OCR of the rendered page (the layer removed: what a scan gets).

Pages: ``group_header_table.pdf`` (written by ``make_born_digital.py``: a group header row
over sub-columns, plot descriptions wrapped inside their column, labels with an indented
second line), ``financial_statement.pdf`` ("Year Ended December 31," over three year columns)
and the Census Bureau's ``census_12s0324.pdf`` (Total / Male / Female over three columns each,
wrapped column heads, a wrapped row label).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from workbench.documents.textlayer import extract_pdf
from workbench.engines.base import PageRequest
from workbench.markdown.sanitize import sanitize_markdown
from workbench.schema import Label, Region

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[3] / "data"

Cell = tuple[str, str, int, int]  # tag, text, rowspan, colspan


class _Table(HTMLParser):
    """An HTML table's rows as (tag, text, rowspan, colspan) cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[Cell]] = []
        self._cell: Cell | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            a = dict(attrs)
            self._cell = (tag, "", int(a.get("rowspan") or 1), int(a.get("colspan") or 1))

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            tag, text, rs, cs = self._cell
            self._cell = (tag, text + data, rs, cs)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            tag_, text, rs, cs = self._cell
            self.rows[-1].append((tag_, text.strip(), rs, cs))
            self._cell = None


def html_rows(text: str) -> list[list[Cell]]:
    parser = _Table()
    parser.feed(text)
    return parser.rows


def pipe_rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("|") and "---|" not in ln]
    return [[c.strip() for c in ln.strip("|").split(" | ")] for ln in lines]


def _tables(engine, name: str, mode: str) -> list[Region]:  # type: ignore[no-untyped-def]
    pdf = pdfium.PdfDocument(DATA / name)
    image = pdf[0].render(scale=200 / 72).to_pil().convert("RGB")
    layer = extract_pdf(DATA / name, 1) if mode == "auto" else None
    req = PageRequest(key=name, image=image, text_layer=layer)
    out = next(iter(engine.configured(text_layer=mode).run([req])))
    assert out.error is None, out.error
    regions = out.regions or []
    return sorted((r for r in regions if r.label is Label.TABLE), key=lambda r: r.order)


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_group_header_row_spans_its_sub_columns(engine, mode):
    """Table 1: "Spring 2025" and "Autumn 2025" each cover their two sub-columns; "Site" and
    "Plot description" (set on the sub-header row) span both header rows; a description
    wrapped inside its column stays one cell; $ and % stay with their numbers."""
    first = _tables(engine, "group_header_table.pdf", mode)[0]
    assert first.text.startswith("<table>\n<thead>\n")
    rows = html_rows(first.text)
    assert rows[0] == [
        ("th", "Site", 2, 1),
        ("th", "Plot description", 2, 1),
        ("th", "Spring 2025", 1, 2),
        ("th", "Autumn 2025", 1, 2),
    ]
    assert rows[1] == [("th", t, 1, 1) for t in ("Yield", "Moisture", "Yield", "Moisture")]
    body = [[text for tag, text, *_ in row if tag == "td"] for row in rows[2:]]
    assert body == [
        ["A1", "North field, drained at twenty feet", "$412", "31%", "$398", "35%"],
        ["A2", "North field, undrained", "$377", "38%", "$361", "41%"],
        ["B1", "South field, drained at forty feet, on clay loam", "$405", "29%", "$390", "33%"],
        ["B2", "South field, sixty feet", "$389", "34%", "$352", "39%"],
    ]
    # the app's nh3 policy keeps the table and its spans (the viewer shows it as a table)
    clean = sanitize_markdown(first.text)
    assert '<th colspan="2">Spring 2025</th>' in clean and '<th rowspan="2">Site</th>' in clean


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_labels_with_a_second_line_stay_one_row(engine, mode):
    """Table 2: a label's smaller indented second line, the row's figures centred between the
    two lines, is the same cell; a label set in lower case ("eSurvey") is its own row. No
    cell spans: a pipe table."""
    second = _tables(engine, "group_header_table.pdf", mode)[1]
    assert pipe_rows(second.text) == [
        ["Source", "Type", "Records", "Size"],
        ["Farm ledgers from the county archive", "Accounts", "12.4K", "3.1M"],
        ["Weather logs", "Daily readings", "8.9K", "1.2M"],
        ["eSurvey from the 2024 mail-in round", "Questionnaires", "2.7K", "640K"],
        ["Soil cores", "Lab reports", "1.1K", "95K"],
    ]


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_year_ended_spans_the_three_year_columns(engine, mode):
    (table,) = _tables(engine, "financial_statement.pdf", mode)
    rows = html_rows(table.text)
    spanning = [c for row in rows for c in row if c[1] == "Year Ended December 31,"]
    assert spanning == [("th", "Year Ended December 31,", 1, 3)]
    years = [c[1] for c in rows[1] if c[1]]
    assert years == ["2023", "2022", "2021"]
    # the spanning header sits over exactly the year columns: same offset in both rows
    offset = sum(c[3] for c in rows[0][: rows[0].index(spanning[0])])
    year_offset = sum(c[3] for c in rows[1][: [c[1] for c in rows[1]].index("2023")])
    assert offset == year_offset
    if mode == "auto":
        assert ["Revenue", "$1,204", "$1,087", "$962"] in [[c[1] for c in r] for r in rows]


@pytest.mark.parametrize("mode", ["auto", "never"])
def test_census_group_headers_and_wrapped_heads(engine, mode):
    """Table 324: Total, Male and Female each over three columns whose heads are wrapped
    ("Under 18 / years"); "Offense charged" spans both header rows; the wrapped label
    "Murder and nonnegligent / manslaughter" is one row. Table 325 has no spanning cell: a
    pipe table whose wrapped heads are joined."""
    arrests, race = _tables(engine, "census_12s0324.pdf", mode)
    rows = html_rows(arrests.text)
    assert rows[0] == [
        ("th", "Offense charged", 2, 1),
        ("th", "Total", 1, 3),
        ("th", "Male", 1, 3),
        ("th", "Female", 1, 3),
    ]
    heads = ["Total", "Under 18 years", "18 years and over"] * 3
    assert rows[1] == [("th", t, 1, 1) for t in heads]
    labels = [r[0][1] for r in rows[2:]]
    murder = next(t for t in labels if t.startswith("Murder"))
    assert murder.startswith("Murder and nonnegligent manslaughter")
    assert not any(t.startswith("manslaughter") for t in labels)
    assert len(labels) == len(set(labels))
    grid = pipe_rows(race.text)
    assert grid[0] == [
        "Offense charged",
        "Total",
        "White",
        "Black",
        "American Indian/Alaskan Native",
        "Asian Pacific Islander",
    ]
    assert grid[1][1:] == ["10,690,561", "7,389,208", "3,027,153", "150,544", "123,656"]
