"""Page images as PNG, encoded once and fast: the bytes sent to a server are the bytes kept.

Contract
--------
* :func:`encode_png` is lossless: decoding its bytes gives the image's pixels exactly. An RGB
  image whose three channels are equal everywhere (a grey page: most documents) is written as
  one grey channel (``L``), the same pixels once a server converts it back, at a third of the
  work; any other mode is converted to RGB first (transparency flattened by the caller).
* A PDF page can be drawn straight into PNG scanlines (:func:`rows`, :func:`encode_rows`): the
  same bytes as :func:`encode_png` of the same pixels, without copying the page to encode it.
* The PNG is written here: filter type 0 on every row, deflate at level 1 by ISA-L (``isal``,
  about 7x faster than zlib's level 1 for 10% more bytes) or zlib where it is missing. Pillow's
  encoder picks an adaptive filter per row and costs 2-10x more on document pages for files
  of about the same size (``benchmarks/throughput.py`` measures both).
* :func:`data_url` wraps bytes as the ``data:image/png;base64,...`` URL of an OpenAI chat body;
  :func:`json_with_image` writes a whole chat body as JSON bytes with the page's URL spliced
  in where :data:`IMAGE_SLOT` stands: the base64 text needs no JSON escaping, so the half
  megabyte of a page is never scanned by the JSON encoder nor copied through ``str``.
"""

from __future__ import annotations

import base64
import json
import struct
import uuid
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image


def _compressor() -> Callable[[bytes | memoryview, int], bytes]:
    """ISA-L's deflate (same zlib stream, several times faster), else zlib's."""
    try:
        from isal import isal_zlib
    except ImportError:  # pragma: no cover - isal is a dependency; zlib is the fallback
        return zlib.compress
    return isal_zlib.compress


_deflate = _compressor()

SIGNATURE = b"\x89PNG\r\n\x1a\n"
LEVEL = 1  # deflate level: speed over size, a page is encoded once and sent once


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode_pixels(pixels: np.ndarray) -> bytes:
    """PNG bytes of an H×W (grey) or H×W×3 (RGB) uint8 array."""
    height, width = pixels.shape[:2]
    channels = 1 if pixels.ndim == 2 else pixels.shape[2]
    if channels not in (1, 3) or pixels.dtype != np.uint8:
        raise ValueError(f"cannot encode a {pixels.dtype} array of shape {pixels.shape} as PNG")
    raw = np.empty((height, width * channels + 1), np.uint8)
    raw[:, 0] = 0  # filter type None: deflate alone does well on documents, and it is cheap
    raw[:, 1:] = pixels.reshape(height, width * channels)
    return _png(width, channels, raw)


def _png(width: int, channels: int, raw: np.ndarray) -> bytes:
    """The PNG file of scanlines ``raw`` (each row: filter byte 0, then the pixels)."""
    header = struct.pack(">IIBBBBB", width, len(raw), 8, 0 if channels == 1 else 2, 0, 0, 0)
    idat = _deflate(raw.data, LEVEL)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def rows(width: int, height: int) -> np.ndarray:
    """A buffer laid out as an RGB PNG's scanlines (H×(3W+1): filter byte 0, then a row's
    pixels) for a page to be drawn into (:func:`row_pixels` is the H×W×3 view) and encoded
    by :func:`encode_rows` where it lies: the pixels are never copied to be deflated."""
    raw = np.empty((height, 3 * width + 1), np.uint8)
    raw[:, 0] = 0
    return raw


def row_pixels(raw: np.ndarray) -> np.ndarray:
    """The H×W×3 pixels of a :func:`rows` buffer, as a view (rows one filter byte apart)."""
    return raw[:, 1:].reshape(len(raw), (raw.shape[1] - 1) // 3, 3)


def _rows_gray(raw: np.ndarray, band: int = 64) -> bool:
    """Whether every pixel of a :func:`rows` buffer has R = G = B. Each byte is XORed with
    the next one in its row and the pairs that straddle two pixels (B, then the next R) are
    masked out: contiguous passes over a few cache-sized rows at a time, about twice as fast
    as comparing strided channels. A colour page answers at its first coloured band."""
    pairs = raw.shape[1] - 2
    keep = np.tile(np.array([255, 255, 0], np.uint8), pairs // 3 + 1)[:pairs]
    work = np.empty((band, pairs), np.uint8)
    for top in range(0, len(raw), band):
        body = raw[top : top + band, 1:]
        diff = work[: len(body)]
        np.bitwise_xor(body[:, :-1], body[:, 1:], out=diff)
        np.bitwise_and(diff, keep, out=diff)
        if diff.any():
            return False
    return True


def encode_rows(raw: np.ndarray) -> bytes:
    """The PNG of a :func:`rows` buffer, losslessly: one grey channel when the page is grey."""
    width = (raw.shape[1] - 1) // 3
    if not _rows_gray(raw):
        return _png(width, 3, raw)
    gray = np.empty((len(raw), width + 1), np.uint8)
    gray[:, 0] = 0
    gray[:, 1:] = raw[:, 1::3]  # the red byte of each pixel: all three are equal
    return _png(width, 1, gray)


def encode_png(image: Image.Image) -> bytes:
    """The image as PNG, losslessly (grey pages as ``L``); see the module contract. An RGB
    image is copied into PNG scanlines once and checked for grey there (:func:`encode_rows`)."""
    if image.mode == "L":
        return encode_pixels(np.asarray(image))
    if image.mode != "RGB":
        image = image.convert("RGB")
    raw = rows(*image.size)
    row_pixels(raw)[...] = np.asarray(image)
    return encode_rows(raw)


def data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


#: Stands for the page's data URL in a body given to :func:`json_with_image` (random per
#: process: no prompt can contain it by chance).
IMAGE_SLOT = f"wb-image-{uuid.uuid4().hex}"
_SLOT_JSON = json.dumps(IMAGE_SLOT).encode()


def json_with_image(body: dict[str, Any], png: bytes) -> bytes:
    """``body`` as compact UTF-8 JSON (as httpx would send it) with its one
    :data:`IMAGE_SLOT` string replaced by ``png``'s data URL."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
    head, slot, tail = text.partition(_SLOT_JSON)
    if not slot:
        raise ValueError("the body has no image slot")
    return b"".join((head, b'"data:image/png;base64,', base64.b64encode(png), b'"', tail))
