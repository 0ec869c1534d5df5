"""PDF pages drawn by PDFium straight into pixels the caller owns.

Contract
--------
* :func:`draw` draws a pypdfium2 page into exactly ``width``×``height`` RGB pixels: white
  under the page, then the page, its annotations and its form fields (as ``PdfPage.render``
  draws them). The pixels land in ``canvas``, an H×W×3 ``uint8`` array whose rows are each
  contiguous but may lie any distance apart (``strides[0]``): a caller can have the page drawn
  into the very buffer it encodes (:func:`workbench.engines.png.rows` keeps a PNG filter
  byte before each row), so a page is never copied between drawing and deflating.
  Without a canvas a new contiguous array is drawn into.
* The caller holds :data:`workbench.documents.textlayer.PDFIUM_LOCK` (PDFium is not thread-safe).
* Failures: a canvas of the wrong shape, type or layout is a ``ValueError``; PDFium refusing
  the bitmap (out of memory) is a ``MemoryError``.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.schema import TextLayer


@dataclass(frozen=True)
class Drawn:
    """A page drawn by :meth:`workbench.documents.Document.draw`: its pixels, the DPI they
    amount to, a note when the pixel cap shrank it, its text layer (when asked for)."""

    pixels: np.ndarray
    dpi: float
    note: str | None
    layer: TextLayer | None


def scale_for(page: Any, dpi: float, max_pixels: int) -> tuple[float, tuple[int, int], str | None]:
    """PDFium's scale for ``dpi`` (capped at ``max_pixels``), the size it gives, and the note
    saying the cap applied."""
    w_pt, h_pt = page.get_size()
    scale, note = dpi / 72, None
    if w_pt * h_pt * scale * scale > max_pixels:
        capped = math.sqrt(max_pixels / (w_pt * h_pt))
        note = (
            f"page is {w_pt / 72:.0f}×{h_pt / 72:.0f} in; rendered at "
            f"{capped * 72:.0f} DPI instead of {dpi:.0f} (pixel cap)"
        )
        scale = capped
    return scale, (math.ceil(w_pt * scale), math.ceil(h_pt * scale)), note  # as render(scale)


def canvas_for(width: int, height: int) -> np.ndarray:
    """A contiguous H×W×3 array to draw a page into (its values are overwritten)."""
    return np.empty((height, width, 3), np.uint8)


def draw(page: Any, width: int, height: int, canvas: np.ndarray | None = None) -> np.ndarray:
    """``page`` drawn into ``canvas`` (or a new array); returns the canvas. See the contract."""
    import pypdfium2.raw as pdfium_c

    pixels = canvas_for(width, height) if canvas is None else canvas
    if (
        pixels.shape != (height, width, 3)
        or pixels.dtype != np.uint8
        or pixels.strides[1:] != (3, 1)
        or pixels.strides[0] < 3 * width
    ):
        raise ValueError(f"cannot draw a {width}×{height} page into {pixels.shape} pixels")
    first = ctypes.c_void_p(pixels.ctypes.data)
    bitmap = pdfium_c.FPDFBitmap_CreateEx(
        width, height, pdfium_c.FPDFBitmap_BGR, first, pixels.strides[0]
    )
    if not bitmap:
        raise MemoryError(f"PDFium could not make a {width}×{height} bitmap")
    try:
        pdfium_c.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
        flags = pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER  # RGB, not BGR
        pdfium_c.FPDF_RenderPageBitmap(bitmap, page, 0, 0, width, height, 0, flags)
        if page.formenv:
            pdfium_c.FPDF_FFLDraw(page.formenv, bitmap, page, 0, 0, width, height, 0, flags)
    finally:
        pdfium_c.FPDFBitmap_Destroy(bitmap)
    return pixels
