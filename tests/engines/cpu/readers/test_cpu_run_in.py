"""A bold run-in head opens its paragraph's line; it does not make the line a bold heading
line (issue 35: IRS instructions' "Annual information statement. If the" was cut out of its
paragraph as a heading, and the paragraph's first words went with it)."""

from __future__ import annotations

import pytest

from workbench.engines.cpu.readers.faces import run_in
from workbench.engines.cpu.readers.pdftext import lines_from_layer
from workbench.schema import TextLayer, TextWord


def _words(spec: str, y: float = 100.0) -> list[TextWord]:
    """Words of ``spec``; a word written ``*word*`` is bold."""
    out, x = [], 72.0
    for t in spec.split():
        bold = t.startswith("*") and t.endswith("*")
        t = t.strip("*")
        out.append(TextWord(t, (x, y, x + 5.0 * len(t), y + 10.0), 10.0, bold=bold))
        x += 5.0 * len(t) + 3.0
    return out


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("*Annual* *information* *statement.* If the", True),
        ("*Penalty.* If you fail to file", True),
        ("*Note:* the following applies", True),
        ("*Annual* *information* *statement*", False),  # a bold line: a heading line
        ("*1.* *Introduction* *and* *scope*", False),
        ("*Expatriation* *Before* June", False),  # the bold does not end a sentence
        ("*Total.* 12 *14*", False),  # bold again after the regular words
        ("plain *bold.* words", False),  # a bold word inside a line, not opening it
    ],
)
def test_run_in(spec, expected):
    assert run_in(_words(spec)) is expected


def test_a_line_opening_on_a_run_in_head_is_not_bold():
    layer = TextLayer(612, 792, tuple(_words("*Annual* *information* *statement.* If the")))
    (line,) = lines_from_layer(layer, 612, 792)
    assert line.text == "Annual information statement. If the" and not line.bold
    layer = TextLayer(612, 792, tuple(_words("*Annual* *information* *statement*")))
    (line,) = lines_from_layer(layer, 612, 792)
    assert line.bold
