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
import io
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from PIL import Image

from workbench.schema import Label, Region
from workbench.ui import state

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


@dataclass(frozen=True)
class Outline:
    """An extra outline around one box: ``style`` is a CSS border style (solid, dashed,
    dotted, double); ``note`` (e.g. "only in A") goes into the tag, tooltip and legend."""

    color: str
    style: str = "solid"
    note: str = ""


_STYLES = {"solid", "dashed", "dotted", "double"}

_CSS = """
.wb-scroll { overflow: auto; border: 1px solid #d0d4da; border-radius: 4px; }
.wb-scroll.zoomed { max-height: 82vh; }
.wb-ov { position: relative; width: calc(var(--z, 1) * 100%); line-height: 0;
  user-select: none; }
.wb-ov img { width: 100%; height: auto; display: block; }
.wb-box { position: absolute; box-sizing: border-box; border: 1.5px solid var(--c);
  background: color-mix(in srgb, var(--c) 8%, transparent); cursor: pointer;
  transition: background .12s; }
.wb-box:hover { background: color-mix(in srgb, var(--c) 24%, transparent); z-index: 6; }
.wb-box.sel { border-width: 3px; background: color-mix(in srgb, var(--c) 22%, transparent);
  box-shadow: 0 0 0 2px #fff, 0 0 0 4px var(--c); z-index: 5; }
.wb-ov.has-sel .wb-box:not(.sel) { opacity: .55; }
/* Tags would hide the very text they label on dense pages: shown only on hover, for the
   selected box, or everywhere when the user asks for them (tags-all). */
.wb-tag { position: absolute; left: -1.5px; bottom: 100%; font: 600 10px/1.35 system-ui,
  sans-serif; padding: 0 3px; color: #fff; background: var(--c); border-radius: 3px 3px 0 0;
  white-space: nowrap; pointer-events: none; visibility: hidden; }
.wb-box:hover .wb-tag, .wb-box.sel .wb-tag, .wb-ov.tags-all .wb-tag { visibility: visible; }
.wb-ov.tags-all .wb-tag { opacity: .85; }
.wb-box.low .wb-tag { bottom: auto; top: 0; border-radius: 0 0 3px 0; }
.wb-legend { display: flex; flex-wrap: wrap; gap: 4px 10px; margin-top: 6px;
  font: 12px/1.6 system-ui, sans-serif; color: var(--st-text-color, #31333f); }
.wb-legend span.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 4px; background: var(--c); vertical-align: -1px; }
.wb-legend .off { opacity: .4; text-decoration: line-through; }
.wb-box.marked { outline: 3px var(--ms, solid) var(--m); outline-offset: 2px; }
.wb-box.marked .wb-tag { background: var(--m); color: #111; }
.wb-legend span.ow { display: inline-block; width: 14px; height: 9px; margin-right: 4px;
  border: 2.5px var(--ms, solid) var(--m); vertical-align: -1px; }
"""

