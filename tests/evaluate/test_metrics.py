from __future__ import annotations

import random
from typing import Any

import pytest

from workbench.documents.textlayer import pdf_text_layer
from workbench.errors import DocumentError, PageRangeError
from workbench.evaluate.metrics import (
    MAX_CER_CHARS,
    cer,
    char_errors,
    document_metrics,
    edit_distance,
    metrics_table,
    normalize_text,
    plain_text,
    similarity,
    word_f1,
    word_tokens,
)
from workbench.schema import BBox, Label, PageResult, PageStatus, Region


def naive_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_edit_distance_hand_checked_and_against_naive() -> None:
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("flaw", "lawn") == 2
    assert edit_distance("", "abc") == 3 and edit_distance("abc", "") == 3
    rng = random.Random(7)
    for _ in range(300):
        a = "".join(rng.choice("abé ") for _ in range(rng.randint(0, 12)))
        b = "".join(rng.choice("abé ") for _ in range(rng.randint(0, 12)))
        assert edit_distance(a, b) == naive_distance(a, b), (a, b)


def test_cer_normalises_whitespace_and_nfkc() -> None:
    # "ﬁ" (U+FB01 ligature) is "fi" after NFKC; spaces and newlines do not count
    assert cer("the ﬁsh", "the\nfish") == 0.0
    # reference "abcd" (4 chars), hypothesis "abxd e": 1 substitution + 1 insertion
    errors = char_errors("abxd e", "a b c d")
    assert (errors.edits, errors.reference_chars) == (2, 4)
    assert errors.cer == 0.5
    assert cer("", "") == 0.0 and cer("x", "") == 1.0
    long = char_errors("a" * (MAX_CER_CHARS + 5), "a" * 10)
    assert long.truncated and long.edits == MAX_CER_CHARS - 10


def test_word_f1_bag_of_words() -> None:
    # hyp words: the cat sat the ; ref words: the cat sat on the mat
    score = word_f1("The cat, sat the.", "the cat sat on the mat")
    assert (score.common, score.hypothesis_words, score.reference_words) == (4, 4, 6)
    assert score.precision == 1.0
    assert score.recall == pytest.approx(4 / 6)
    assert score.f1 == pytest.approx(0.8)
    assert word_f1("", "").f1 == 1.0
    assert word_f1("x", "y").f1 == 0.0


def test_word_f1_counts_han_and_kana_a_character_at_a_time() -> None:
    # The same characters with and without the spaces a text layer puts around numbers.
    assert word_f1("截至2015年末，神鹰集团", "截至 2015 年末， 神鹰集团").f1 == 1.0
    assert word_tokens("ひらがなカタカナ漢字") == list("ひらがなカタカナ漢字")
    # One wrong character costs one token, not the whole run.
    score = word_f1("诸蟹市政府", "诸暨市政府")
    assert (score.common, score.reference_words) == (4, 5)
    # Spaced scripts keep their words: Hangul, Latin, digits with letters.
    assert word_tokens("한국어 단어 abc_def 2015年") == ["한국어", "단어", "abc_def", "2015", "年"]


def test_one_normalisation_for_every_metric() -> None:
    assert normalize_text(" The\u00a0ﬁsh \n\t swims ") == "The fish swims"
    # case: CER counts it, word F1 does not (casefold, so German ß matches "SS")
    assert cer("Straße", "STRASSE") > 0 and word_f1("Straße", "STRASSE").f1 == 1.0
    # the reference is normalised, never read as Markdown: "1." and "*" are text there
    assert cer("1. a *b*", "1. a *b*") == 0.0
    # empty sides: both empty agree (1.0, like similarity); one empty side scores 0.0
    assert word_f1("", "").f1 == 1.0 and word_f1("", "x").f1 == 0.0 and word_f1("x", "").f1 == 0.0


def test_similarity_is_one_minus_normalised_distance() -> None:
    assert similarity("abcd", "abcd") == 1.0
    assert similarity("abcd", "abxd") == pytest.approx(0.75)
    assert similarity("", "") == 1.0


def test_plain_text_strips_markdown_and_html_tables() -> None:
    md = (
        "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "<table><tr><td>x</td></tr></table>\n\n**bold** &amp;"
    )
    text = plain_text(md)
    assert "#" not in text and "|" not in text and "<td>" not in text and "**" not in text
    assert text.split() == ["Title", "a", "b", "1", "2", "x", "bold", "&"]


