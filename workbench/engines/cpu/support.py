"""How far a reading's words are supported, and the confidence a block keeps for it.

A reader's own score says how sure it is of its glyphs, not whether they make words:
RapidOCR reads a handwritten letter as fluent gibberish ("Donzin Iho tie has at gpt amind")
with scores near 0.9. What a poor reading leaves behind is words no dictionary holds and no
second reader confirms: each :class:`~.boxes.Word` carries ``known`` for that
(:mod:`.readers.evidence` sets it).

:func:`support` is the share of a block's words that are *supported*: figures (``1,234``,
``12%``, ``$5``, ``1893``, ``2nd``), words known to a dictionary, and (half) capitalised words
no dictionary holds (names) and (half) plain lowercase words Tesseract read with confidence
``CLEAN_CONF`` (another language); junk (a capital inside a lowercase word: ``ashJon``; letters and
digits mixed: ``N6uy``) never is; words without a letter or digit are not counted.
:func:`weigh` turns a reader's confidence into the block's: ``conf × (FLOOR + (1 − FLOOR) ×
support)``, so a block of unconfirmed words loses up to two thirds of its confidence and falls under
the app's flag (``schema.LOW_CONFIDENCE``), while printed prose (95 % of its words in the
dictionary) keeps nearly all of it.

A ground floor beside :mod:`.labels`: :class:`~.page.Block` weighs its confidence here, and the
readers mark the words it counts.
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import CJK, Line, Word, cjk_share

# a block with no supported word keeps this share of its reader's confidence (0.5 left four
# of ten handwritten letters read as gibberish at 0.62-0.67, over the flag: cpu_confidence.py)
FLOOR = 0.35
NAME_SUPPORT = 0.5  # a capitalised word no dictionary holds: a name, or a misreading
# a lowercase word no dictionary holds that Tesseract read with this confidence (0-100) is a
# word of another language or a term more often than a misreading: Tesseract's own guesses at
# ink it cannot read score far lower (its median on handwriting is under 60, engine.py), while
# the Dutch of a typewritten page (devset real-scan-typewriter: read right, word F1 0.99) scores
# 89-97; RapidOCR's scores are high on gibberish too, so its words never count here
CLEAN_CONF = 90.0
CLEAN_SUPPORT = 0.5  # half, like a name: the word list cannot vouch for it
_FIGURE = re.compile(r"^[(\[$€£#+\-−–]*\d[\d,.:/\-–]*(st|nd|rd|th|s|%|\))*$", re.IGNORECASE)
#: punctuation around a word that is not part of it
STRIP = "\"'“”‘’()[]{}<>.,;:!?*|_«»…"
_JUNK_CASE = re.compile(r"[a-z][A-Z]")  # a capital after a small letter: "ashJon", "atSaws"
_LETTER_DIGIT = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")


def word_support(word: Word, source: str = "") -> float | None:
    """How far ``word`` (read by ``source``) is supported (0-1); None for a word not counted
    (no letter or digit)."""
    text = word.text.strip(STRIP)
    if not any(c.isalnum() for c in text):
        return None
    if cjk_share([text]) > 0.5:  # Han, kana, Hangul: neither the word list nor Tesseract's
        return None  # English model can vouch for it or against it
    text = CJK.sub("", text).strip(STRIP)  # the rest of "14,220.995万元。": a figure and its unit
    if word.known is None or _FIGURE.match(text):  # the text layer's own words: no evidence
        return 1.0
    if _JUNK_CASE.search(text) or _LETTER_DIGIT.search(text):
        return 0.0
    if word.known:
        return 1.0
    if text[:1].isupper() and len(text) > 1:
        return NAME_SUPPORT
    if source == "tesseract" and word.conf >= CLEAN_CONF and text.isalpha() and len(text) > 2:
        return CLEAN_SUPPORT  # a plain lowercase word Tesseract is sure of: another language
    return 0.0


def support(lines: list[Line]) -> float:
    """Character-weighted share of the lines' counted words that are supported (1.0 when
    none is counted: nothing to hold against the reading)."""
    total = got = 0.0
    for ln in lines:
        for w in ln.words:
            s = word_support(w, ln.source)
            if s is not None:
                n = len(w.text)
                total += n
                got += s * n
    return got / total if total else 1.0


def weigh(conf: float, lines: list[Line]) -> float:
    """A reader's confidence (0-1) for these lines, lowered by their unsupported words."""
    return conf * (FLOOR + (1 - FLOOR) * support(lines))
