"""Edit mode: fix a page's regions by hand on a canvas, save them as a corrections layer.

The model's output is never overwritten: Save writes ``page-NNNN.corrected.json`` through
the run store (``RunReader.save_corrections``); both layers stay exportable.

Canvas (streamlit-drawable-canvas 0.13, Fabric.js 7)
----------------------------------------------------
* The canvas has a fixed pixel ``width``; the page image is stretched onto it, so one canvas
  pixel is ``image.width / width`` page pixels across and ``image.height / height`` down
  (``height`` is rounded, so the two differ slightly). Boxes go in scaled by the inverse of
  each and come back through
  :func:`regions_from_boxes`, which divides again: a round trip is exact to 0.1 px.
* Boxes are built with ``boxes_to_drawing`` (``originX/Y = left/top``; Fabric 7's default
  origin is the centre) and read back with ``CanvasResult.boxes`` (origin and
  ``scaleX/Y`` from resizing already folded in).
* Fabric keeps only ``label`` of our data, so a box's chip reads ``#N label``: N is the
  region's 1-based position in the list the canvas was built from. A box without ``#N``
  is new (drawn by the user). Moving, resizing and deleting happen on the canvas (its
  toolbar's edit toggle); relabel and delete also work from the panel beside it, which
  rebuilds the canvas (a new widget key) from the edited list.
* ``streamlit_drawable_canvas`` is imported inside :func:`render_editor` only: it can be
  imported only under a running Streamlit (see notes §3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st
from PIL import Image

from workbench.runs.store import RunReader
from workbench.schema import BBox, Label, Region
from workbench.ui import state

LABELS = [label.value for label in Label]
_CHIP = re.compile(r"^#(\d+)\s+(\S+)$")


def chip(n: int, region: Region) -> str:
    return f"#{n} {region.label.value}"


def canvas_boxes(regions: Sequence[Region], sx: float, sy: float) -> list[dict[str, Any]]:
    """Located regions as canvas boxes (``CanvasResult.boxes`` shape); ``sx``, ``sy`` are
    canvas px per page px (the image is stretched onto the canvas, so both are needed)."""
    boxes = []
    for n, region in enumerate(regions, start=1):
        if region.bbox is None:
            continue
        b = region.bbox
        boxes.append(
            {
                "label": chip(n, region),
                "left": b.x0 * sx,
                "top": b.y0 * sy,
                "width": b.width * sx,
                "height": b.height * sy,
            }
        )
    return boxes


def _new_id(taken: set[str]) -> str:
    k = 1
    while f"u{k}" in taken:
        k += 1
    taken.add(f"u{k}")
    return f"u{k}"


def regions_from_boxes(
    start: Sequence[Region],
    boxes: Sequence[dict[str, Any]],
    fx: float,
    fy: float,
    size: tuple[int, int],
) -> list[Region]:
    """Canvas boxes back to ``page_px`` regions (``fx``, ``fy``: page px per canvas px).

    A box whose chip names region N updates it (box and, if the chip was retyped, label);
    a box with a bare label is a new region; unlocated regions are kept as they were.
    Unchanged boxes keep their exact original coordinates.
    """
    w, h = size
    taken = {r.id for r in start}
    used: set[int] = set()
    out: list[Region] = []
    next_order = max((r.order for r in start), default=-1) + 1
    for box in boxes:
        text = str(box.get("label", "")).strip()
        m = _CHIP.match(text)
        n = int(m.group(1)) if m else 0
        label_text = m.group(2) if m else text
        left, top = box["left"], box["top"]
        corners = (left, top, left + box["width"], top + box["height"])
        bbox = BBox.from_scaled(corners, w / fx, h / fy, w, h)  # the one clamping rule
        if bbox is None:
            continue
        if 1 <= n <= len(start) and n not in used and start[n - 1].bbox is not None:
            used.add(n)
            old = start[n - 1]
            assert old.bbox is not None
            if (
                max(abs(a - b) for a, b in zip(old.bbox.as_list(), bbox.as_list(), strict=True))
                < 0.2
            ):
                bbox = old.bbox  # untouched: no float drift from the round trip
            label = Label(label_text) if label_text in LABELS else old.label
            out.append(old.model_copy(update={"bbox": bbox, "label": label}))
            continue
        label = Label(label_text) if label_text in LABELS else Label.TEXT
        out.append(
            Region(
                id=_new_id(taken),
                label=label,
                native_label="hand",
                bbox=bbox,
                order=next_order,
            )
        )
        next_order += 1
    out.extend(r for r in start if r.bbox is None)
    return out


def _describe(n: int, r: Region) -> str:
    box = "unlocated" if r.bbox is None else ", ".join(f"{v:.0f}" for v in r.bbox.as_list())
    return f"#{n} {r.label.value} [{box}]"


def regions_frame(regions: Sequence[Region]) -> pd.DataFrame:
    rows = [
        {
            "#": n,
            "id": r.id,
            "label": r.label.value,
            "x0": r.bbox.x0 if r.bbox else None,
            "y0": r.bbox.y0 if r.bbox else None,
            "x1": r.bbox.x1 if r.bbox else None,
            "y1": r.bbox.y1 if r.bbox else None,
            "text": r.text[:60],
        }
        for n, r in enumerate(regions, start=1)
    ]
    return pd.DataFrame(rows, columns=["#", "id", "label", "x0", "y0", "x1", "y1", "text"])


def _region_panel(base: str, working: list[Region]) -> None:
    """Relabel or delete one of the ``working`` regions (the canvas is rebuilt after)."""
    options = list(range(len(working)))
    with st.container(horizontal=True, vertical_alignment="bottom"):  # wraps when narrow
        pick = st.selectbox(
            "Region",
            options,
            format_func=lambda i: _describe(i + 1, working[i]),
            key=f"{base}_pick",
            width=320,
        )
        relabel = st.selectbox("New label", LABELS, key=f"{base}_relabel", width=180)
        if st.button("Relabel", key=f"{base}_do_relabel", disabled=not options):
            working[pick] = working[pick].model_copy(update={"label": Label(relabel)})
            _rebuild(base, working)
        if st.button("Delete", key=f"{base}_do_delete", disabled=not options):
            del working[pick]
            _rebuild(base, working)


def render_editor(reader: RunReader, doc: str, page: int, image: Image.Image, key: str) -> None:
    """The canvas editor for one page of one run; Save writes the corrections layer."""
    from streamlit_drawable_canvas import boxes_to_drawing, st_canvas

    base = f"ed_{key}_{reader.info.id}_{reader.folders.get(doc, doc)}_{page}"
    start_slot, ver_slot = state.EDITOR_START(base), state.EDITOR_VERSION(base)
    saved = reader.load_corrections(doc, page)
    if start_slot.get() is None:
        start_slot.set(list(saved if saved is not None else reader.page(doc, page).regions))
        ver_slot.set(0)
    start: list[Region] = start_slot.get() or []

    c1, c2, c3 = st.columns([2, 2, 3])
    width = int(
        c1.number_input("Canvas width (px)", 300, 1600, min(900, image.width), 20, key=f"{base}_w")
    )
    new_label = c2.selectbox("Label for new boxes", LABELS, key=f"{base}_newlabel")
    c3.caption(
        "Draw a box to add a region. Turn on the canvas toolbar's edit toggle to move, "
        "resize or delete (Del key) boxes. Relabel or delete in the panel below."
    )
    height = round(image.height * width / image.width)
    fx, fy = image.width / width, image.height / height
    drawing = boxes_to_drawing(
        canvas_boxes(start, 1 / fx, 1 / fy), stroke_color="#e8590c", stroke_width=2
    )
    for obj in drawing["objects"]:
        obj["fontSize"] = 12  # the chip; boxes_to_drawing leaves Fabric's 20 px default
    # A canvas wider than its column scrolls inside itself (the component's own scroll box).
    result = st_canvas(
        background_image=image,
        initial_drawing=drawing,
        drawing_mode="labeled_rect",
        label=new_label,
        stroke_width=2,
        stroke_color="#e03131",
        fill_color="rgba(0, 0, 0, 0)",
        font_size=12,
        width=width,
        height=height,
        key=f"{base}_canvas_{ver_slot.get()}_{width}",
    )
    working = regions_from_boxes(start, result.boxes, fx, fy, image.size)
    state.EDITOR_WORKING(base).set(working)

    st.dataframe(regions_frame(working), hide_index=True, width="stretch", height=220)
    st.caption(f"Coordinates in page_px of the {image.width}×{image.height} page image.")
    _region_panel(base, working)
    with st.container(horizontal=True, vertical_alignment="center"):
        save = st.button("Save corrections", key=f"{base}_save", type="primary")
        reset = st.button("Reset to model output", key=f"{base}_reset")
        s3 = st.container(width="stretch")
    if save:
        try:
            path = reader.save_corrections(doc, page, working)
        except Exception as exc:
            st.error(f"Could not save: {exc}")
        else:
            _rebuild(base, working, f"Saved {len(working)} region(s) to {path.name}")
    if reset:
        _rebuild(base, list(reader.page(doc, page).regions))
    baseline = saved if saved is not None else list(reader.page(doc, page).regions)
    msg = state.EDITOR_SAVED_MSG(base).get()
    if working != baseline:
        s3.warning("Unsaved changes: Save keeps them as a corrections layer.")
    elif msg:
        s3.success(msg)
    elif saved is not None:
        s3.caption("This page has saved corrections; the model's output is kept too.")


def _rebuild(base: str, regions: list[Region], saved: str | None = None) -> None:
    """Make ``regions`` the canvas's starting point (a fresh widget key) and rerun."""
    state.EDITOR_SAVED_MSG(base).set(saved)
    state.EDITOR_START(base).set(list(regions))
    state.EDITOR_VERSION(base).set(state.EDITOR_VERSION(base).get() + 1)
    st.rerun()