_JS = """
export default function(component) {
  const { data, parentElement, setTriggerValue } = component;
  const d = data || {};
  const host = parentElement;
  let st = host.__wb;
  if (!st) {
    st = host.__wb = { last: null };
    st.onDocClick = (ev) => {
      const cur = host.__wb;
      if (!cur.prefix || !ev.target || !ev.target.closest) return;
      const el = ev.target.closest('[class*="st-key-' + cur.prefix + '"]');
      if (!el) return;
      for (const cls of el.classList) {
        if (cls.startsWith('st-key-' + cur.prefix)) {
          const id = cur.ids[cls.slice(7 + cur.prefix.length)];
          if (id !== undefined) cur.send('select', id);
          return;
        }
      }
    };
    document.addEventListener('click', st.onDocClick, true);
    st.onKey = (ev) => {
      const cur = host.__wb;
      const t = ev.target;
      if (!cur || !cur.keys || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
        ev.preventDefault();
        cur.send('nav', ev.key === 'ArrowRight' ? 1 : -1);
      } else if (ev.key === 'Escape' && cur.selected) {
        cur.send('select', '');
      }
    };
    document.addEventListener('keydown', st.onKey);
  }
  st.keys = !!d.keys;
  st.selected = d.selected || null;
  st.prefix = d.block_prefix || null;
  st.ids = d.block_ids || {};
  st.send = setTriggerValue;

  let root = host.querySelector('.wb-root');
  if (!root) { root = document.createElement('div'); root.className = 'wb-root';
    host.appendChild(root); }
  root.textContent = '';
  const zoom = Number(d.zoom) > 1 ? Number(d.zoom) : 1;
  const scroller = document.createElement('div');
  scroller.className = 'wb-scroll' + (zoom > 1 ? ' zoomed' : '');
  const ov = document.createElement('div');
  ov.className = 'wb-ov' + (d.selected ? ' has-sel' : '') + (d.tags ? ' tags-all' : '');
  ov.style.setProperty('--z', String(zoom));
  ov.setAttribute('data-testid', 'wb-overlay');
  ov.setAttribute('data-key', d.key || '');
  const img = document.createElement('img');
  img.src = d.image; img.alt = d.alt || 'page'; img.draggable = false;
  ov.appendChild(img);
  const visible = new Set(d.visible || []);
  for (const r of d.regions || []) {
    if (!visible.has(r.label)) continue;
    const b = document.createElement('div');
    b.className = 'wb-box' + (r.id === d.selected ? ' sel' : '') + (r.y0 < 2.5 ? ' low' : '');
    b.style.setProperty('--c', r.color);
    b.style.left = r.x0 + '%'; b.style.top = r.y0 + '%';
    b.style.width = (r.x1 - r.x0) + '%'; b.style.height = (r.y1 - r.y0) + '%';
    b.title = r.tip; b.dataset.region = r.id; b.dataset.label = r.label;
    if (r.mark) {
      b.classList.add('marked');
      b.style.setProperty('--m', r.mark.color); b.style.setProperty('--ms', r.mark.style);
      b.dataset.mark = r.mark.note;
    }
    const tag = document.createElement('span');
    tag.className = 'wb-tag'; tag.textContent = r.tag;
    b.appendChild(tag);
    b.addEventListener('click', (ev) => {
      ev.stopPropagation();
      setTriggerValue('select', r.id === d.selected ? '' : r.id);
    });
    ov.appendChild(b);
  }
  scroller.appendChild(ov);
  root.appendChild(scroller);
  const lg = document.createElement('div');
  lg.className = 'wb-legend';
  for (const item of d.legend || []) {
    const s = document.createElement('span');
    if (!visible.has(item.label)) s.className = 'off';
    s.style.setProperty('--c', item.color);
    const sw = document.createElement('span'); sw.className = 'sw';
    s.appendChild(sw);
    s.appendChild(document.createTextNode(item.label + ' ' + item.count));
    lg.appendChild(s);
  }
  for (const item of d.outline_legend || []) {
    const s = document.createElement('span');
    s.style.setProperty('--m', item.color); s.style.setProperty('--ms', item.style);
    const sw = document.createElement('span'); sw.className = 'ow';
    s.appendChild(sw);
    s.appendChild(document.createTextNode(item.note + ' ' + item.count));
    lg.appendChild(s);
  }
  root.appendChild(lg);
  if (d.selected && d.selected !== st.last && st.prefix && d.scroll) {
    const safe = Object.keys(st.ids).find((k) => st.ids[k] === d.selected);
    const el = safe && document.querySelector('.st-key-' + st.prefix + safe);
    if (el) el.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }
  if (d.selected && d.selected !== st.last && zoom > 1) {  // bring the picked box into view
    const box = ov.querySelector('.wb-box.sel');
    if (box) box.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
  st.last = d.selected || null;
  return () => {
    document.removeEventListener('click', st.onDocClick, true);
    document.removeEventListener('keydown', st.onKey);
    host.__wb = null;
  };
}
"""

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


def set_selection(key: str, region_id: str | None) -> None:
    state.OVERLAY_SELECTED(key).set(region_id or None)


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
        with Image.open(io.BytesIO(image)) as probe:
            size, fmt = probe.size, (probe.format or "PNG").lower()
        return f"data:image/{fmt};base64,{base64.b64encode(image).decode()}", size
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=88)
    return f"data:image/jpeg;base64,{base64.b64encode(buf.getvalue()).decode()}", image.size


def _tip(region: Region) -> str:
    text = " ".join(region.text.split())
    head = f"{region.id} · {region.label}"
    if region.native_label and region.native_label != region.label:
        head += f" ({region.native_label})"
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
    ``zoom`` > 1 enlarges the page inside a scroll box; ``tags`` shows every box's label tag
    (otherwise only on hover and for the selected box, so tags never hide the text).
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
        "tags": bool(tags),
        "block_ids": {safe_id(r.id): r.id for r in regions},
        "legend": [
            {"label": label, "count": n, "color": color_for(label)}
            for label, n in sorted(counts.items(), key=lambda kv: -kv[1])
        ],
        "outline_legend": _outline_legend(marks.values()),
        "regions": [
            {
                "id": r.id,
                "label": str(r.label),
                "color": color_for(r.label),
                "tag": f"{r.order} {r.label}"
                + (f" · {marks[r.id]['note']}" if r.id in marks else ""),
                "tip": _tip(r) + (f"\n({marks[r.id]['note']})" if r.id in marks else ""),
                "mark": marks.get(r.id),
                "x0": round(100 * r.bbox.x0 / pw, 3),
                "y0": round(100 * r.bbox.y0 / ph, 3),
                "x1": round(100 * r.bbox.x1 / pw, 3),
                "y1": round(100 * r.bbox.y1 / ph, 3),
            }
            for r in located
            if r.bbox is not None
        ],
    }
    _mount()(
        key=key,
        data=payload,
        width=width if width else "stretch",
        on_select_change=lambda: _on_select(key),
        on_nav_change=lambda: _on_nav(key, on_arrow),
    )
    return selected
