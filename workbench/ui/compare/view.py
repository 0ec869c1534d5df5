"""The Compare page: two runs of one document side by side.

Synchronised controls: ONE set of widgets in session state drives both sides --
``cmp_page`` (1-based page), ``cmp_zoom`` (Fit/1.5×/2×/3×), ``cmp_labels`` (visible labels)
and ``cmp_tags`` (every label tag shown). Each side's Prev/Next buttons move that shared page,
so the other side follows. Both sides use the interactive overlay
(:mod:`workbench.ui.overlay.element`); selecting a box on one side selects its matched
partner on the other.

Run B is any other run holding the same document (same sha256, else same name). When there
is none, "Start the missing run" runs another engine on run A's stored page images (the very
``page_px`` images A saw) into a new run. Disagreements come from
``evaluate.compare.align_regions``: regions on one side only are outlined magenta (dashed),
matched regions with another label orange (solid), and both are listed. Text diff, metrics and the
chart are in :mod:`workbench.ui.compare.metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd
import streamlit as st

from workbench.errors import WorkbenchError
from workbench.evaluate.compare import Alignment, align_regions
from workbench.pipeline.request import run_info
from workbench.pipeline.runner import RunJob
from workbench.runs.store import RunReader, RunStore
from workbench.schema import DocumentInfo, PageImage, PageResult, Region
from workbench.ui import editor, state
from workbench.ui.compare import metrics as compare_metrics
from workbench.ui.compare import parts as compare_parts
from workbench.ui.kit import (
    CPU_ENGINE,
    LABEL_DIFFERS,
    ONLY_HERE,
    cpu_settings,
    engine_choices,
    follow_sidebar,
    get_store,
    open_reader,
    page_image,
    show_page,
    store_location_widget,
    zoom_control,
)
from workbench.ui.overlay.element import Outline, get_selection, set_selection
from workbench.ui.page_facts import widen_main

PAGE, ZOOM = state.CMP_PAGE.key, state.CMP_ZOOM.key  # widget keys
LABELS, TAGS = state.CMP_LABELS.key, state.CMP_TAGS.key
OVERLAY = state.CMP_OVERLAY  # + side: the overlay's key (its selection lives under selection_key)
RUN_A, RUN_B, DOC = state.CMP_RUN_A.key, state.CMP_RUN_B.key, state.CMP_DOC.key


def same_document(reader: RunReader, doc: str, other: RunReader) -> str | None:
    """The name of ``doc`` in ``other``: the same sha256; the same name only where a side
    does not know the content (older runs) -- a different document is never "the same"."""
    mine = next((d for d in reader.info.documents if d.name == doc), None)
    if mine is not None and mine.sha256:
        for d in other.info.documents:
            if d.sha256 == mine.sha256 and d.name in other.documents:
                return d.name
    if doc not in other.documents:
        return None
    theirs = next((d for d in other.info.documents if d.name == doc), None)
    known = mine is not None and mine.sha256 and theirs is not None and theirs.sha256
    return None if known else doc


def _step(delta: int, pages: list[int]) -> None:
    current = int(state.CMP_PAGE.get() or pages[0])
    i = pages.index(current) if current in pages else 0
    state.CMP_PAGE.set(pages[max(0, min(len(pages) - 1, i + delta))])


def layer_result(reader: RunReader, doc: str, page: int, corrected: bool) -> PageResult | None:
    """The page's result, its regions replaced by the corrected layer when asked and present."""
    try:
        stored = reader.stored(doc, page)
    except WorkbenchError:
        return None
    if corrected and stored.corrected is not None:
        return stored.result.model_copy(update={"regions": stored.corrected})
    return stored.result


def marks(alignment: Alignment) -> tuple[dict[str, Outline], dict[str, Outline]]:
    """Outlines per side: dashed magenta on one side only, solid orange for another label."""
    left = {r.id: Outline(ONLY_HERE, "dashed", "only in A") for r in alignment.left_only}
    right = {r.id: Outline(ONLY_HERE, "dashed", "only in B") for r in alignment.right_only}
    for m in alignment.label_mismatches:
        left[m.left.id] = Outline(LABEL_DIFFERS, "solid", "other label in B")
        right[m.right.id] = Outline(LABEL_DIFFERS, "solid", "other label in A")
    return left, right


