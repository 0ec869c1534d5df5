"""Confidence that sees structure (workbench/engines/cpu/confidence.py, issue 35): a page that
is mostly a table reads lower than a page of prose whose characters are as sure, and a
handwritten page the engine transcribed none of says so, under the app's flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.documents import open_document
from workbench.engines.cpu import confidence
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.process import process_document
from workbench.schema import LOW_CONFIDENCE, Label, PageResult, PageStatus, Region

DATA = Path(__file__).resolve().parents[2] / "data"


def _region(label: Label, text: str, conf: float | None) -> Region:
    return Region(id="r", label=label, native_label=str(label), text=text, confidence=conf)


def _page(regions: list[Region]) -> PageResult:
    return PageResult(
        document="d", page=1, width=10, height=10, engine="cpu", model="m", regions=regions
    )


def test_a_table_keeps_the_table_trust_of_its_characters_confidence():
    prose = _region(Label.TEXT, "A paragraph of prose that reads the same in any order.", 1.0)
    table = _region(Label.TABLE, "| a | b |\n|---|---|\n| 1 | 2 |", 1.0)
    out = confidence.calibrate([prose, table, _region(Label.FIGURE, "", None)])
    assert out[0].confidence == 1.0 and out[2].confidence is None
    assert out[1].confidence == confidence.TABLE_TRUST < 0.7
    assert out[1].text == table.text  # the text never moves


def test_unread_handwriting_needs_ink_and_no_printed_text():
    figure = _region(Label.FIGURE, "", None)
    signature = _region(Label.SIGNATURE, "", None)
    assert confidence.unread_handwriting([figure, signature])
    assert not confidence.unread_handwriting([figure, _region(Label.TEXT, "Dear Sir,", 0.4)])
    assert not confidence.unread_handwriting([])  # a blank page is not a handwritten one
    marked = confidence.mark_unread([figure, signature])
    assert [r.confidence for r in marked] == [0.0, 0.0]
    assert _page(marked).low_confidence and confidence.notes(marked) == [
        confidence.HANDWRITING_NOTE
    ]
    assert confidence.notes([figure, signature]) == []  # not marked: nothing to say
    # a figure with a line or two of detected text (a lone signature, a logo) is not writing
    assert confidence.unread([figure], False, confidence.UNREAD_LINES - 1) == [figure]
    assert confidence.unread([figure], False, confidence.UNREAD_LINES)[0].confidence == 0.0


def _page_confidence(engine, name: str) -> float | None:
    """The page confidence the app shows for page 1 of ``name`` (200 DPI, its text layer)."""
    doc = open_document(name, (DATA / name).read_bytes())
    try:
        page = doc.page(1, dpi=200)
        regions, _ = engine.analyze(page.image, page.text_layer)
    finally:
        doc.close()
    return _page(regions).confidence


def test_a_page_that_is_a_table_reads_lower_than_a_page_of_prose(engine):
    # both born-digital: every character sure (1.0 before issue 35). The census page is one
    # wide table whose grid the engine rebuilds (its TEDS is the doubt), the article prose
    table = _page_confidence(engine, "census_12s0324.pdf")
    prose = _page_confidence(engine, "two_column_article.pdf")
    assert table is not None and prose is not None
    assert table < 0.7 < 0.85 < prose


@pytest.mark.slow
def test_a_handwritten_page_with_no_text_says_so_under_the_flag(engine):
    # a real handwritten letter (tests/data/SOURCES.md): the engine keeps its ink as a figure
    # and transcribes none of it; it used to come back "ok" with no confidence at all
    name = "letter_fitzhugh_lee_p1.pdf"
    doc = open_document(name, (DATA / "signatures" / name).read_bytes())
    [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
    result = item.result
    assert result.status is PageStatus.OK and not any(r.text.strip() for r in result.regions)
    assert confidence.HANDWRITING_NOTE in result.notes
    assert result.confidence is not None and result.confidence < LOW_CONFIDENCE
    assert result.low_confidence


def test_a_printed_page_gets_no_handwriting_note(engine):
    name = "two_column_article.pdf"
    doc = open_document(name, (DATA / name).read_bytes())
    [item] = list(process_document(engine, CPU_SPEC, doc, [1], workers=0))
    assert confidence.HANDWRITING_NOTE not in item.result.notes


@pytest.mark.slow
def test_a_chinese_scan_read_right_is_not_under_the_flag(engine):
    # tests/data/cjk_scan_report.pdf: ten lines of a scanned Chinese report (an image, no text
    # layer). Tesseract's English model reads nothing of it and RapidOCR reads the Chinese;
    # that English failure is no evidence against RapidOCR's reading, and the English word
    # list cannot vouch for a Chinese word either way. The whole page scored 98 while the
    # engine said 0.19 (benchmarks/corpus/README.md, "Word F1 counts Han and kana")
    doc = open_document("c.pdf", (DATA / "cjk_scan_report.pdf").read_bytes())
    try:
        image = doc.page(1, dpi=200).image
    finally:
        doc.close()
    regions, trace = engine.analyze(image, None)
    assert trace["reader"] == "rapidocr (page)"
    assert "神鹰集团" in "".join(r.text for r in regions)
    conf = _page(regions).confidence
    assert conf is not None and conf >= LOW_CONFIDENCE


def test_han_and_kana_words_are_not_counted_for_or_against_a_reading():
    from workbench.engines.cpu.boxes import Word
    from workbench.engines.cpu.support import word_support

    def word(text: str) -> Word:
        return Word(text=text, box=(0, 0, 1, 1), conf=90.0, known=False)

    assert word_support(word("財務諸表"), "rapidocr") is None
    assert word_support(word("ひらがな"), "rapidocr") is None
    # a figure with its unit in Han is a figure: on a Chinese page it was the one word counted,
    # and, unsupported, it put the whole block at the floor (pr-136 p5: 0.35 at a score of 98)
    assert word_support(word("14,220.995万元。"), "rapidocr") == 1.0
    assert word_support(word("Donzin"), "rapidocr") == 0.5  # a Latin word still counts
    assert word_support(word("tie"), "rapidocr") == 0.0
