"""The viewer page: drop documents, process them, and read each page's layout and Markdown.

Flow of one script run: inputs -> ask the background worker for the selected pages, the
page on screen first (:mod:`workbench.ui.viewer.live`, :mod:`workbench.ui.jobs.worker`; the run
never waits for the engine) -> pager over every (file, page) pair -> the page as the result cache
has it: overlay on the left, Markdown on the right -> downloads -> while pages are pending, a
progress bar above the pager that polls and reruns when the page on screen or the last page
is done. A click is answered at once; it moves the worker to the page then on screen after
the page in progress (kept in the cache and the run). Only pages missing from the cache
reach the engine, so navigation, label toggles and selection never recompute OCR or
rasterization (see files.py and results.py).

Session state (:mod:`workbench.ui.state`, ``VIEWER_*``): ``VIEWER_POS`` is the 0-based index
into the (file, page) list, clamped every run; ``VIEWER_HIDDEN`` the labels switched off.
"""

from __future__ import annotations

import io

import pandas as pd
import streamlit as st
from PIL import Image

from workbench.engines.base import Engine
from workbench.errors import DocumentError, WorkbenchError
from workbench.markdown.display import bound_page
from workbench.models.registry import CPU_SPEC, ModelSpec
from workbench.pipeline.request import engine_spec
from workbench.schema import PageResult
from workbench.ui import engines, state, workset
from workbench.ui import files as ui_files
from workbench.ui import markdown_view as mv
from workbench.ui.inputs import Selected, input_widgets, select_pages
from workbench.ui.jobs.records import PageWord
from workbench.ui.kit import label_pills
from workbench.ui.overlay.element import (
    FIT_WIDTH,
    ZOOMS,
    get_selection,
    render_page_overlay,
    set_selection,
)
from workbench.ui.page_facts import show_stats, widen_main
from workbench.ui.results import results
from workbench.ui.sidebar import server_lost, show_description
from workbench.ui.viewer import live as viewer_live
from workbench.ui.viewer import runs as viewer_runs
from workbench.ui.viewer.downloads import downloads

TAB_HEIGHT = 700  # px of the Markdown / Regions JSON / Raw output tabs (they scroll inside)
DISPLAY_WIDTH = 1100  # px of the display image at "Fit" and 1.5×; sharper copy when zoomed more
ZOOM_WIDTH = 1800


def _load_engine() -> tuple[Engine | None, ModelSpec, str]:
    """The session's engine, its spec and its OCR-cache key; None when it cannot run."""
    choice = engines.current_choice()
    if not engines.overridden() and choice is None:
        st.info("The engine picked in the sidebar is not configured yet; pages show without OCR.")
        return None, CPU_SPEC, ""
    choice = choice or engines.EngineChoice("cpu")
    try:
        engine = engines.use_engine(choice)
        return engine, engine_spec(engine), engines.engine_key(engine, choice)
    except WorkbenchError as exc:
        st.error(f"Engine not available: {exc}", icon=":material/memory:")
    except Exception as exc:  # a broken engine must not take the page down
        st.error(f"Engine failed to start ({type(exc).__name__}: {exc})", icon=":material/memory:")
    return None, CPU_SPEC, ""


def _step(step: int) -> None:
    """Arrow-key navigation from the overlay: one page back or on, never out of 1..N."""
    n = state.VIEWER_COUNT.get()
    state.VIEWER_POS.set(min(max(state.VIEWER_POS.get() + step, 0), n - 1))


