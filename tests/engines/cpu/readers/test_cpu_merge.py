"""Which RapidOCR detections the CPU engine recognises (workbench.engines.cpu.readers.merge)."""

from __future__ import annotations

import numpy as np

from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.readers.merge import (
    attach,
    better,
    inside,
    is_data_table,
    missed,
    weak_lines,
)


def _quad(x0, y0, x1, y1):
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def _tess(text, box, conf=95.0):
    return Line(text, box, conf, "tesseract", [Word(text, box, conf)])


def test_cell_fragments_in_columns_make_a_data_table():
    cells = [(x, 20 + 30 * r, x + 50, 40 + 30 * r) for r in range(4) for x in (10, 150, 300)]
    assert is_data_table(cells)


def test_form_fields_that_overlap_across_rows_are_not_a_table():
    # a form: one field per row at varying widths, so the x extents merge into one column
    fields = [(10, 20, 700, 40), (10, 60, 300, 80), (200, 100, 650, 120), (10, 140, 500, 160)]
    assert not is_data_table(fields)
    assert not is_data_table([(10, 20, 60, 40), (150, 20, 200, 40)])  # one row is no table


def test_inside_takes_detections_by_centre():
    quads = [_quad(10, 10, 50, 30), _quad(90, 10, 200, 30), _quad(10, 300, 50, 320)]
    got = inside(quads, (0, 0, 100, 100))
    assert len(got) == 1 and got[0][0, 0] == 10


def test_missed_keeps_only_detections_no_word_covers():
    lines = [_tess("Foo", (100, 100, 200, 130))]
    lines.append(_tess("3", (348, 542, 361, 560)))  # one digit in a padded detection box
    quads = [_quad(98, 98, 202, 132), _quad(900, 100, 930, 130), _quad(342, 535, 389, 570)]
    out = missed(quads, lines)
    assert len(out) == 1 and out[0][0, 0] == 900
    assert len(missed(quads, [])) == 3


def test_attach_appends_a_missed_number_to_its_row():
    lines = [_tess("1 Foo", (100, 100, 200, 130)), _tess("2 Bar", (100, 150, 200, 180))]
    extra = [
        Line("7", (900, 152, 920, 178), 95, "rapidocr"),
        Line("note", (100, 400, 180, 430), 95, "rapidocr"),
        Line("(a)", (40, 102, 90, 128), 95, "rapidocr"),  # left of its row: prepended
    ]
    out = attach(lines, extra)
    assert [ln.text for ln in out] == ["(a) 1 Foo", "2 Bar 7", "note"]
    assert out[1].box[2] == 920 and out[0].box[0] == 40


def test_weak_lines_get_a_second_reading_only_when_it_is_surer():
    weak = _tess("Ko dak", (100, 100, 500, 200), conf=62)
    sure = _tess("Total", (100, 300, 300, 340), conf=96)
    quads = [_quad(110, 110, 490, 190), _quad(100, 300, 300, 340)]
    cands = weak_lines([weak, sure], quads, conf=75)
    assert len(cands) == 1 and cands[0][0] is weak and len(cands[0][1]) == 1
    assert better(weak, [Line("Kodak", weak.box, 99, "rapidocr")], margin=10)
    assert not better(weak, [Line("Kodak", weak.box, 66, "rapidocr")], margin=10)
    assert not better(weak, [Line("K", weak.box, 99, "rapidocr")], margin=10)  # too short
    assert not better(weak, [], margin=10)


def test_dedupe_keeps_each_word_once():
    """A drop cap's paragraph read twice by Tesseract (once beside the initial, once whole):
    the overlapping shorter repeat goes; the initial and text elsewhere stay."""
    from workbench.engines.cpu.readers.merge import dedupe

    whole = Line("ver the past three decades increasing", (100, 100, 900, 130), 90, "tesseract")
    repeat = Line("ver the past three decades", (140, 98, 700, 131), 85, "rapidocr")
    initial = Line("C", (20, 90, 90, 200), 50, "tesseract")
    elsewhere = Line("the past three decades", (100, 300, 600, 330), 90, "tesseract")
    kept = dedupe([whole, repeat, initial, elsewhere])
    assert [ln.text for ln in kept] == [whole.text, "C", elsewhere.text]
    different = Line("a wholly other reading", (140, 98, 700, 131), 85, "rapidocr")
    assert len(dedupe([whole, different])) == 2


def test_columns_of_prose_lines_are_no_data_table():
    # three justified columns of 12 lines: they grid into three columns as neatly as a table,
    # but every fragment is a whole line of prose (~45 characters, 440 x 30 px)
    prose = [
        (50 + 480 * c, 100 + 40 * r, 490 + 480 * c, 130 + 40 * r)
        for c in range(3)
        for r in range(12)
    ]
    assert not is_data_table(prose)
    # the same grid of short cells (figures, labels) is one
    cells = [
        (50 + 480 * c, 100 + 40 * r, 150 + 480 * c, 130 + 40 * r)
        for c in range(3)
        for r in range(12)
    ]
    assert is_data_table(cells)
