"""Structure metrics (workbench.evaluate.structure) on small hand-made inputs."""

from __future__ import annotations

import pytest

from workbench.evaluate.structure import (
    control_chars,
    heading_key,
    heading_match,
    headings,
    math_token_recall,
    page_teds,
    reading_order,
    tables,
    teds,
)

PIPE = "| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n"
HTML = (
    "<table><tr><th>a</th><th>b</th><th>c</th></tr>"
    "<tr><td>1</td><td>2</td><td>3</td></tr><tr><td>4</td><td>5</td><td>6</td></tr></table>"
)
# the failure issue 23 names first: a spurious empty first column shifts every cell right
SHIFTED = "| | a | b | c |\n|---|---|---|---|\n| 1 | 2 | 3 | |\n| 4 | 5 | 6 | |\n"


def test_teds_of_identical_tables_is_one() -> None:
    [a] = tables(PIPE)
    assert teds(a, a) == 1.0
    assert page_teds(PIPE, PIPE) == 1.0


def test_pipe_and_html_tables_of_one_grid_are_equal() -> None:
    assert page_teds(HTML, PIPE) == 1.0


def test_shifted_column_scores_below_one() -> None:
    score = page_teds(SHIFTED, PIPE)
    assert score is not None and 0.5 < score < 1.0


def test_merged_header_cell_costs_its_span() -> None:
    two_level = '<table><tr><th colspan="2">Group</th></tr><tr><td>x</td><td>y</td></tr></table>'
    flat = "<table><tr><th>Group</th><th></th></tr><tr><td>x</td><td>y</td></tr></table>"
    score = page_teds(flat, two_level)
    assert score is not None and score < 1.0


def test_one_wrong_cell_costs_less_than_a_missing_row() -> None:
    wrong_cell = PIPE.replace("| 5 |", "| 8 |")
    missing_row = PIPE.replace("| 4 | 5 | 6 |\n", "")
    a, b = page_teds(wrong_cell, PIPE), page_teds(missing_row, PIPE)
    assert a is not None and b is not None and 1.0 > a > b


def test_page_teds_pairs_tables_and_scores_a_missing_one_zero() -> None:
    other = "| x | y |\n|---|---|\n| 7 | 8 |\n"
    truth = PIPE + "\ntext\n\n" + other
    assert page_teds(other + "\n\n" + PIPE, truth) == 1.0  # order does not matter
    assert page_teds(PIPE, truth) == 0.5
    assert page_teds("no table at all", PIPE) == 0.0
    assert page_teds(PIPE, "no table in the truth") is None


def test_heading_precision_and_recall() -> None:
    truth = "# Introduction\n\ntext\n\n## 2. Methods\n\n## Results\n"
    hyp = "# 1 Introduction\n\n## Methods\n\n## A bold line promoted\n\ntext\n"
    m = heading_match(hyp, truth)
    assert (m.matched, m.hypothesis, m.truth) == (2, 3, 3)
    assert m.precision == pytest.approx(2 / 3) and m.recall == pytest.approx(2 / 3)
    assert heading_match("plain text", "plain text").f1 is None
    assert heading_match("# Spurious", "plain text").precision == 0.0


def test_headings_are_matched_despite_one_ocr_slip_and_numbering() -> None:
    assert heading_key("4.2 Character recognition") == heading_key("Character recognition")
    assert heading_key("IV. Results") == heading_key("Results")
    # an outline's spelling of a section and the page's ("III Image Data", "III. IMAGE DATA")
    assert heading_key("III Image Data") == heading_key("III. IMAGE DATA")
    assert heading_key("III-A Google DeepDream") == heading_key("A. Google DeepDream")
    assert heading_key("Appendix A: Texts") == heading_key("Texts")
    assert heading_match("## Charactor recognition", "## Character recognition").matched == 1
    assert heading_match("## Summary", "## Character recognition").matched == 0


def test_html_headings_count() -> None:
    assert headings("<h2>Scope</h2>\n\ntext\n") == ["Scope"]


def test_reading_order() -> None:
    truth = "alpha beta gamma delta epsilon zeta"
    assert reading_order(truth, truth) == 1.0
    assert reading_order("zeta epsilon delta gamma beta alpha", truth) == 0.0
    swapped = reading_order("alpha beta gamma zeta delta epsilon", truth)
    assert swapped is not None and 0.5 < swapped < 1.0
    assert reading_order("nothing shared", truth) is None


def test_reading_order_of_two_columns_interleaved_falls() -> None:
    left = "one two three four five six"
    right = "seven eight nine ten eleven twelve"
    truth = f"{left} {right}"
    interleaved = " ".join(f"{a} {b}" for a, b in zip(left.split(), right.split(), strict=True))
    score = reading_order(interleaved, truth)
    assert score is not None and score < 0.9


def test_math_token_recall() -> None:
    truth = r"The mean $\bar{x} = \frac{1}{n}\sum x_i$ and $$\alpha + 2$$"
    assert math_token_recall("x = 1/n Σ x i and α + 2", truth) == 1.0
    assert math_token_recall("the mean", truth) == 0.0
    assert math_token_recall("anything", "no formula") is None


def test_control_chars() -> None:
    assert control_chars("a\x00b\x07c\td\ne\r\n") == 2
    assert control_chars("clean text") == 0


def test_teds_is_never_below_zero() -> None:
    """Measured at -0.09 before it was bounded (a scanned page of the corpus read -0.1)."""

    def html(rows: list[list[str]]) -> str:
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
        return f"<table>{body}</table>"

    tall = html([["", "abc"], ["abc"], ["x"], ["longer text here"]])
    wide = html([["q w e r t y", "q w e r t y", "y", ""], ["", "zz", "y", ""]])
    assert page_teds(tall, wide) == 0.0
