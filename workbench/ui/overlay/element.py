"""The page overlay: a page image with its layout regions drawn over it, click to select.

A Streamlit components-v2 element (inline HTML/CSS/JS, no iframe, no build step). Boxes are
placed in percent of the page, so the overlay scales with its column; the page image may be a
downscaled copy as long as ``page_size`` gives the ``page_px`` size the boxes are in.

Selection is two-way:

* clicking a box selects it (clicking it again clears the selection);
* clicking an element whose CSS class is ``st-key-<block_prefix><region id>`` (an
  ``st.container(key=block_key(prefix, id))`` around that region's text) selects the region too,
  and the selected block is scrolled into view when a box is clicked.

The selection lives in session state under :func:`selection_key`; read and set it with
:func:`get_selection` / :func:`set_selection` (e.g. from a selectbox callback) before rendering.
Region text is never inserted as HTML (labels and tooltips go through ``textContent``/``title``).

Outlines (optional, e.g. Compare's disagreements): ``outlines`` maps a region id to an
:class:`Outline` -- a colour, a CSS line style and a short note. The box keeps its label colour;
the outline is drawn just outside it, the note is appended to its tag and tooltip, and the
legend gains one entry per distinct outline.
"""

from __future__ import annotations

import base64
import functools
import io
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from PIL import Image

from workbench import schema as _schema
from workbench.schema import Label, Region
from workbench.ui import state
from workbench.ui.overlay.client import CSS as _CSS
from workbench.ui.overlay.client import JS as _JS

#: One colour per canonical label (colour-blind-aware where it matters: table/figure/formula).
LABEL_COLORS: dict[str, str] = {
    Label.TEXT: "#4C78A8",
    Label.TITLE: "#E45756",
    Label.SECTION_HEADER: "#F58518",
    Label.LIST: "#72B7B2",
    Label.TABLE: "#54A24B",
    Label.FORMULA: "#B279A2",
    Label.FIGURE: "#EECA3B",
    Label.CAPTION: "#9D755D",
    Label.HEADER: "#8E8E8E",
    Label.FOOTER: "#8E8E8E",
    Label.PAGE_NUMBER: "#A0A0A0",
    Label.FOOTNOTE: "#BAB0AC",
    Label.CODE: "#2F4B7C",
    Label.FORM: "#FF9DA6",
    Label.SIGNATURE: "#D62728",
}
DEFAULT_COLOR = "#666666"

#: ``zoom`` value that fits the whole page in the window's height (1 fits the column's width).
FIT_HEIGHT = 0.0
#: The zoom switch's choices: fit the column's width, fit the window's height, or enlarge
#: inside a scroll box.
ZOOMS: dict[str, float] = {
    "Fit width": 1.0,
    "Fit height": FIT_HEIGHT,
    "1.5×": 1.5,
    "2×": 2.0,
    "3×": 3.0,
}
#: The zoom switch's default choice.
FIT_WIDTH = "Fit width"
#: Text confidence (0-1) under which a region is flagged; the schema's threshold when it has one.
LOW_CONFIDENCE: float = float(getattr(_schema, "LOW_CONFIDENCE", 0.6))


@dataclass(frozen=True)
class Outline:
    """An extra outline around one box: ``style`` is a CSS border style (solid, dashed,
    dotted, double); ``note`` (e.g. "only in A") goes into the tag, tooltip and legend."""

    color: str
    style: str = "solid"
    note: str = ""


_STYLES = {"solid", "dashed", "dotted", "double"}


_component: Any = None


def _mount() -> Any:
    global _component
    if _component is None:
        _component = st.components.v2.component(
            "workbench_page_overlay", html="", css=_CSS, js=_JS, isolate_styles=True
        )
    return _component


def color_for(label: str) -> str:
    return LABEL_COLORS.get(label, DEFAULT_COLOR)


