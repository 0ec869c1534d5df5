"""Evidence of a poor reading (readers/evidence.py): which RapidOCR words a second look
supports, from Tesseract's own word list or Tesseract's reading in the same place."""

from __future__ import annotations

from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.readers import evidence, lexicon


def _line(words: list[tuple[str, bool | None]], source: str = "tesseract") -> Line:
    out, x = [], 0.0
    for text, known in words:
        out.append(Word(text, (x, 0, x + 12 * len(text), 30), 90.0, known))
        x += 12 * len(text) + 10
    return Line(" ".join(t for t, _ in words), (0, 0, x, 30), 90.0, source, out)


def test_a_rapidocr_word_is_known_from_the_word_list_or_from_tesseract_in_the_same_place():
    rapid = _line([("Very", False), ("Pohnsidwell", False), ("wihes", False)], source="rapidocr")
    tess = _line([("Very", True), ("Pohnsidwell", False), ("wishes", True)])
    far = _line([("Wihes", True)])
    far.words[0].box = (900, 500, 960, 530)  # the same letters elsewhere on the page
    evidence.confirm([rapid], [tess, far])
    # "Very": in Tesseract's English word list; the name: Tesseract read it there too;
    # "wihes": neither (Tesseract read "wishes" there, and "Wihes" only elsewhere)
    assert [w.known for w in rapid.words] == [True, True, False]


def test_the_word_list_is_tesseracts_own():
    assert lexicon.known("documentation") and lexicon.known("Westminster")
    assert lexicon.known("believe") and not lexicon.known("behieve")
    assert not lexicon.known("okinion")
