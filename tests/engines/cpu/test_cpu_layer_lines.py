"""Text-layer words into engine lines (workbench.engines.cpu.readers.pdftext): a raised
footnote mark reads as written, a bullet before its item's text stays on its line."""

from __future__ import annotations

from workbench.engines.cpu.readers.pdftext import lines_from_layer
from workbench.schema import TextLayer, TextWord


def _layer(*words: TextWord) -> TextLayer:
    return TextLayer(width=600.0, height=800.0, words=words, chars=sum(len(w.text) for w in words))


def test_footnote_marks_are_glued_as_written() -> None:
    layer = _layer(
        TextWord("Project", (100, 100, 140, 110), 10.0, False, 0),
        TextWord("Team", (142, 100, 170, 110), 10.0, False, 0),
        TextWord("∗", (170.5, 97, 174, 103), 7.0, False, 0),
        TextWord("on", (178, 100, 190, 110), 10.0, False, 0),
        TextWord("the", (192, 100, 210, 110), 10.0, False, 0),
        TextWord("first", (212, 100, 234, 110), 10.0, False, 0),
        TextWord("†", (234.5, 97, 238, 103), 7.0, False, 0),
        TextWord("page", (242, 100, 264, 110), 10.0, False, 0),
    )
    (line,) = lines_from_layer(layer, 600, 800)
    assert line.text == "Project Team∗ on the first† page"
    assert line.tex is None  # no script left for the formula passes


def test_a_bullet_before_a_tab_stop_stays_on_its_items_line() -> None:
    layer = _layer(
        TextWord("•", (72, 102, 77, 108), 10.0, False, 0),
        TextWord("First", (100, 100, 125, 110), 10.0, False, 0),
        TextWord("item", (127, 100, 147, 110), 10.0, False, 0),
        TextWord("A", (72, 130, 80, 140), 10.0, False, 1),
        TextWord("cell", (120, 130, 140, 140), 10.0, False, 1),  # a wide gap: two lines
    )
    lines = lines_from_layer(layer, 600, 800)
    assert [ln.text for ln in lines] == ["• First item", "A", "cell"]


def test_a_footnote_mark_inside_a_word_reads_as_written() -> None:
    layer = _layer(
        TextWord("The", (100, 100, 120, 110), 10.0, False, 0),
        TextWord("Team∗", (122, 97, 160, 110), 10.0, False, 0, tex="Team^{∗}"),
    )
    (line,) = lines_from_layer(layer, 600, 800)
    assert line.text == "The Team∗"