def sync_selection(alignment: Alignment) -> None:
    """A box newly selected on one side selects its matched partner on the other (or clears
    the other side's selection when it has none)."""
    partners = {"A": {m.left.id: m.right.id for m in alignment.matched}}
    partners["B"] = {m.right.id: m.left.id for m in alignment.matched}
    now = {side: get_selection(OVERLAY + side) for side in "AB"}
    for side, other in (("A", "B"), ("B", "A")):
        if now[side] != state.CMP_SEEN(side).get():
            now[other] = partners[side].get(now[side] or "")
            set_selection(OVERLAY + other, now[other])
            break
    for side in "AB":
        state.CMP_SEEN(side).set(now[side])


def disagreements_frame(alignment: Alignment) -> pd.DataFrame:
    def box(r: Region) -> str:
        return "—" if r.bbox is None else ", ".join(f"{v:.0f}" for v in r.bbox.as_list())

    rows: list[dict[str, object]] = [
        {"what": "only in A", "A": f"{r.id} {r.label.value}", "B": "", "box": box(r), "IoU": "—"}
        for r in alignment.left_only
    ]
    rows += [
        {"what": "only in B", "A": "", "B": f"{r.id} {r.label.value}", "box": box(r), "IoU": "—"}
        for r in alignment.right_only
    ]
    rows += [
        {
            "what": "label differs",
            "A": f"{m.left.id} {m.left.label.value}",
            "B": f"{m.right.id} {m.right.label.value}",
            "box": box(m.left),
            "IoU": f"{m.iou:.2f}",  # text: a region on one side only has none ("—")
        }
        for m in alignment.label_mismatches
    ]
    return pd.DataFrame(rows, columns=["what", "A", "B", "box", "IoU"])


def render() -> None:
    widen_main()
    st.title("Compare runs")
    st.caption(
        "Two runs of one document side by side: where their layouts disagree, how their text "
        "differs, and their speed and accuracy."
    )
    store_location_widget()
    store = get_store()
    runs = [r for r in store.list() if r.status != "corrupt"]
    if not runs:
        st.info(f"No runs in {store.root} yet. Process a document first.")
        return
    by_id = {r.id: r for r in runs}
    readers = {r.id: open_reader(r.id) for r in runs}
    infos = {i: rd.info for i, rd in readers.items() if rd is not None}
    if state.CMP_RUN_A.get() not in by_id:
        state.CMP_RUN_A.set(runs[0].id)
    labels_a = compare_parts.run_labels(runs, infos)
    # One full-width row each: a label that ends in what tells two runs apart stays readable.
    top_a, top_b = st.container(), st.container()
    a_id = top_a.selectbox("Run A", list(by_id), format_func=labels_a.__getitem__, key=RUN_A)
    top_a.caption(compare_parts.run_caption(by_id[a_id], infos.get(a_id)))
    reader_a = readers[a_id]
    if reader_a is None or not reader_a.documents:
        st.info("Run A has no finished page.")
        return
    docs = reader_a.documents
    if state.CMP_DOC.get() not in docs:
        state.CMP_DOC.set(docs[0])
    doc = top_a.selectbox("Document of run A", docs, key=DOC) if len(docs) > 1 else docs[0]

    candidates: dict[str, tuple[RunReader, str]] = {}
    for r in runs:
        other = readers[r.id]
        if r.id == a_id or other is None:
            continue
        name = same_document(reader_a, doc, other)
        if name is not None:
            candidates[r.id] = (other, name)
    if candidates:
        if state.CMP_PENDING_B.get() in candidates:
            state.CMP_RUN_B.set(state.CMP_PENDING_B.pop())
        if state.CMP_RUN_B.get() not in candidates:
            state.CMP_RUN_B.set(next(iter(candidates)))
        pool = [by_id[a_id], *(by_id[i] for i in candidates)]  # settings that differ from A too
        labels_b = compare_parts.run_labels(pool, infos, document=doc)
        b_id = top_b.selectbox(
            "Run B (same document)",
            list(candidates),
            format_func=labels_b.__getitem__,
            key=RUN_B,
        )
        top_b.caption(compare_parts.run_caption(by_id[b_id], infos.get(b_id)))
    with st.expander("Start the missing run", expanded=not candidates):
        start_missing(reader_a, doc, store)
    if not candidates:
        top_b.info(f"No other run holds {doc}. Start one below with another engine.")
        return
    reader_b, doc_b = candidates[b_id]
    compare_pair(reader_a, doc, reader_b, doc_b)