def test_plain_text_drops_the_workbench_placeholders() -> None:
    """Figure links, ``*[signature]*`` and the ``$$`` fence lines the assembler writes are not
    text a reader sees; the formula itself, a bullet's text and an inline ``$x$`` are."""
    md = (
        "![Figure r3](page-0001-r3.png)\n\nCaption\n\n*[signature]* J. Smith\n\n"
        "$$\nE = mc^2\n$$\n\n- item with $x$\n\n\\[\ny\n\\]"
    )
    assert plain_text(md).split() == [
        "Caption", "J.", "Smith", "E", "=", "mc^2", "item", "with", "$x$", "y",
    ]  # fmt: skip


def page(n: int, md: str, seconds: float, doc: str = "d.pdf", **kw: Any) -> PageResult:
    regions = [
        Region(id="1", label=Label.TEXT, native_label="t", bbox=BBox(x0=0, y0=0, x1=5, y1=5)),
        Region(id="2", label=Label.TEXT, native_label="t"),
        Region(id="3", label=Label.TABLE, native_label="tab", bbox=BBox(x0=0, y0=6, x1=5, y1=9)),
    ]
    return PageResult(
        document=doc,
        page=n,
        width=10,
        height=10,
        engine="e",
        model="m",
        markdown=md,
        seconds=seconds,
        tokens=100,
        regions=regions,
        **kw,
    )


def test_page_table_and_document_aggregates() -> None:
    left = [
        page(1, "abcd", 2.0),
        page(2, "hello world", 4.0),
        page(3, "", 0.5, status=PageStatus.ERROR),
    ]
    right = [
        page(1, "abxd", 1.0, doc="other-name.pdf"),
        page(2, "hello world", 1.0, doc="other-name.pdf"),
    ]
    refs = {("d.pdf", 1): "abcd", ("d.pdf", 2): "hello word"}
    rows = metrics_table(left, others=right, references=refs)
    assert [r.similarity for r in rows] == [pytest.approx(0.75), 1.0, None]
    assert rows[0].cer == 0.0 and rows[1].cer_edits == 1 and rows[1].reference_chars == 9
    assert rows[2].cer is None
    assert rows[0].regions_by_label == {"table": 1, "text": 2} and rows[0].unlocated == 1
    assert rows[0].tokens_per_second == 50.0

    (doc,) = document_metrics(rows)
    assert (doc.pages, doc.failed_pages, doc.tokens) == (3, 1, 300)
    assert doc.seconds_per_page == pytest.approx(3.0)  # failed page left out
    assert doc.cer == pytest.approx(1 / 13)  # (0 + 1) edits over (4 + 9) reference chars
    assert doc.regions_by_label == {"table": 3, "text": 6}
    assert doc.similarity == pytest.approx((0.75 + 1.0) / 2)
    # words: page1 abcd/abcd 1 common; page2 hello world / hello word: 1 common of 2 and 2
    assert doc.word_f1 == pytest.approx(2 * (2 / 3) * (2 / 3) / (4 / 3))


def minimal_pdf(lines: list[str]) -> bytes:
    """A one-page PDF whose text layer holds ``lines`` (Helvetica, hand-built xref)."""
    ops = ["BT /F1 18 Tf 72 720 Td 22 TL"] + [f"({s}) Tj T*" for s in lines] + ["ET"]
    stream = "\n".join(ops).encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def test_pdf_text_layer_feeds_cer() -> None:
    pdf = minimal_pdf(["Invoice 2024", "Total due: 42 EUR"])
    text = pdf_text_layer(pdf, 1)
    assert text.split() == ["Invoice", "2024", "Total", "due:", "42", "EUR"]
    assert cer(plain_text("# Invoice 2024\n\nTotal due: 42 EUR"), text) == 0.0
    # "Invoice2024Totaldue:42EUR" is 25 characters; "2O24" has one substitution
    assert cer("Invoice 2O24 Total due: 42 EUR", text) == pytest.approx(1 / 25)
    with pytest.raises(PageRangeError):
        pdf_text_layer(pdf, 2)
    with pytest.raises(DocumentError):
        pdf_text_layer(b"not a pdf", 1)


def test_plain_text_keeps_the_numbers_an_ordered_list_shows():
    md = "157. A potato is launched\n158. A train\n\n- a. Find it\n\nYear 1986\\. ends"
    assert plain_text(md).splitlines() == [
        "157. A potato is launched",
        "158. A train",
        "a. Find it",
        "Year 1986. ends",
    ]
