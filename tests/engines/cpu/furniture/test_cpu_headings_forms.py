"""Lines that are no headings (issue 23): a bold line right over a table is its caption, and
the rows of a form (a key, a wide gap, its value) are never headings or titles.

tests/data/tables_borderless_stacked.pdf: two borderless tables, each under a bold title line at
body size (devset page ``table-borderless-stacked``). tests/data/scan_form_pkginfo.pdf: a page
image of a key/value form (devset ``scan-form-pkginfo-black``), where RapidOCR's second reading,
whose boxes are taller than Tesseract's, made keys and values look like larger type."""

from __future__ import annotations

import re

import pytest

from tests.engines.cpu.furniture.reading import read_markdown
from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.furniture import cues, headings
from workbench.engines.cpu.page import Block


def _headings(md: str) -> list[str]:
    return [ln for ln in md.splitlines() if re.match(r"#{1,6} ", ln)]


@pytest.mark.slow
def test_a_bold_line_over_a_table_is_its_caption(engine) -> None:  # type: ignore[no-untyped-def]
    md = read_markdown(engine, "tables_borderless_stacked.pdf")
    assert _headings(md) == []
    assert re.search(r"^Heaviest cars$", md, re.M) and re.search(r"^Quickest cars$", md, re.M)
    assert md.count("| Car |") == 2  # both tables still read


@pytest.mark.slow
def test_a_scanned_forms_rows_are_no_headings(engine) -> None:  # type: ignore[no-untyped-def]
    md = read_markdown(engine, "scan_form_pkginfo.pdf")
    assert all("Package Metadata Record" in h for h in _headings(md)), _headings(md)
    assert "Metadata-Version" in md and "URL:" in md


def _ocr(words: list[tuple[str, float, float]], y: float, h: float = 28.0) -> Line:
    ws = [Word(t, (x0, y, x1, y + h), 90.0) for t, x0, x1 in words]
    return Line(
        " ".join(t for t, _, _ in words),
        (ws[0].box[0], y, ws[-1].box[2], y + h),
        90.0,
        "tesseract",
        ws,
    )


def test_form_rows_are_keys_and_values_not_prose_columns() -> None:
    form = [
        _ocr([("Name", 194, 282), ("black", 706, 774)], 460),
        _ocr([("Version", 194, 306), ("26.10.1", 707, 795)], 520),
        _ocr([("Author-email", 192, 399)], 630, 40),
        _ocr([("Lukasz", 698, 790), ("Langa", 805, 881)], 630, 43),
        _ocr([("Requires-Python", 194, 450), (">=3.10", 708, 805)], 700),
    ]
    assert cues.form_rows(form) == {id(ln) for ln in form}
    assert cues.form_rows(form[:2]) == set()  # two rows may share a gap by chance
    # two prose columns: the gutter is narrower than the lines beside it
    prose = [
        _ocr([("Every", 100, 180), ("sample", 190, 800), ("was", 860, 920), ("kept", 930, 1500)], y)
        for y in (400, 440, 480, 520)
    ]
    assert cues.form_rows(prose) == set()
    taller = Line(
        "Metadata-Version 2.5",
        (186, 392, 752, 434),
        90.0,
        "rapidocr",
        [
            Word("Metadata-Version", (186, 392, 468, 432), 90.0),
            Word("2.5", (698, 394, 752, 434), 90.0),
        ],
    )
    page = headings.Page([taller, *form], 28.0)
    assert page.kind(taller) == ""  # 1.5 × the body height, but a form's row


def test_caption_only_right_over_a_table() -> None:
    title = Line("Heaviest cars", (173, 174, 360, 201), 100.0, "text_layer", size=30.0, bold=True)
    table = Block("aligned_table", (173, 228, 1101, 602), [], 1.0)
    far = Block("aligned_table", (173, 400, 1101, 602), [], 1.0)
    assert cues.over_table([title], [table])
    assert not cues.over_table([title], [far])
    numbered = Line("2.3 Results", title.box, 100.0, "text_layer", size=30.0, bold=True)
    assert not cues.over_table([numbered], [table])  # a numbered section stays a heading
