"""The pages' shared kit (Viewer, Runs, Compare, Batch, the sidebar): the store location,
cached page reads, overlays, the label filter (:func:`label_pills`), and the seam to the
engine the sidebar selected.

Session state
-------------
``runs_store_dir``  the run store root for this session (default ``Settings.store_dir``);
                    the Runs page lets the user change it.
``open_run_id``, ``open_document``, ``open_page``
                    the run, document and 1-based page the viewer shows (read by the Runs
                    page's viewer and the app's viewer page).

Engines come from :mod:`workbench.ui.engines` (``use_engine``), which also holds the test
seams (``state.ENGINE_OVERRIDE``, ``WORKBENCH_ENGINE_FACTORY``). Keys: :mod:`workbench.ui.state`.

Coordinates: every region here is in ``page_px`` of the stored ``page-NNNN.png``; the overlay
gets a downscaled JPEG copy plus the stored image's size, and places boxes in percent of it.
"""

from __future__ import annotations

import dataclasses
import io
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import streamlit as st
from PIL import Image

from workbench.engines.base import Engine
from workbench.engines.factory import CpuOptions
from workbench.models.registry import ModelSpec
from workbench.pipeline.request import engine_spec
from workbench.runs.store import RunReader, RunStore
from workbench.schema import Region
from workbench.settings import Settings
from workbench.ui import engines, state
from workbench.ui.files import display_jpeg
from workbench.ui.overlay.element import (
    FIT_WIDTH,
    ZOOMS,
    Outline,
    render_page_overlay,
)

ONLY_HERE = "#ff00aa"  # region with no partner on the other side (dashed outline)
LABEL_DIFFERS = "#ffa000"  # partner found, but with another label (solid outline)


# ---------------------------------------------------------------- store


def store_dir() -> Path:
    if not state.RUNS_STORE_DIR.get():
        state.RUNS_STORE_DIR.set(str(Settings.from_env().store_dir))
    return Path(str(state.RUNS_STORE_DIR.get())).expanduser()


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
                state.RUNS_STORE_DIR.set(str(path))
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

DISPLAY_WIDTH = 1100  # px of the display copy at Fit and 1.5×; a sharper copy when zoomed more
ZOOM_WIDTH = 1800


def zoom_control(key: str) -> float:
    """A Fit width/Fit height/1.5×/2×/3× switch (its label hidden); the chosen zoom value
    (:data:`~workbench.ui.overlay.element.FIT_HEIGHT` for fit height)."""
    st.segmented_control(
        "Zoom",
        list(ZOOMS),
        key=key,
        default=FIT_WIDTH,
        required=True,
        label_visibility="collapsed",
        help="Fit width: the page fills its column. Fit height: the whole page in the window. "
        "1.5×-3×: enlarged, it scrolls inside its box.",
    )
    return ZOOMS.get(str(state.WIDGET(key).get() or FIT_WIDTH), 1.0)


@st.cache_data(max_entries=64, show_spinner=False)
def _display_jpeg(path: str, mtime: float, width: int) -> tuple[bytes, tuple[int, int]]:
    with Image.open(path) as im:
        return display_jpeg(im, width), im.size


def show_page(
    reader: RunReader,
    doc: str,
    page: int,
    regions: Sequence[Region],
    visible: Iterable[str] | None,
    key: str,
    *,
    zoom: float = 1.0,
    tags: bool = False,
    alt: str | None = None,
    outlines: Mapping[str, Outline] | None = None,
) -> str | None:
    """The stored page with its regions in the interactive overlay (tags outside the boxes,
    hover/select, zoom); the selected region id. A missing image is shown as a warning."""
    path = reader.image_path(doc, page)
    try:
        jpeg, size = _display_jpeg(str(path), path.stat().st_mtime, _width_for(zoom))
    except OSError:
        st.warning("The page image is missing from the run folder.")
        return None
    return render_page_overlay(
        jpeg,
        regions,
        None if visible is None else list(visible),
        None,
        key=key,
        page_size=size,
        zoom=zoom,
        tags=tags,
        alt=alt,
        outlines=outlines,
    )


def label_pills(
    labels: Sequence[str],
    counts: Mapping[str, int],
    slot: Any,
    hidden: set[str],
    *,
    wrap: bool | None = None,
) -> list[str]:
    """The label filter over a page's boxes: one pill per label with its count, all on but
    those in ``hidden``; ``slot`` is the widget's typed state key (:mod:`workbench.ui.state`)
    and ``hidden`` the labels the user turned off, kept where the caller keeps them (per run,
    per Viewer session), updated as pills are toggled; ``wrap`` as :func:`st.pills` takes it.
    Returns the labels switched on."""
    if not slot.present():
        slot.set([lab for lab in labels if lab not in hidden])

    def changed() -> None:
        shown = set(slot.get() or [])
        hidden.difference_update(shown)
        hidden.update(set(labels) - shown)

    picked = st.pills(
        "Labels",
        list(labels),
        selection_mode="multi",
        key=slot.key,
        format_func=lambda lab: f"{lab} {counts[lab]}",
        on_change=changed,
        label_visibility="collapsed",
        wrap=wrap,
    )
    return list(picked or [])