def _pager(items: list[tuple[Selected, int]]) -> int:
    """Prev/next, file picker and a global 1-based page number; returns the 0-based index."""
    n = len(items)
    state.VIEWER_COUNT.set(n)
    pos = min(max(state.VIEWER_POS.get(), 0), n - 1)
    state.VIEWER_POS.set(pos)
    names = list(dict.fromkeys(s.file.name for s, _ in items))
    first = {
        name: next(i for i, (s, _) in enumerate(items) if s.file.name == name) for name in names
    }

    def go(to: int) -> None:
        """A move the user asked for. A change reported with a poll is none: the pager is
        outside the polling fragment, so a pick in it reruns the whole page, and a poll that
        left before a move was drawn carries the fields' old values (Streamlit answers any
        changed value with its callback). Taken, the page went back (a CI run of 77e74f2:
        back from Compare the Viewer showed page 1, not 2). Buttons never come with a poll."""
        if not state.fragment_run():
            state.VIEWER_POS.set(min(max(to, 0), n - 1))

    state.VIEWER_PAGE_INPUT.set(pos + 1)
    state.VIEWER_FILE_INPUT.set(items[pos][0].file.name)
    c = st.columns([1, 4, 2, 1], vertical_alignment="bottom")
    c[0].button(
        "◀ Prev",
        key=state.VIEWER_PREV.key,
        disabled=pos == 0,
        on_click=go,
        args=(pos - 1,),
        width="stretch",
    )
    c[1].selectbox(
        "File",
        names,
        key=state.VIEWER_FILE_INPUT.key,
        on_change=lambda: go(first[str(state.VIEWER_FILE_INPUT.get())]),
    )
    c[2].number_input(
        f"Page (of {n})" if len(names) == 1 else f"Page (of {n}, all {len(names)} files)",
        min_value=1,
        max_value=n,
        step=1,
        key=state.VIEWER_PAGE_INPUT.key,
        on_change=lambda: go(int(state.VIEWER_PAGE_INPUT.get()) - 1),
    )
    c[3].button(
        "Next ▶",
        key=state.VIEWER_NEXT.key,
        disabled=pos >= n - 1,
        on_click=go,
        args=(pos + 1,),
        width="stretch",
    )
    return pos


def _label_filter(result: PageResult, pos: int) -> set[str] | None:
    """The labels switched on for this page (None: the page has no regions to filter)."""
    counts: dict[str, int] = {}
    for r in result.regions:
        counts[str(r.label)] = counts.get(str(r.label), 0) + 1
    if not counts:
        return None
    hidden = state.VIEWER_HIDDEN.setdefault()
    options = sorted(counts, key=lambda lab: -counts[lab])
    return set(label_pills(options, counts, state.VIEWER_LABELS(pos), hidden, wrap=True))


def _region_picker(result: PageResult, ov_key: str, selected: str | None) -> None:
    ids = [r.id for r in sorted(result.regions, key=lambda r: r.order)]
    if not ids:
        return
    by_id = {r.id: r for r in result.regions}
    pick = state.OVERLAY_PICK(ov_key)
    pick.set(selected if selected in by_id else None)
    st.selectbox(
        "Selected region",
        ids,
        key=pick.key,
        index=None,
        placeholder="Pick a region, or click a box",
        format_func=lambda i: f"{i} · {by_id[i].label} · {mv.region_preview(by_id[i].text, 60)}",
        on_change=lambda: set_selection(ov_key, pick.get(), scroll=True),
        label_visibility="collapsed",
        width=240,  # beside the Headers & footers toggle in a half-width column at 1400 px
    )


@st.cache_data(max_entries=32, show_spinner=False)
def _turned(jpeg: bytes, degrees: int) -> bytes:
    """The display image turned counter-clockwise like the pipeline turned the page."""
    out = io.BytesIO()
    Image.open(io.BytesIO(jpeg)).rotate(degrees, expand=True).save(out, "JPEG", quality=88)
    return out.getvalue()


