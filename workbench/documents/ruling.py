"""A PDF page's ruling lines: the straight, axis-parallel segments of its path objects, the
geometry a ruled table's cell grid is found from (:mod:`workbench.engines.cpu.tables.ruled`).

Contract: :func:`edges` reads one open ``pypdfium2.PdfPage`` under PDFium's lock (the caller,
:mod:`workbench.documents.textlayer`, holds it) and returns segments ``(x0, top, x1, bottom)``
in points of the page as displayed (``to_pt``), each horizontal (``top == bottom``) or
vertical (``x0 == x1``) within ``SLANT`` points, at least ``MIN_LENGTH`` long. A path's
line-to segments and its closing segment count (a stroked rectangle is its four sides, as
pdfplumber reads a ``re``); curves do not. A subpath that is filled and not stroked gives its
sides only when it is thinner than ``THIN`` (a rule drawn as a filled box): a filled area (a
shaded cell, an alternate row's band, a white box behind a cell) has edges but draws no rule.
pdfplumber takes such sides as rules; on issue 35's corpus they cut a shaded table into
sub-columns and blank rows and split header cells along invisible boxes
(``benchmarks/corpus/README.md``). At most ``glyphs.MAX_PATHS`` path objects and
``MAX_SEGMENTS`` segments are read (a chart or a map has tens of thousands), through the raw
API (wrapping each object costs milliseconds). Top-level objects only: paths inside form
XObjects are not seen.
"""

from __future__ import annotations

import ctypes
from typing import Any

from workbench.documents.glyphs import MAX_PATHS, Transform

SLANT = 0.5  # points a "straight" segment may drift across its direction
MIN_LENGTH = 1.0  # points; pdfplumber's prefilter length
MAX_SEGMENTS = 20000
THIN = 3.0  # points: a filled box thinner than this is one rule (pdfplumber snaps its sides)

Edge = tuple[float, float, float, float]
Point = tuple[float, float]


def edges(page: Any, to_pt: Transform) -> list[Edge]:
    import pypdfium2.raw as raw

    out: list[Edge] = []
    x, y = ctypes.c_float(), ctypes.c_float()
    xr, yr = ctypes.byref(x), ctypes.byref(y)
    m = raw.FS_MATRIX()
    seen = 0
    try:
        n = min(raw.FPDFPage_CountObjects(page.raw), MAX_PATHS)
        for k in range(n):
            obj = raw.FPDFPage_GetObject(page.raw, k)
            if raw.FPDFPageObj_GetType(obj) != raw.FPDF_PAGEOBJ_PATH:
                continue
            count = raw.FPDFPath_CountSegments(obj)
            seen += max(count, 0)
            if count < 2 or seen > MAX_SEGMENTS:
                continue
            if not raw.FPDFPageObj_GetMatrix(obj, ctypes.byref(m)):
                continue
            area = _filled_only(raw, obj)
            t = (m.a, m.b, m.c, m.d, m.e, m.f)
            start = last = None
            sub: list[Edge] = []  # the current subpath's edges
            points: list[Point] = []
            for i in range(count):
                seg = raw.FPDFPath_GetPathSegment(obj, i)
                if not raw.FPDFPathSegment_GetPoint(seg, xr, yr):
                    continue
                p = _point(to_pt, _point(t, (x.value, y.value)))
                kind = raw.FPDFPathSegment_GetType(seg)
                if kind == raw.FPDF_SEGMENT_MOVETO:
                    _keep(out, sub, points, area)
                    sub, points = [], [p]
                    start = last = p
                    continue
                points.append(p)
                if kind == raw.FPDF_SEGMENT_LINETO and last is not None:
                    _add(sub, last, p)
                if raw.FPDFPathSegment_GetClose(seg) and start is not None:
                    _add(sub, p, start)
                last = p
            _keep(out, sub, points, area)
    except Exception:  # a broken object tree must not cost the text layer
        return out
    return out


def _filled_only(raw: Any, obj: Any) -> bool:
    """Whether the path is filled and not stroked: an area (or a rule drawn as a thin box)."""
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    if not raw.FPDFPath_GetDrawMode(obj, ctypes.byref(fill), ctypes.byref(stroke)):
        return False
    return bool(fill.value) and not stroke.value


def _keep(out: list[Edge], sub: list[Edge], points: list[Point], area: bool) -> None:
    """A subpath's edges into ``out``; a filled one's only when it is thin (a rule drawn as a
    filled box), not an area (a shaded cell or band, whose sides are no rule)."""
    if not sub:
        return
    if area and points:
        xs, ys = [q[0] for q in points], [q[1] for q in points]
        if min(max(xs) - min(xs), max(ys) - min(ys)) >= THIN:
            return
    out.extend(sub)


def _point(t: Transform, p: tuple[float, float]) -> tuple[float, float]:
    a, b, c, d, e, f = t
    return (a * p[0] + c * p[1] + e, b * p[0] + d * p[1] + f)


def _add(out: list[Edge], p: tuple[float, float], q: tuple[float, float]) -> None:
    x0, x1 = sorted((p[0], q[0]))
    y0, y1 = sorted((p[1], q[1]))
    if y1 - y0 <= SLANT and x1 - x0 >= MIN_LENGTH:
        y = round((y0 + y1) / 2, 2)
        out.append((round(x0, 2), y, round(x1, 2), y))
    elif x1 - x0 <= SLANT and y1 - y0 >= MIN_LENGTH:
        xm = round((x0 + x1) / 2, 2)
        out.append((xm, round(y0, 2), xm, round(y1, 2)))