def _width_for(zoom: float) -> int:
    return ZOOM_WIDTH if zoom >= 2 else DISPLAY_WIDTH


# ---------------------------------------------------------------- engine seam


EngineFactory = Callable[[], tuple[Engine, ModelSpec]]


CPU_ENGINE = "Embedded CPU engine"


def run_choices(cpu: CpuOptions | None = None) -> dict[str, engines.EngineChoice]:
    """Engines a user can start a run with here, by name, as the sidebar's choices: each
    opens its engine (:func:`open_choice`) and states its run request (``choice.request``: the
    DPI, profile and settings a run records). ``cpu`` the embedded engine's settings (default:
    the sidebar's, else the defaults), so the same settings reuse the engine the sidebar
    already loaded."""
    choices: dict[str, engines.EngineChoice] = {}
    sidebar = _sidebar_choice()
    if sidebar is not None and sidebar.kind != "cpu":
        choices[f"Sidebar engine ({sidebar.kind})"] = sidebar
    choices[CPU_ENGINE] = engines.EngineChoice("cpu", cpu or sidebar_cpu_options())
    return choices


def engine_choices(cpu: CpuOptions | None = None) -> dict[str, EngineFactory]:
    """:func:`run_choices` as factories of an engine and its spec (:func:`open_choice`).

    The test seams (``state.ENGINE_OVERRIDE``, ``WORKBENCH_ENGINE_FACTORY``) are honoured
    by ``engines.use_engine`` itself; then every choice gives that engine.
    """
    return {name: _factory(choice) for name, choice in run_choices(cpu).items()}


def open_choice(choice: engines.EngineChoice) -> tuple[Engine, ModelSpec]:
    """The engine ``choice`` names, through :mod:`workbench.ui.engines`, and its spec."""
    engine = engines.use_engine(choice)
    return engine, engine_spec(engine)


def follow_sidebar(box: state.Slot[str], seen: state.Slot[str], choices: Iterable[str]) -> None:
    """Before an engine selectbox keyed ``box`` is drawn: when the first of ``choices`` (the
    sidebar's engine, see :func:`engine_choices`) changed since ``seen``, the box takes it. A
    box keeps its value while it stays an option, so picking "vLLM server" in the sidebar with
    the page open left it on the CPU engine; a choice made in the box itself is kept."""
    first = next(iter(choices))
    if seen.get() != first:
        seen.set(first)
        box.set(first)


def sidebar_cpu_options() -> CpuOptions:
    """The CPU engine settings the sidebar picked (the defaults when it picked another kind)."""
    sidebar = _sidebar_choice()
    if sidebar is not None and isinstance(sidebar.options, CpuOptions):
        return sidebar.options
    return CpuOptions()


def cpu_settings(
    prefix: str, start: CpuOptions | None = None, *, stacked: bool = False
) -> CpuOptions:
    """One widget per :class:`CpuOptions` field (a choice list, a switch or a number, from
    the field's type), starting at ``start``; the options the user set. Widget keys are
    ``prefix + field name``. ``stacked``: one under the other, full width (the sidebar: five
    columns there were 13-26 px each, labels broken letter by letter, "2" shown for 200)."""
    base = start or sidebar_cpu_options()
    hints = typing.get_type_hints(CpuOptions)
    values: dict[str, Any] = {}
    shown = [f for f in dataclasses.fields(CpuOptions) if f.name != "kind"]
    cols: list[Any] = (
        [st.container() for _ in shown] if stacked else list(st.columns(max(len(shown), 1)))
    )
    for col, f in zip(cols, shown, strict=False):
        now, hint, label = getattr(base, f.name), hints[f.name], f.name.replace("_", " ")
        key = prefix + f.name
        if typing.get_origin(hint) is typing.Literal:
            options = list(typing.get_args(hint))
            values[f.name] = col.selectbox(label, options, index=options.index(now), key=key)
        elif hint is bool:
            values[f.name] = col.toggle(label, value=bool(now), key=key)
        elif hint in (int, float):
            values[f.name] = hint(col.number_input(label, value=now, key=key))
    return dataclasses.replace(base, **values)


def _factory(choice: engines.EngineChoice) -> EngineFactory:
    return lambda: open_choice(choice)


def _sidebar_choice() -> Any:
    """The EngineChoice the sidebar picked for this session (None when none is usable)."""
    try:
        return engines.current_choice()
    except Exception:  # a half-configured sidebar must not break the Runs page
        return None
