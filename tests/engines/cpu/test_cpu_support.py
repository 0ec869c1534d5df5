"""How far a reading's words are supported (support.py): which words count, and how a block's
confidence falls with its unsupported words."""

from __future__ import annotations

import pytest

from workbench.engines.cpu import support
from workbench.engines.cpu.boxes import Line, Word
from workbench.schema import LOW_CONFIDENCE


def _line(words: list[tuple[str, bool | None]], source: str = "tesseract") -> Line:
    out, x = [], 0.0
    for text, known in words:
        out.append(Word(text, (x, 0, x + 12 * len(text), 30), 90.0, known))
        x += 12 * len(text) + 10
    return Line(" ".join(t for t, _ in words), (0, 0, x, 30), 90.0, source, out)


@pytest.mark.parametrize(
    ("text", "known", "want"),
    [
        ("the", True, 1.0),
        ("1,234", False, 1.0),  # figures need no dictionary
        ("12%", False, 1.0),
        ("($5.2)", False, 1.0),
        ("1893.", False, 1.0),
        ("2nd", False, 1.0),
        ("Westminster", False, support.NAME_SUPPORT),  # a name, or a misreading
        ("amind", False, 0.0),
        ("ashJon", True, 0.0),  # junk even if a reader vouches for it
        ("N6uy", False, 0.0),
        ("word", None, 1.0),  # the text layer: no evidence against it
        ("H2O", None, 1.0),  # ... nor against its codes
        ("—", False, None),  # no letter or digit: not counted
    ],
)
def test_word_support(text, known, want):
    assert support.word_support(Word(text, (0, 0, 1, 1), 90.0, known)) == want


def test_gibberish_falls_under_the_flag_and_prose_stays_above_it():
    words = ["it", "was", "the", "year", "of", "our", "lord", "one", "thousand"]
    prose = _line([(w, True) for w in words])
    gibberish = _line(
        [("Donzin", False), ("Iho", False), ("tie", False), ("gpt", False), ("amind", False)],
        source="rapidocr",
    )
    assert support.weigh(0.95, [prose]) == pytest.approx(0.95)
    assert support.weigh(0.9, [gibberish]) < LOW_CONFIDENCE


@pytest.mark.parametrize(
    ("conf", "source", "want"),
    [
        (92.0, "tesseract", support.CLEAN_SUPPORT),  # "linzen": Dutch, read cleanly
        (70.0, "tesseract", 0.0),  # Tesseract unsure: a misreading as likely as a word
        (99.0, "rapidocr", 0.0),  # RapidOCR's scores are high on gibberish too
    ],
)
def test_a_clean_word_of_another_language_is_half_supported(conf, source, want):
    assert support.word_support(Word("linzen", (0, 0, 1, 1), conf, False), source) == want
