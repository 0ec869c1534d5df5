"""Key/value rows read key then value (issue 23, item 3): the real form
``tests/data/keyvalue_form.pdf`` (the layout model boxes the values as one text block and
leaves the keys unboxed: every key was written, then every value) and the rule on synthetic
lines (two columns of prose are no key/value layout)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workbench.documents import open_document
from workbench.engines.cpu.boxes import Line
from workbench.engines.cpu.layout.keyvalue import key_values
from workbench.engines.cpu.page import Block, Page
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.process import process_document

DATA = Path(__file__).resolve().parents[3] / "data"
PAIRS = [
    ("Metadata-Version", "2.4"),
    ("Name", "sympy"),
    ("Version", "1.14.0"),
    ("Summary", "Computer algebra system (CAS) in Python"),
    ("Home-page", "https://sympy.org"),
    ("Author", "SymPy development team"),
    ("Author-email", "sympy@googlegroups.com"),
    ("License", "BSD"),
    ("Keywords", "Math CAS"),
    ("Requires-Python", ">=3.9"),
    ("URL: Source", "https://github.com/sympy/sympy"),
]


def _markdown(engine, name: str) -> str:  # type: ignore[no-untyped-def]
    doc = open_document(name, (DATA / name).read_bytes())
    [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
    assert item.result.error is None, item.result.error
    return item.result.markdown


@pytest.mark.slow
def test_form_reads_each_key_then_its_value(engine):
    md = _markdown(engine, "keyvalue_form.pdf")
    paragraphs = [p.strip() for p in md.split("\n\n")]
    for key, value in PAIRS:
        assert f"{key} {value}" in paragraphs, (key, md)
    assert "$$" not in md  # the value ">=3.9" is no displayed formula
    # every word once, in the form's order
    words = re.findall(r"\S+", " ".join(f"{k} {v}" for k, v in PAIRS))
    found = re.findall(r"\S+", md)
    start = found.index(words[0])
    assert found[start : start + len(words)] == words


def _line(text: str, x0: float, y0: float, width: float, h: float = 20.0) -> Line:
    return Line(text, (x0, y0, x0 + width, y0 + h), 99.0, "text_layer")


def _page(blocks: list[Block]) -> Page:
    return Page(width=1000, height=1400, lines=[ln for b in blocks for ln in b.lines],
                line_h=20.0, layout=[], blocks=blocks)  # fmt: skip


def test_keys_beside_one_value_block_become_rows():
    keys = [_line(k, 100, 100 + 40 * i, 80) for i, k in enumerate(("Date", "Time", "Till"))]
    values = [_line(v, 600, 100 + 40 * i, 100) for i, v in enumerate(("05/22", "09:15", "02"))]
    blocks = [Block("ocr_lines", ln.box, [ln], 0.0) for ln in keys]
    blocks.append(Block("text", (600, 100, 700, 200), values, 0.9))
    out = key_values(_page(blocks)).blocks
    assert [b.native for b in out] == ["key_value"] * 3
    assert [[ln.text for ln in b.lines] for b in out] == [
        ["Date", "05/22"], ["Time", "09:15"], ["Till", "02"]
    ]  # fmt: skip


def test_two_columns_of_prose_are_left_alone():
    """A paragraph's short last lines beside the next column's lines: the right column keeps
    most of its lines elsewhere, and lines of prose are wider than the gutter."""
    left = [_line("word " * 10, 100, 100 + 25 * i, 380) for i in range(8)]
    left += [_line("end.", 100, 300 + 25 * i, 40) for i in range(3)]
    right = [_line("text " * 10, 520, 100 + 25 * i, 380) for i in range(12)]
    blocks = [Block("text", (100, 100, 480, 400), left, 0.9),
              Block("text", (520, 100, 900, 400), right, 0.9)]  # fmt: skip
    out = key_values(_page(blocks)).blocks
    assert [b.native for b in out] == ["text", "text"]
    assert len(out[0].lines) == 11 and len(out[1].lines) == 12


def test_two_columns_of_prose_with_a_wide_gutter_are_left_alone():
    """Every row level across a gutter wider than two line heights, all lines taken: the
    lines of prose are wider than the gutter, so no row is a key and its value."""
    left = [_line("the quick brown fox jumps over", 50, 100 + 50 * i, 540) for i in range(12)]
    right = [_line("the quick brown fox jumps over", 900, 100 + 50 * i, 540) for i in range(12)]
    blocks = [Block("text", (50, 100, 590, 700), left, 0.9),
              Block("text", (900, 100, 1440, 700), right, 0.9)]  # fmt: skip
    out = key_values(_page(blocks)).blocks
    assert [len(b.lines) for b in out] == [12, 12]


def test_two_centred_author_blocks_are_left_alone():
    """A paper's two author blocks side by side ("name / institute / e-mail", each line
    centred): the lines of one block share no left edge, so no row is a key and its value."""
    rows = [("Ada Lovelace", "Charles Babbage"), ("Analytical Society", "Trinity College"),
            ("ada@example.org", "cb@example.org")]  # fmt: skip
    left, right = [], []
    for i, (a, b) in enumerate(rows):
        wa, wb = 12.0 * len(a), 12.0 * len(b)
        left.append(_line(a, 300 - wa / 2, 100 + 25 * i, wa))
        right.append(_line(b, 750 - wb / 2, 100 + 25 * i, wb))
    blocks = [Block("text", (150, 100, 450, 175), left, 0.9),
              Block("text", (600, 100, 900, 175), right, 0.9)]  # fmt: skip
    out = key_values(_page(blocks)).blocks
    assert [len(b.lines) for b in out] == [3, 3]
