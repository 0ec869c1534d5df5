"""Deskew: a page image scanned a few degrees off square is turned straight before it is read,
and what was read on the straight image is mapped back onto the page as it came.

A skewed page costs the readers: Tesseract's line finder joins the ends of one line to the
start of the next (rows of a table shift and merge; two columns' lines bridge the gutter)
and misses lines outright. :func:`estimate` finds the angle from the text lines themselves:
the page, grey, downscaled to ``WORK_SIDE`` px on its long side and binarised, is projected
onto its y axis sheared by each candidate angle; text lines make the sharpest profile (the
largest sum of squared row counts) when the shear follows them. Candidates run over
``MAX_SKEW`` degrees either way in ``COARSE`` steps, then ``FINE`` steps around the best. An
angle under ``MIN_SKEW`` is no skew (a straight scan is never resampled), and a profile that
the best angle sharpens by less than ``MIN_GAIN`` over no rotation (a photograph, a blank page)
is left as it is.

:func:`straighten` rotates the page about its centre by that angle, keeping its size (the
corners that turn out are white); :func:`to_page` maps a box read on the straightened image
back to the page's own pixels (the bounds of its four corners turned back), so overlays and
crops still line up with the image the user gave. About 0.1 s a page on one core.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image

from workbench.engines.cpu.boxes import Box
from workbench.schema import BBox, Region

WORK_SIDE = 1000  # px: the long side the angle is measured at (a line is ~10 px tall there)
MAX_SKEW = 6.0  # degrees either way: hand-fed scans; more is a page turned on purpose
COARSE = 0.25  # degrees between coarse candidates
FINE = 0.05  # degrees between fine candidates around the best coarse one
MIN_SKEW = 0.3  # degrees: under this a page is read as it is (a line drifts < 1 px per 200)
MIN_GAIN = 1.05  # the best angle's profile must be this much sharper than no rotation's
MAX_POINTS = 200_000  # ink pixels sampled for the profiles (a dense page has more)


def estimate(image: Image.Image) -> float:
    """The angle in degrees (counter-clockwise positive, as PIL turns an image) that
    :func:`straighten` turns the page by to square it; 0.0 for a page that is straight or
    shows no text lines to measure (handwriting's wavy lines rarely sharpen the profile)."""
    gray = image.convert("L")
    scale = WORK_SIDE / max(gray.size)
    if scale < 1:
        gray = gray.resize(
            (max(1, round(gray.width * scale)), max(1, round(gray.height * scale))),
            Image.Resampling.BOX,
        )
    a = np.asarray(gray, dtype=np.uint8)
    ink = a < _threshold(a)
    ys, xs = np.nonzero(ink)
    if len(ys) < 200 or ink.mean() > 0.5:  # blank, or a dark photograph / negative
        return 0.0
    if len(ys) > MAX_POINTS:
        pick = np.random.default_rng(0).choice(len(ys), MAX_POINTS, replace=False)
        ys, xs = ys[pick], xs[pick]
    x = xs.astype(np.float64) - a.shape[1] / 2
    y = ys.astype(np.float64)

    def sharpness(deg: float) -> float:
        rows = np.round(y - x * math.tan(math.radians(deg))).astype(np.int64)
        counts = np.bincount(rows - rows.min())
        return float(np.dot(counts, counts))

    coarse = np.arange(-MAX_SKEW, MAX_SKEW + COARSE / 2, COARSE)
    best = max(coarse, key=sharpness)
    fine = np.arange(best - COARSE, best + COARSE + FINE / 2, FINE)
    best = float(max(fine, key=sharpness))
    if abs(best) < MIN_SKEW or sharpness(best) < MIN_GAIN * sharpness(0.0):
        return 0.0
    # lines falling to the right (y grows with x: best > 0) were turned clockwise: turning
    # the page counter-clockwise by as much (PIL's positive angle) squares them
    return round(best, 2)


def _threshold(a: np.ndarray) -> float:
    """Otsu's threshold of a grey image (ink darker than it)."""
    hist = np.bincount(a.ravel(), minlength=256).astype(np.float64)
    total = hist.sum()
    levels = np.arange(256)
    w0 = np.cumsum(hist)
    m0 = np.cumsum(hist * levels)
    w1 = total - w0
    mean_all = m0[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        between = (mean_all * w0 - total * m0) ** 2 / (w0 * w1)
    between[~np.isfinite(between)] = 0
    return float(np.argmax(between))


def straighten(image: Image.Image, angle: float) -> Image.Image:
    """``image`` turned ``angle`` degrees counter-clockwise about its centre, same size.

    A grey scan delivered as RGB (three equal channels: most scans) turns one channel and
    copies it: PIL's bicubic filter does the same arithmetic per channel, so the pixels are
    the very ones the RGB turn gives, at a third of its cost (≈0.45 → 0.15 s CPU a page)."""
    if image.mode == "RGB":
        red, green, blue = image.split()
        if red.tobytes() == green.tobytes() == blue.tobytes():  # ≈30 ms
            one = red.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
            return Image.merge("RGB", (one, one, one))
    return image.rotate(
        angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=(255, 255, 255)
    )


def to_page(box: Box, angle: float, width: int, height: int) -> Box:
    """A box read on the page straightened by ``angle`` (:func:`straighten`), on the page as
    it came: the bounds of its corners turned back, clipped to the page."""
    cx, cy = width / 2, height / 2
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
        dx, dy = x - cx, y - cy
        xs.append(cx + dx * c - dy * s)
        ys.append(cy + dx * s + dy * c)
    return (
        max(0.0, min(xs)),
        max(0.0, min(ys)),
        min(float(width), max(xs)),
        min(float(height), max(ys)),
    )


def read_square(
    read: Callable[[Image.Image, dict[str, Any]], tuple[list[Region], dict[str, Any]]],
    image: Image.Image,
    trace: dict[str, Any],
) -> tuple[list[Region], dict[str, Any]]:
    """``read(image, trace)``, on the page turned square when it is skewed (``trace`` gets
    ``deskew_degrees``; its boxes stay on the turned page), the regions mapped back onto the
    page as given."""
    angle = estimate(image)
    if not angle:
        return read(image, trace)
    trace["deskew_degrees"] = angle
    regions, trace = read(straighten(image, angle), trace)
    w, h = image.size
    return [region_to_page(r, angle, w, h) for r in regions], trace


def region_to_page(region: Region, angle: float, width: int, height: int) -> Region:
    """``region`` read on the page straightened by ``angle``, with its box on the page as it
    came (:func:`to_page`)."""
    if region.bbox is None:
        return region
    b = region.bbox
    box = to_page((b.x0, b.y0, b.x1, b.y1), angle, width, height)
    return region.model_copy(
        update={"bbox": BBox.from_scaled(list(box), width, height, width, height)}
    )
