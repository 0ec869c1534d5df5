"""The corpus builder's truth checks (benchmarks/corpus/build.py): a page whose images hold
text its layer lacks has no text truth; a page whose images hold no words keeps it; nor has a
page whose text runs up the page (pdfminer writes it a character a line), while a table of
one-digit cells and a page of turned column heads keep theirs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
# loaded by path under its own name: "build" is also PyPA's package
_spec = importlib.util.spec_from_file_location(
    "corpus_build", ROOT / "benchmarks" / "corpus" / "build.py"
)
assert _spec is not None and _spec.loader is not None
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


def test_a_scanned_page_with_no_layer_holds_text_in_its_image() -> None:
    # a real scan of two columns of English prose: one image, no text layer
    assert build.text_in_images((DATA / "scan_two_columns.pdf").read_bytes()) >= build.IMAGE_WORDS


def test_a_born_digital_page_has_no_text_only_in_images() -> None:
    # every word of the census tables is in the layer; it has no image of text
    assert build.text_in_images((DATA / "census_12s0324.pdf").read_bytes()) == 0


def test_text_set_up_the_page_is_no_text_truth() -> None:
    # pdfplumber's issue-848 page 5: every line turned 90 degrees; pdfminer (the truth's
    # reader) writes one character a line, which no reading of the words could match
    [text] = build.page_texts((DATA / "turned_text_page.pdf").read_bytes())
    assert build.vertical_text(text)
    assert "Reed" in text.replace("\n", "") or "deeR" in text.replace("\n", "")


def test_tables_of_short_cells_and_turned_heads_keep_their_text_truth() -> None:
    # camelot's vertical_header page: candidates' names turned up the column heads over a
    # ruled table of counts (half its pdfminer lines one character); census tables
    for name in ("ruled_turned_heads.pdf", "census_12s0324.pdf"):
        [text, *_] = build.page_texts((DATA / name).read_bytes())
        assert not build.vertical_text(text), name
    assert not build.vertical_text("\n".join(["1", "2", "3"] * 5 + ["Total of the year"] * 5))