def safe_id(region_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", region_id)


def block_key(prefix: str, region_id: str) -> str:
    """The ``st.container`` key whose clicks select ``region_id`` in the overlay with ``prefix``."""
    return f"{prefix}{safe_id(region_id)}"


def selection_key(key: str) -> str:
    return state.OVERLAY_SELECTED(key).key


def get_selection(key: str) -> str | None:
    return state.OVERLAY_SELECTED(key).get() or None


def set_selection(key: str, region_id: str | None, *, scroll: bool = False) -> None:
    """Select ``region_id`` (None clears); ``scroll`` brings its text block level with its box
    on the next draw, as a click on the box does."""
    state.OVERLAY_SELECTED(key).set(region_id or None)
    if scroll and region_id:
        state.OVERLAY_SCROLL(key).set(True)


def _on_select(key: str) -> None:
    value = state.WIDGET(key).get() or {}
    picked = value.get("select") if hasattr(value, "get") else None
    if picked is not None:
        set_selection(key, str(picked) or None)
        state.OVERLAY_SCROLL(key).set(True)


def _on_nav(key: str, on_arrow: Callable[[int], None] | None) -> None:
    value = state.WIDGET(key).get() or {}
    step = value.get("nav") if hasattr(value, "get") else None
    if on_arrow is not None and step in (-1, 1):
        on_arrow(int(step))


def _data_url(image: Image.Image | bytes) -> tuple[str, tuple[int, int]]:
    if isinstance(image, bytes):
        return _bytes_url(image)
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=88)
    return f"data:image/jpeg;base64,{base64.b64encode(buf.getvalue()).decode()}", image.size


@functools.lru_cache(maxsize=8)
def _bytes_url(image: bytes) -> tuple[str, tuple[int, int]]:
    """An encoded page image as a data URL (kept: every rerun draws the same page again)."""
    with Image.open(io.BytesIO(image)) as probe:
        size, fmt = probe.size, (probe.format or "PNG").lower()
    return f"data:image/{fmt};base64,{base64.b64encode(image).decode()}", size


def confidence(region: Region) -> float | None:
    """The region's text confidence (0-1) when its engine gave one."""
    value = getattr(region, "confidence", None)
    return None if value is None else float(value)


def low_confidence(region: Region) -> bool:
    value = confidence(region)
    return value is not None and value < LOW_CONFIDENCE


def _tip(region: Region) -> str:
    text = " ".join(region.text.split())
    head = f"{region.id} · {region.label}"
    if region.native_label and region.native_label != region.label:
        head += f" ({region.native_label})"
    facts = []
    conf = confidence(region)
    if conf is not None:
        facts.append(f"text confidence {conf:.0%}" + (" — LOW" if conf < LOW_CONFIDENCE else ""))
    if region.score is not None:
        facts.append(f"layout score {region.score:.2f}")
    if facts:
        head += "\n" + " · ".join(facts)
    return f"{head}\n{text[:240]}{'…' if len(text) > 240 else ''}"


def _mark(outline: Outline) -> dict[str, str]:
    style = outline.style if outline.style in _STYLES else "solid"
    return {"color": outline.color, "style": style, "note": outline.note}


def _outline_legend(marks: Collection[dict[str, str]]) -> list[dict[str, object]]:
    counts: dict[tuple[str, str, str], int] = {}
    for m in marks:
        if m["note"]:
            k = (m["color"], m["style"], m["note"])
            counts[k] = counts.get(k, 0) + 1
    return [{"color": c, "style": s, "note": n, "count": k} for (c, s, n), k in counts.items()]


def _region(r: Region, mark: dict[str, Any] | None, pw: float, ph: float) -> dict[str, Any]:
    """One located region as the overlay draws it: its box in percent of the page, colour,
    tag, tooltip and outline mark (``mark``, when the caller marked it)."""
    assert r.bbox is not None
    note = mark["note"] if mark is not None else None
    return {
        "id": r.id,
        "label": str(r.label),
        "color": color_for(r.label),
        "tag": f"{r.order} {r.label}" + (f" · {note}" if note is not None else ""),
        "tip": _tip(r) + (f"\n({note})" if note is not None else ""),
        "mark": mark,
        "order": r.order,
        "lowconf": low_confidence(r),
        "x0": round(100 * r.bbox.x0 / pw, 3),
        "y0": round(100 * r.bbox.y0 / ph, 3),
        "x1": round(100 * r.bbox.x1 / pw, 3),
        "y1": round(100 * r.bbox.y1 / ph, 3),
    }


