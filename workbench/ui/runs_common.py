"""Shared pieces of the Runs and Compare pages: the store location, cached page reads,
overlays, safe Markdown, and the seam to the engine the sidebar selected.

Session state
-------------
``runs_store_dir``  the run store root for this session (default ``Settings.store_dir``);
                    the Runs page lets the user change it.
``open_run_id``, ``open_document``, ``open_page``
                    the run, document and 1-based page the viewer shows (read by the Runs
                    page's viewer and the app's viewer page).

Engines come from :mod:`workbench.ui.resources` (``use_engine``), which also holds the test
seam (``engine_override`` in session state, ``WORKBENCH_FAKE_ENGINE``).

Coordinates: every region here is in ``page_px`` of the stored ``page-NNNN.png``; overlays
scale boxes by ``width / image.width`` only for drawing.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st
from PIL import Image, ImageDraw, ImageFont

from workbench.engines.base import Engine
from workbench.schema import Region
from workbench.settings import Settings
from workbench.specs import ModelSpec
from workbench.store import RunReader, RunStore
from workbench.ui import resources
from workbench.ui.markdown_view import sanitize
from workbench.ui.overlay import LABEL_COLORS, render_page_overlay

STORE_KEY = "runs_store_dir"

ONLY_HERE = "#ff00aa"  # region with no partner on the other side
LABEL_DIFFERS = "#ffa000"  # partner found, but with another label


def label_colors() -> dict[str, str]:
    return {str(k): v for k, v in LABEL_COLORS.items()}


#: Model text made safe for ``st.markdown(unsafe_allow_html=True)`` (the viewer's nh3 rules).
safe_html = sanitize


# ---------------------------------------------------------------- store


def store_dir() -> Path:
    if STORE_KEY not in st.session_state:
        st.session_state[STORE_KEY] = str(Settings.from_env().store_dir)
    return Path(st.session_state[STORE_KEY]).expanduser()


def get_store() -> RunStore:
    return RunStore(store_dir())


def store_location_widget() -> None:
    """Show the store folder and let the user point this session at another one."""
    current = str(store_dir())
    with st.expander(f"Run store: `{current}`", expanded=False):
        new = st.text_input("Store folder (on the server)", value=current, key="runs_store_input")
        if st.button("Use this folder", key="runs_store_apply") and new.strip() != current:
            path = Path(new.strip()).expanduser()
            if path.exists() and not path.is_dir():
                st.error(f"{path} is a file, not a folder.")
            else:
                st.session_state[STORE_KEY] = str(path)
                st.rerun()
        st.caption("Set WORKBENCH_STORE_DIR to change the default for every session.")


def open_reader(run_id: str) -> RunReader | None:
    """The run, or None after showing why it cannot be read."""
    try:
        return get_store().open(run_id)
    except Exception as exc:  # a bad run must not take the page down
        st.error(f"Cannot open run {run_id}: {exc}")
        return None


@st.cache_data(max_entries=64, show_spinner=False)
def _image_bytes(path: str, mtime: float) -> bytes:
    return Path(path).read_bytes()


def page_image(reader: RunReader, doc: str, page: int) -> Image.Image | None:
    path = reader.image_path(doc, page)
    if not path.exists():
        return None
    try:
        data = _image_bytes(str(path), path.stat().st_mtime)
        with Image.open(io.BytesIO(data)) as im:
            im.load()
            return im.convert("RGB")
    except OSError:
        return None


# ---------------------------------------------------------------- overlays


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # very old Pillow
        return ImageFont.load_default()


def draw_overlay(
    image: Image.Image,
    regions: Sequence[Region],
    width: int,
    visible: Iterable[str] | None = None,
    marks: dict[str, str] | None = None,
) -> Image.Image:
    """The page scaled to ``width`` with its regions outlined and labelled.

    ``marks`` maps region id -> colour for regions to outline thick (disagreements).
    """
    colors = label_colors()
    shown = set(visible) if visible is not None else None
    s = width / image.width
    out = image.convert("RGB").resize(
        (width, max(1, round(image.height * s))), Image.Resampling.LANCZOS
    )
    draw = ImageDraw.Draw(out, "RGBA")
    font = _font(max(10, round(13 * max(s, 0.6))))
    for region in regions:
        if region.bbox is None or (shown is not None and region.label.value not in shown):
            continue
        b = region.bbox
        box = (b.x0 * s, b.y0 * s, b.x1 * s, b.y1 * s)
        color = colors.get(region.label.value, "#1c7ed6")
        draw.rectangle(box, outline=color, width=2)
        mark = (marks or {}).get(region.id)
        if mark:
            draw.rectangle((box[0] - 3, box[1] - 3, box[2] + 3, box[3] + 3), outline=mark, width=4)
        tag = region.label.value + (" !" if mark else "")
        tw = draw.textlength(tag, font=font)
        y = max(0.0, box[1] - font.size - 4) if hasattr(font, "size") else box[1]
        draw.rectangle((box[0], y, box[0] + tw + 6, y + 15), fill=mark or color)
        draw.text((box[0] + 3, y), tag, fill="white", font=font)
    return out


def show_overlay(
    image: Image.Image,
    regions: Sequence[Region],
    width: int,
    visible: Iterable[str] | None,
    caption: str,
    marks: dict[str, str] | None = None,
) -> None:
    """Draw the page with its regions (PIL, so disagreement marks can be added) and show it."""
    picture = draw_overlay(image, regions, width, visible, marks)
    st.image(picture, caption=caption, width=width)


def show_interactive(
    image: Image.Image, regions: Sequence[Region], width: int, visible: Iterable[str], key: str
) -> None:
    """The app's clickable overlay (workbench.ui.overlay)."""
    render_page_overlay(image, regions, list(visible), None, key=key, width=width)


# ---------------------------------------------------------------- engine seam


EngineFactory = Callable[[], tuple[Engine, ModelSpec]]


def engine_choices() -> dict[str, EngineFactory]:
    """Engines a user can start a run with here, through :mod:`workbench.ui.resources`.

    The test override (``engine_override`` in session state, or ``WORKBENCH_FAKE_ENGINE``)
    is honoured by ``resources.use_engine`` itself; then every choice gives that engine.
    """
    choices: dict[str, EngineFactory] = {}
    sidebar = _sidebar_choice()
    if sidebar is not None and sidebar.kind != "cpu":
        choices[f"Sidebar engine ({sidebar.kind})"] = _factory(sidebar)
    choices["Embedded CPU engine"] = _factory(resources.EngineChoice("cpu"))
    return choices


def _factory(choice: Any) -> EngineFactory:
    def build() -> tuple[Engine, ModelSpec]:
        engine = resources.use_engine(choice)
        return engine, resources.spec_for(engine)

    return build


def _sidebar_choice() -> Any:
    """The EngineChoice the sidebar picked for this session (None when none is usable)."""
    try:
        return resources.current_choice()
    except Exception:  # a half-configured sidebar must not break the Runs page
        return None