def _controls(
    pages: list[int], counts: dict[str, tuple[int, int]], present: list[str]
) -> tuple[float, list[str]]:
    """The controls both sides share (page, zoom, label tags, corrected layers, label pills):
    the zoom and the labels shown."""
    with st.container(border=True):
        # One flowing row: it wraps on narrow screens instead of clipping labels.
        with st.container(horizontal=True, vertical_alignment="bottom", gap="medium"):
            # The count in the label, not in the options: after Run A changed to a document
            # with more pages, the box still read "1 of 1" (the browser kept the old text).
            st.selectbox(f"Page (of {len(pages)})", pages, key=PAGE, width=140)
            zoom = zoom_control(ZOOM)
            st.toggle(
                "All label tags",
                key=TAGS,
                help="Off: a box's label shows when you point at it or select it.",
                width="content",
            )
            st.toggle(
                "Corrected layers",
                value=True,
                key=state.CMP_USE_FIX.key,
                help="Use hand corrections where a page has them.",
                width="content",
            )
        key = f"{LABELS}_{'-'.join(sorted(present))}"
        visible = st.pills(
            "Labels",
            present,
            selection_mode="multi",
            default=present,
            key=key,
            format_func=lambda lab: compare_parts.pill_text(lab, counts),
            label_visibility="collapsed",
        )
        state.CMP_LABELS.set(visible)
        st.caption("Page, zoom, tags and labels apply to both sides.")
    return zoom, list(visible or [])


def compare_pair(reader_a: RunReader, doc_a: str, reader_b: RunReader, doc_b: str) -> None:
    pages = sorted(set(reader_a.page_numbers(doc_a)) | set(reader_b.page_numbers(doc_b)))
    if not pages:
        st.info("Neither run has a finished page of this document.")
        return
    if state.CMP_PAGE.get() not in pages:
        state.CMP_PAGE.set(pages[0])
    use_fix = bool(state.CMP_USE_FIX.get())
    page = int(state.CMP_PAGE.get() or pages[0])
    res_a = layer_result(reader_a, doc_a, page, use_fix)
    res_b = layer_result(reader_b, doc_b, page, use_fix)
    counts = compare_parts.side_counts(res_a, res_b)
    present = sorted(counts, key=lambda lab: -sum(counts[lab]))

    zoom, visible = _controls(pages, counts, present)
    alignment = align_regions(res_a, res_b) if res_a and res_b else Alignment()
    sync_selection(alignment)
    mark_a, mark_b = marks(alignment)
    tags = bool(state.CMP_TAGS.get())
    compare_parts.between_sides(page, res_a, res_b, alignment)
    sides = (
        ("A", reader_a, doc_a, res_a, mark_a),
        ("B", reader_b, doc_b, res_b, mark_b),
    )
    # Headers in one row, pages in the next: the two pages start level whatever each header
    # holds (a longer model name, a "flagged" badge), so their boxes line up across.
    for col, (side, reader, doc, res, mark) in zip(st.columns(2, gap="medium"), sides, strict=True):
        with col:
            _side(side, reader, doc, page, pages, res, mark)
    for col, (side, reader, doc, res, mark) in zip(st.columns(2, gap="medium"), sides, strict=True):
        with col:
            if res is not None:
                show_page(
                    reader,
                    doc,
                    page,
                    res.regions,
                    visible or [],
                    OVERLAY + side,
                    zoom=zoom,
                    tags=tags,
                    alt=f"{side}: {doc} — page {page}",
                    outlines=mark,
                )

    n_dis = len(alignment.left_only) + len(alignment.right_only)
    n_dis += len(alignment.label_mismatches)
    boxless = compare_parts.no_boxes(res_a, res_b)
    if boxless:
        st.subheader(f"Layout on page {page}")
        st.info(f"{boxless} (Markdown only): there is no layout to compare on this page.")
    else:
        st.subheader(f"Disagreements on page {page}: {n_dis}")
        _disagreements(alignment, n_dis)
    _edit_and_metrics(reader_a, doc_a, reader_b, doc_b, page, res_a, res_b, use_fix)


def _disagreements(alignment: Alignment, n_dis: int) -> None:
    st.caption(
        f"Dashed magenta outline: region on one side only · solid orange outline: same place, "
        f"another label · agreement {alignment.agreement:.0%} · {len(alignment.matched)} "
        f"matched (IoU ≥ 0.5) · click a box to select its partner on the other side"
    )
    if n_dis:
        st.dataframe(disagreements_frame(alignment), hide_index=True, width="stretch")


