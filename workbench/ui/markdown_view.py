"""The Markdown side of a page: sanitized rendering, per-region blocks linked to the overlay.

Model output is untrusted. Everything shown through ``st.markdown(unsafe_allow_html=True)``
goes through :func:`sanitize` first: the one policy of :mod:`workbench.markdown.sanitize`.
KaTeX and GFM tables are rendered by ``st.markdown`` itself.

Each region's text is its own container keyed by
:func:`workbench.ui.overlay.element.block_key`, so a click on the text selects the region's
box, and the selected block is outlined in its label colour. Figures are shown as a crop of
their region from the page image instead of a broken ``![Figure rN](page-NNNN-rN.png)`` link.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from functools import lru_cache

import streamlit as st
from PIL import Image

from workbench.evaluate.metrics import plain_text
from workbench.markdown.assemble import assemble_page
from workbench.markdown.sanitize import sanitize_markdown as sanitize
from workbench.schema import FURNITURE, Label, PageResult, Region
from workbench.ui.overlay.element import block_key, color_for

_FIGURE_LINK = re.compile(r"!\[Figure [^\]]*\]\(page-\d{4}-[^)]*\.png\)\s*")


def page_markdown(result: PageResult, include_furniture: bool) -> str:
    if include_furniture and result.regions:
        return assemble_page(result.regions, result.page, include_furniture=True)
    return result.markdown


def _crop(image_jpeg: bytes, page_size: tuple[int, int], region: Region) -> Image.Image | None:
    if region.bbox is None:
        return None
    with Image.open(io.BytesIO(image_jpeg)) as img:
        fx, fy = img.width / page_size[0], img.height / page_size[1]
        box = region.bbox.pixels(img.width, img.height, fx, fy)
        if box[2] - box[0] < 2 or box[3] - box[1] < 2:
            return None
        return img.crop(box).copy()


def _block_css(prefix: str, regions: Sequence[Region], selected: str | None) -> str:
    rules = [
        f'[class*="st-key-{prefix}"] {{ border-left: 3px solid #e3e6ea; padding: 2px 0 2px 10px;'
        " border-radius: 4px; cursor: pointer; gap: 0.25rem; }",
        f'[class*="st-key-{prefix}"]:hover {{ background: rgba(120,120,140,.07); }}',
        # Wide tables scroll inside their block instead of running out of the column.
        f'[class*="st-key-{prefix}"] table {{ display: block; overflow-x: auto;'
        " font-size: .85em; }",
    ]
    for r in regions:
        cls = f".st-key-{block_key(prefix, r.id)}"
        color = color_for(r.label)
        rules.append(f"{cls} {{ border-left-color: {color}; }}")
        if r.id == selected:
            rules.append(
                f"{cls} {{ background: color-mix(in srgb, {color} 14%, transparent);"
                f" outline: 2px solid {color}; outline-offset: 2px; }}"
            )
    return "<style>" + "\n".join(rules) + "</style>"


def render_blocks(
    result: PageResult,
    *,
    prefix: str,
    selected: str | None,
    include_furniture: bool,
    visible_labels: set[str] | None,
    image_jpeg: bytes | None,
) -> None:
    """The page as one container per region, in reading order."""
    regions = sorted(result.regions, key=lambda r: r.order)
    if not regions:
        if result.markdown.strip():
            st.markdown(sanitize(result.markdown), unsafe_allow_html=True)
        else:
            st.caption("No text on this page.")
        return
    shown = [
        r
        for r in regions
        if (include_furniture or r.label not in FURNITURE)
        and (visible_labels is None or r.label in visible_labels)
    ]
    # A selected region is shown even when filtered out, marked hidden (else a click on a
    # running-header box would show nothing).
    hidden_pick = selected not in {r.id for r in shown} and selected in {r.id for r in regions}
    if hidden_pick:
        shown = [r for r in regions if r in shown or r.id == selected]
    st.html(_block_css(prefix, shown, selected))
    for region in shown:
        with st.container(key=block_key(prefix, region.id)):
            if region.id == selected:
                why = ""
                if hidden_pick:
                    why = " · :orange-badge[hidden] " + (
                        "headers & footers are off"
                        if region.label in FURNITURE and not include_furniture
                        else "its label is switched off"
                    )
                st.caption(f"**{region.id} · {region.label}** ({region.native_label}){why}")
            if region.label is Label.FIGURE:
                crop = (
                    _crop(image_jpeg, (result.width, result.height), region) if image_jpeg else None
                )
                if crop is not None:
                    st.image(crop, caption=f"Figure {region.id}", width="content")
                else:
                    st.caption(f"[Figure {region.id}]")
                text = region.text.strip()
            else:
                text = assemble_page([region], result.page, include_furniture=True).strip()
            if text:
                st.markdown(sanitize(_FIGURE_LINK.sub("", text)), unsafe_allow_html=True)
            elif region.label is not Label.FIGURE:
                st.caption(f"[{region.label}: no text]")
    hidden = len(regions) - len(shown) + int(hidden_pick)
    if hidden:
        st.caption(f"{hidden} region(s) hidden (label filter or running headers/footers).")


def selected_markdown(result: PageResult, selected: str | None) -> None:
    """The Markdown of the selected region (as it stands in the page's Markdown), above the
    page's: a click on a box shows its source in the Markdown tab as in Rendered."""
    region = next((r for r in result.regions if r.id == selected), None)
    if region is None:
        return
    text = assemble_page([region], result.page, include_furniture=True).strip()
    st.caption(f"Selected **{region.id} · {region.label}**; the whole page below.")
    st.code(text or f"[{region.label}: no text]", language="markdown", wrap_lines=True)


def regions_json(result: PageResult) -> str:
    return json.dumps(result.model_dump(mode="json"), indent=2, ensure_ascii=False)


@lru_cache(maxsize=4096)  # the picker asks on every rerun, for every region of the page
def region_preview(text: str, chars: int) -> str:
    """One line of what a reader sees of a region's ``text``, at most ``chars`` long: a
    table's cells, not its HTML or pipes (the text itself is shown whole in the tabs)."""
    return " ".join(plain_text(text).split())[:chars]


def regions_table(result: PageResult) -> list[dict[str, object]]:
    return [
        {
            "id": r.id,
            "order": r.order,
            "label": str(r.label),
            "native": r.native_label,
            "bbox": "" if r.bbox is None else ", ".join(f"{v:.0f}" for v in r.bbox.as_list()),
            "chars": len(r.text),
            "text": region_preview(r.text, 80),
        }
        for r in sorted(result.regions, key=lambda r: r.order)
    ]