def render_page_overlay(
    image: Image.Image | bytes,
    regions: Sequence[Region],
    visible_labels: Collection[str] | None,
    selected_id: str | None,
    key: str,
    width: int | None = None,
    *,
    page_size: tuple[int, int] | None = None,
    block_prefix: str | None = None,
    on_arrow: Callable[[int], None] | None = None,
    zoom: float = 1.0,
    tags: bool = False,
    alt: str | None = None,
    outlines: Mapping[str, Outline] | None = None,
) -> str | None:
    """Draw ``regions`` (``page_px`` of a ``page_size`` page) over ``image``; return the id
    of the selected region, or None.

    ``visible_labels`` None shows every label. ``selected_id`` (when not None) sets the
    selection before drawing; a click replaces it on the next run. ``width`` None stretches
    to the column. ``block_prefix`` links text containers (see the module docstring).
    ``on_arrow`` (when given) is called with -1/+1 for the Left/Right arrow keys pressed
    anywhere on the page outside a text field (page navigation); Escape clears the selection.
    ``zoom`` 1 fits the column's width, :data:`FIT_HEIGHT` fits the page in the window's
    height, > 1 enlarges it inside a scroll box. ``tags`` shows every box's label tag where
    there is room outside every box and every other tag (the rest on hover), otherwise
    tags show only on hover and for the selected box, so tags never hide the text. A
    region whose text confidence is under :data:`LOW_CONFIDENCE` gets a dashed border and
    a "?" mark.
    ``alt`` is the image's alternative text (default: how many regions it shows);
    ``outlines`` marks chosen regions (see :class:`Outline`).
    """
    if selected_id is not None:
        set_selection(key, selected_id)
    url, img_size = _data_url(image)
    pw, ph = page_size or img_size
    located = [r for r in regions if r.bbox is not None]
    # Largest first, so small boxes sit on top and stay clickable.
    located.sort(key=lambda r: -(r.bbox.area if r.bbox else 0))
    valid = {r.id for r in located}
    selected = get_selection(key)
    if selected not in valid:
        selected = None
    counts: dict[str, int] = {}
    for r in located:
        counts[r.label] = counts.get(r.label, 0) + 1
    shown = set(counts) if visible_labels is None else {str(v) for v in visible_labels}
    marks = {r.id: _mark(outlines[r.id]) for r in located if outlines and r.id in outlines}
    payload = {
        "key": key,
        "image": url,
        "alt": alt or f"page image with {len(located)} regions",
        "selected": selected,
        "visible": sorted(shown),
        "scroll": bool(state.OVERLAY_SCROLL(key).pop()),
        "block_prefix": block_prefix,
        "keys": on_arrow is not None,
        "zoom": max(1.0, float(zoom)),
        "fit": "height" if zoom == FIT_HEIGHT else "width",
        "aspect": round(pw / ph, 4) if ph else 0.77,
        "lowconf": sum(1 for r in located if low_confidence(r) and str(r.label) in shown),
        "tags": bool(tags),
        "block_ids": {safe_id(r.id): r.id for r in regions},
        "legend": [
            {"label": label, "count": n, "color": color_for(label)}
            for label, n in sorted(counts.items(), key=lambda kv: -kv[1])
        ],
        "outline_legend": _outline_legend(marks.values()),
        "regions": [_region(r, marks.get(r.id), pw, ph) for r in located],
    }
    _mount()(
        key=key,
        data=payload,
        width=width if width else "stretch",
        on_select_change=lambda: _on_select(key),
        on_nav_change=lambda: _on_nav(key, on_arrow),
    )
    return selected