def _page_view(
    sel: Selected,
    page: int,
    result: PageResult | None,
    spec: ModelSpec,
    pos: int,
    ekey: str,
    pending: str = PageWord.NOT_PROCESSED,  # the badge of a page with no result yet
) -> None:
    f, doc = sel.file, sel.file.doc
    assert doc is not None
    dpi = engines.dpi_for(spec)
    zoom = ZOOMS.get(str(state.VIEWER_ZOOM.get() or FIT_WIDTH), 1.0)
    width = ZOOM_WIDTH if zoom >= 2 else DISPLAY_WIDTH
    try:
        jpeg = ui_files.display_image(f.sha256, f.name, page, dpi, spec.sizing, width, doc)
    except DocumentError as exc:  # this page cannot be read (a bad TIFF frame): this page only
        show_stats(f.name, page, doc.page_count, result, pending)
        st.error(str(exc), icon=":material/broken_image:")
        return
    if result is not None and result.rotation:
        jpeg = _turned(jpeg, result.rotation)  # the boxes are on the page as the model re-read it
    show_stats(f.name, page, doc.page_count, result, pending)
    if result is not None and result.error and ekey:
        viewer_live.retry_button(f.sha256, page, ekey)
    ov_key, prefix = state.VIEWER_OVERLAY(pos).key, f"wbblk-{pos}-"
    if result is None:
        st.image(jpeg, caption=f"{f.name} page {page}", width="stretch")
        return
    shown = bound_page(result)  # a 5 MB answer must not stall the tab; downloads keep it all
    result = shown.result
    if shown.note:
        st.info(shown.note, icon=":material/content_cut:")
    visible = _label_filter(result, pos)
    left, right = st.columns([3, 2], gap="medium")  # the page is what is read
    with left:
        chosen = _page_column(jpeg, result, visible, ov_key, prefix, zoom)
    with right:
        _text_column(f, page, ekey, result, jpeg, visible, ov_key, prefix, chosen)


def _page_column(
    jpeg: bytes, result: PageResult, visible: set[str] | None, ov_key: str, prefix: str,
    zoom: float,
) -> str | None:  # fmt: skip
    """The page with its boxes and its controls (zoom, label tags); the box clicked, if any."""
    # Flowing rows: on a narrow screen the controls wrap instead of being clipped.
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        st.segmented_control(
            "Zoom",
            list(ZOOMS),
            key=state.VIEWER_ZOOM.key,
            default=FIT_WIDTH,
            required=True,
            label_visibility="collapsed",
            help="Fit width: the page fills its column. Fit height: the whole page in the "
            "window. 1.5×-3×: enlarged, it scrolls inside its box.",
        )
        st.toggle(
            "All label tags",
            key=state.VIEWER_TAGS.key,
            width="content",
            help="Show every box's label. Off: a box's label shows when you point at it or "
            "select it, so tags never hide the text on dense pages.",
        )
    return render_page_overlay(
        jpeg,
        result.regions,
        visible,
        None,
        ov_key,
        page_size=(result.width, result.height),
        block_prefix=prefix,
        on_arrow=_step,
        zoom=zoom,
        tags=state.VIEWER_TAGS.get(),
    )


def _text_column(
    f: ui_files.LoadedFile, page: int, ekey: str, result: PageResult, jpeg: bytes,
    visible: set[str] | None, ov_key: str, prefix: str, chosen: str | None,
) -> None:  # fmt: skip
    """The page's text beside it: the region picker, then Rendered, Markdown, JSON and Raw."""
    with st.container(horizontal=True, vertical_alignment="center", gap="medium"):
        _region_picker(result, ov_key, chosen)
        furniture = st.toggle(
            "Headers & footers",
            key=state.VIEWER_FURNITURE.key,
            width="content",
            help="Page headers, footers and page numbers are always kept as regions; this "
            "also puts them into the Markdown and the downloads.",
        )
    # Short names: at 1100 px "Regions JSON" and "Raw output" pushed the last tab out of view.
    tabs = st.tabs(["Rendered", "Markdown", "JSON", "Raw"])
    with tabs[0], st.container(height=900, border=False):
        mv.render_blocks(
            result,
            prefix=prefix,
            selected=get_selection(ov_key) or chosen,
            include_furniture=furniture,
            visible_labels=visible,
            image_jpeg=jpeg,
        )
    # Each tab scrolls inside a bounded box: a long page's JSON ran thousands of pixels.
    with tabs[1]:  # the selection follows here too: its Markdown first, then the page's
        mv.selected_markdown(result, get_selection(ov_key) or chosen)
        md = mv.page_markdown(result, furniture) or "(empty)"
        st.code(md, language="markdown", height=TAB_HEIGHT, wrap_lines=True)
    with tabs[2]:
        table, dumped = _regions_tab((f.sha256, page, ekey, id(result)), result)
        st.dataframe(table, hide_index=True, height=260)
        st.code(dumped, language="json", height=TAB_HEIGHT - 280)
    with tabs[3]:
        raw = result.raw or "(no raw output)"
        st.code(raw, language="text", wrap_lines=True, height=TAB_HEIGHT)