def _edit_and_metrics(
    reader_a: RunReader,
    doc_a: str,
    reader_b: RunReader,
    doc_b: str,
    page: int,
    res_a: PageResult | None,
    res_b: PageResult | None,
    use_fix: bool,
) -> None:
    edit = st.radio("Edit regions of", ["off", "A", "B"], horizontal=True, key="cmp_edit")
    if edit != "off":
        reader, doc = (reader_a, doc_a) if edit == "A" else (reader_b, doc_b)
        image = page_image(reader, doc, page)
        if image is None or page not in reader.page_numbers(doc):
            st.warning(f"Side {edit} has no page {page} to edit.")
        else:
            editor.render_editor(reader, doc, page, image, key=f"cmp{edit}")

    compare_metrics.render(reader_a, doc_a, reader_b, doc_b, page, res_a, res_b, use_fix)


def _side(
    side: str,
    reader: RunReader,
    doc: str,
    page: int,
    pages: list[int],
    res: PageResult | None,
    mark: dict[str, Outline],
) -> None:
    """One side's header: page buttons (they move both sides), run and page facts."""
    info = reader.info
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.button(
            "◀ Prev",
            key=f"cmp_prev_{side}",
            on_click=_step,
            args=(-1, pages),
            disabled=page == pages[0],
        )
        st.button(
            "Next ▶",
            key=f"cmp_next_{side}",
            on_click=_step,
            args=(1, pages),
            disabled=page == pages[-1],
        )
        st.markdown(f"**{side}** · `{info.engine}` / `{info.model}`", width="content")
    if res is None:
        st.warning(f"Run {info.id} has no page {page}.")
        return
    flagged = f" · :orange-badge[{len(mark)} flagged]" if mark else ""
    st.caption(
        f"{doc} · page {page} · {res.seconds:.2f} s · {res.tokens} tokens · "
        f"{len(res.regions)} regions · {res.status}{flagged}"
    )


def _stored_pages(reader: RunReader, doc: str) -> Iterator[PageImage]:
    for n in reader.page_numbers(doc):
        yield PageImage(document=doc, index=n, image=reader.image(doc, n))


def rerun_document(
    reader: RunReader,
    doc: str,
    engine_spec: tuple,  # (Engine, ModelSpec)
    store: RunStore,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """Run ``engine`` on run A's stored page images of ``doc`` into a new run, through the
    one run writer (:mod:`workbench.pipeline.runner`: figure crops, the one status rule)."""
    engine, spec = engine_spec
    pages = reader.page_numbers(doc)
    source = next((d for d in reader.info.documents if d.name == doc), None)
    if source is None:  # a run from before documents were listed: known by name only
        source = DocumentInfo(name=doc, sha256="", kind="unknown", pages=len(pages))
    info = run_info(
        engine,
        spec,
        name=f"{doc} {engine.name}",
        documents=[source],
        dpi=float(reader.info.settings.get("dpi") or 0),  # the pixels are run A's
        source=f"compare:{reader.info.id}",
    )
    job = RunJob.create(store, engine, spec, info)
    name = job.add(source)

    def on_page(done: int, total: int, _result: PageResult) -> None:
        if progress is not None:
            progress(done, total)

    try:
        for _ in job.pages(name, _stored_pages(reader, doc), total=len(pages), on_page=on_page):
            pass
    except BaseException:
        job.finish(interrupted=True)
        raise
    job.finish()
    return job.run_id


def start_missing(reader: RunReader, doc: str, store: RunStore) -> None:
    st.caption(
        f"Runs another engine on the {len(reader.page_numbers(doc))} page image(s) of {doc} "
        f"stored in run A (the same pixels A saw), as a new run B."
    )
    choices = engine_choices()
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    follow_sidebar(state.CMP_NEW_ENGINE, state.CMP_NEW_ENGINE_FOR, choices)
    name = c1.selectbox("Engine for run B", list(choices), key=state.CMP_NEW_ENGINE.key)
    if name == CPU_ENGINE:  # its settings, so a second CPU run can differ from the first
        choices = engine_choices(cpu_settings("cmp_new_cpu_"))
    if not c2.button("Start run B", key="cmp_start_b", type="primary"):
        return
    try:
        engine_spec = choices[name]()
    except WorkbenchError as exc:
        st.error(f"The engine cannot start: {exc}")
        return
    bar = st.progress(0.0, text="starting…")

    def update(done: int, total: int) -> None:
        bar.progress(done / max(total, 1), text=f"{done}/{total} pages")

    try:
        new_id = rerun_document(reader, doc, engine_spec, store, update)
    except WorkbenchError as exc:
        st.error(f"Run B stopped: {exc}")
        return
    state.CMP_PENDING_B.set(new_id)  # RUN_B's widget is drawn already in this run
    st.rerun()
