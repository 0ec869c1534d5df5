"""Evidence that a reading is poor: which words a second look supports.

Each :class:`~..boxes.Word` carries ``known``, which :mod:`..support` counts for the block's
confidence:

* Tesseract's words: Tesseract's own verdict (``WordIsFromDictionary``: its bundled English
  word list, the ``eng.traineddata`` DAWG);
* RapidOCR's words: ``False`` until :func:`confirm` finds the word in the same English word
  list (:mod:`.lexicon`) or Tesseract read the same word in the same place (two readers
  agreeing: a name or a code no dictionary holds);
* text-layer words: ``None`` (the PDF's own text: no evidence either way).
"""

from __future__ import annotations

from workbench.engines.cpu.boxes import Box, Line
from workbench.engines.cpu.readers import lexicon
from workbench.engines.cpu.support import STRIP


def confirm(lines: list[Line], tesseract: list[Line]) -> None:
    """Mark each RapidOCR word known when the word list holds it (each part of a hyphenated
    word) or Tesseract read it too (same letters and digits, boxes overlapping)."""
    theirs = [w for ln in tesseract if ln.source == "tesseract" for w in ln.words]
    for ln in lines:
        if ln.source != "rapidocr":
            continue
        for w in ln.words:
            key = _key(w.text)
            w.known = bool(key) and (
                _listed(w.text)
                or any(_key(t.text) == key and _overlaps(t.box, w.box) for t in theirs)
            )


def _listed(text: str) -> bool:
    parts = [p for p in text.strip(STRIP).split("-") if p]
    return bool(parts) and all(lexicon.known(p) for p in parts)


def _key(text: str) -> str:
    return "".join(c for c in text.lower() if c.isalnum())


def _overlaps(a: Box, b: Box) -> bool:
    # RapidOCR's word boxes are estimated (the line split by character count): same row and
    # a horizontal overlap is agreement enough
    h = min(a[3], b[3]) - max(a[1], b[1])
    w = min(a[2], b[2]) - max(a[0], b[0])
    return h > 0.3 * min(a[3] - a[1], b[3] - b[1]) and w > -0.5 * (b[3] - b[1])