@st.cache_data(max_entries=16, show_spinner=False)
def _regions_tab(key: tuple[object, ...], _result: PageResult) -> tuple[pd.DataFrame, str]:
    """The Regions JSON tab's table and JSON of one result (``key`` names it: document, page,
    engine key and the result object, which a retried page replaces), built once, not on
    every rerun (a hidden tab is drawn all the same)."""
    return pd.DataFrame(mv.regions_table(_result)), mv.regions_json(_result)


def _show_added(items: list[tuple[Selected, int]]) -> None:
    """A file just added (dropped, or a sample picked) is shown: the pager goes to its first
    page (it went on showing the page it was on, the new file out of sight)."""
    shas = list(dict.fromkeys(s.file.sha256 for s, _ in items))
    seen = state.VIEWER_FILES_SEEN.get()
    new = [sha for sha in shas if sha not in seen]
    state.VIEWER_FILES_SEEN.set(shas)
    if seen and new:
        state.VIEWER_POS.set(next(i for i, (s, _) in enumerate(items) if s.file.sha256 == new[0]))


def _failed(items: list[tuple[Selected, int]], ekey: str) -> int:
    """How many of the selected pages the result cache holds as failed."""
    cache = results()
    return sum(
        1 for s, p in items if (r := cache.get(s.file.sha256, p, ekey)) is not None and r.error
    )


def viewer_page() -> None:
    widen_main()
    st.title("Viewer")
    st.caption(
        "Drop scans or PDFs: each page's layout regions over the image, its Markdown beside. "
        "Click a box to find its text, or the text to find its box."
    )
    files, spec_text = input_widgets()
    ui_files.refused(files)
    selected, warnings = select_pages(files, spec_text)
    for w in warnings:
        st.warning(w, icon=":material/warning:")
    if not selected:
        if not files:
            st.info(
                "Drop one or more PDFs or images above, or pick a sample, to see each "
                "page's layout regions and Markdown.",
                icon=":material/upload_file:",
            )
        return
    said = st.empty()  # a server that stopped answering is said here, above the pages
    engine, spec, ekey = _load_engine()
    show_description(engines.current_choice())
    items = [(s, p) for s in selected for p in s.pages]
    _show_added(items)
    progress = None
    if engine is not None:  # the worker takes the page on screen first, then the rest
        here = min(max(state.VIEWER_POS.get(), 0), len(items) - 1)
        cur, cur_page = items[here]
        progress = viewer_live.ask(selected, engine, spec, ekey, (cur.file.sha256, cur_page))
    slot = st.container()  # the progress of the pages being processed shows here
    lost = None
    if engine is not None:
        failed = _failed(items, ekey) + (progress.failed if progress else 0)
        lost = server_lost(recheck=failed > state.VIEWER_SEEN_FAILED.get())  # new failures
        state.VIEWER_SEEN_FAILED.set(failed)
        if lost:  # said once: the pages below keep what is done
            said.warning(lost, icon=":material/cloud_off:")
        with slot:
            viewer_live.failed_row(failed)
    pos = _pager(items)
    workset.show_position(pos)
    sel, page = items[pos]
    result = results().get(sel.file.sha256, page, ekey) if engine else None
    # The badge says what the status line says (no seconds: the status line counts them live;
    # the poller redraws the page when the word changes).
    word = progress.word(sel.file.sha256, page, sel.file.name) if progress else None
    badge = word or PageWord.NOT_PROCESSED
    _page_view(sel, page, result, spec, pos, ekey, badge)
    st.divider()
    downloads(sel, result, ekey, furniture=state.VIEWER_FURNITURE.get())
    viewer_runs.saved_caption(sel.file.sha256, ekey)
    if progress is not None:  # polls while pages are pending; reruns when they are ready
        with slot:
            drawn = None if result is not None else badge
            focus = (sel.file.sha256, page, ekey)
            viewer_live.show(progress, focus, pos, drawn, sel.file.name, lost_said=bool(lost))
