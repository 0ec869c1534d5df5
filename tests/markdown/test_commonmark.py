"""The one CommonMark reading (workbench.markdown.commonmark): text after a line of many list
markers is never dropped (markdown-it's nesting limit cut a court transcript's page short at
its rule line ``- - - … x``), while rules, real nested lists and quotes read as before."""

from __future__ import annotations

from workbench.evaluate.metrics import plain_text, word_f1
from workbench.evaluate.structure import headings
from workbench.markdown.commonmark import DEEP_MARKERS, flatten_deep, render
from workbench.markdown.sanitize import render_html

# the first lines of a Supreme Court transcript's cover page, as pdfminer lays them out
TRANSCRIPT = (
    "IN THE SUPREME COURT OF THE UNITED STATES\n\n"
    "- - - - - - - - - - - - - - - - - x\n\n"
    "MICHAEL A. KNOWLES,\n\nWARDEN,\n\nPetitioner\n\n"
    "- - - - - - - - - - - - - - - - - x\n\n"
    "Washington, D.C.\n\nTuesday, January 13, 2009\n"
)


def test_text_after_a_transcripts_rule_line_is_kept() -> None:
    text = plain_text(TRANSCRIPT)
    assert "MICHAEL A. KNOWLES," in text and "Tuesday, January 13, 2009" in text
    assert word_f1(text, TRANSCRIPT.replace("-", " ")).f1 == 1.0


def test_the_html_export_keeps_it_too() -> None:
    html = render_html(TRANSCRIPT + "\n## After\n")
    assert "Tuesday, January 13, 2009" in html and "<h2>After</h2>" in html
    assert headings(TRANSCRIPT + "\n## After\n") == ["After"]


def test_quotes_and_ordered_markers_in_a_row_are_text_too() -> None:
    deep = "> " * 40 + "quoted\n\n" + "1. " * 30 + "numbered\n\nlast line\n"
    assert plain_text(deep).endswith("last line")
    assert "quoted" in plain_text(deep) and "numbered" in plain_text(deep)


def test_rules_and_real_nesting_read_as_commonmark_says() -> None:
    assert render("- - - - - - - -\n").strip() == "<hr />"  # markers alone: a rule
    nested = "- a\n  - b\n    - c\n\n> - quoted item\n"
    assert flatten_deep(nested) == nested
    assert render(nested).count("<ul>") == 4
    shallow = "- " * (DEEP_MARKERS - 1) + "x\n"  # below the bound: CommonMark's nesting
    assert render(shallow).count("<ul>") == DEEP_MARKERS - 1
