"""Compare's word diff is on the text a reader reads (issue 24.4): two pages with the same
words, one table written as HTML with spans and the other as a pipe table, differ in nothing;
a changed word is still found."""

from __future__ import annotations

from workbench.evaluate.compare import diff_counts, located, reading_diff, word_diff
from workbench.schema import BBox, Label, Region

HTML_TABLE = (
    '## Results\n\n<table><thead><tr><th rowspan="2">Item</th><th colspan="2">Value</th></tr>'
    "</thead><tbody><tr><td>alpha</td><td>42</td></tr><tr><td>beta</td><td>7</td></tr>"
    "</tbody></table>\n\nTotal is **49**."
)
PIPE_TABLE = (
    "## Results\n\n| Item | Value |\n|---|---|\n| alpha | 42 |\n| beta | 7 |\n\nTotal is 49."
)


def test_same_words_in_other_markup_differ_in_nothing() -> None:
    counts = diff_counts(reading_diff(HTML_TABLE, PIPE_TABLE))
    assert (counts["insert"], counts["delete"]) == (0, 0), counts
    assert counts["equal"] == 10
    # The markup diff it replaces saw a wall of tags and pipes.
    raw = diff_counts(word_diff(HTML_TABLE, PIPE_TABLE))
    assert raw["delete"] >= 4 and raw["insert"] >= 4


def test_a_changed_word_is_still_found() -> None:
    ops = reading_diff(HTML_TABLE, PIPE_TABLE.replace("beta", "gamma"))
    changed = [(op.left, op.right) for op in ops if op.kind != "equal"]
    assert changed == [(["beta"], ["gamma"])]


def test_located_tells_a_model_without_boxes() -> None:
    box = BBox(x0=0, y0=0, x1=10, y1=10)
    assert located([Region(id="r1", label=Label.TEXT, native_label="text", bbox=box, order=0)])
    assert not located([Region(id="r1", label=Label.TEXT, native_label="text", order=0)])
    assert not located([])
