"""The Compare page: two runs of one document side by side.

Synchronised controls: ONE set of widgets in session state drives both sides --
``cmp_page`` (1-based page), ``cmp_width`` (display width, px) and ``cmp_labels`` (visible
labels). Each side's Prev/Next buttons move that shared page, so the other side follows.

Run B is any other run holding the same document (same sha256, else same name). When there
is none, "Start the missing run" runs another engine on run A's stored page images (the very
``page_px`` images A saw) into a new run. Disagreements come from
:func:`workbench.compare.align_regions`: regions on one side only are outlined magenta,
matched regions with another label orange, and both are listed. Text diff, metrics and the
chart are in :mod:`workbench.ui.compare_metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pandas as pd
import streamlit as st

from workbench.compare import Alignment, align_regions
from workbench.errors import WorkbenchError
from workbench.pipeline import process
from workbench.schema import PageImage, PageResult, Region, RunInfo, RunStatus
from workbench.store import RunReader, RunStore, RunSummary
from workbench.ui import compare_metrics, editor
from workbench.ui.runs_common import (
    LABEL_DIFFERS,
    ONLY_HERE,
    engine_choices,
    get_store,
    open_reader,
    page_image,
    show_overlay,
    store_location_widget,
)

PAGE, WIDTH, LABELS = "cmp_page", "cmp_width", "cmp_labels"
RUN_A, RUN_B, DOC = "compare_run_a", "compare_run_b", "compare_doc"
PENDING_B = "compare_run_b_next"


def _describe(r: RunSummary) -> str:
    when = r.created.strftime("%Y-%m-%d %H:%M") if r.created else "?"
    return f"{r.engine}/{r.model} · {when} · {r.pages} p · {r.id}"


def same_document(reader: RunReader, doc: str, other: RunReader) -> str | None:
    """The name of ``doc`` in ``other``: same sha256 first, else the same name."""
    mine = next((d for d in reader.info.documents if d.name == doc), None)
    if mine is not None:
        for d in other.info.documents:
            if d.sha256 == mine.sha256 and d.name in other.documents:
                return d.name
    return doc if doc in other.documents else None


def _step(delta: int, pages: list[int]) -> None:
    current = int(st.session_state.get(PAGE, pages[0]))
    i = pages.index(current) if current in pages else 0
    st.session_state[PAGE] = pages[max(0, min(len(pages) - 1, i + delta))]


def layer_result(reader: RunReader, doc: str, page: int, corrected: bool) -> PageResult | None:
    """The page's result, its regions replaced by the corrected layer when asked and present."""
    try:
        stored = reader.stored(doc, page)
    except WorkbenchError:
        return None
    if corrected and stored.corrected is not None:
        return stored.result.model_copy(update={"regions": stored.corrected})
    return stored.result


def marks(alignment: Alignment) -> tuple[dict[str, str], dict[str, str]]:
    left = {r.id: ONLY_HERE for r in alignment.left_only}
    right = {r.id: ONLY_HERE for r in alignment.right_only}
    for m in alignment.label_mismatches:
        left[m.left.id] = right[m.right.id] = LABEL_DIFFERS
    return left, right


def disagreements_frame(alignment: Alignment) -> pd.DataFrame:
    def box(r: Region) -> str:
        return "—" if r.bbox is None else ", ".join(f"{v:.0f}" for v in r.bbox.as_list())

    rows: list[dict[str, object]] = [
        {"what": "only in A", "A": f"{r.id} {r.label.value}", "B": "", "box": box(r), "IoU": None}
        for r in alignment.left_only
    ]
    rows += [
        {"what": "only in B", "A": "", "B": f"{r.id} {r.label.value}", "box": box(r), "IoU": None}
        for r in alignment.right_only
    ]
    rows += [
        {
            "what": "label differs",
            "A": f"{m.left.id} {m.left.label.value}",
            "B": f"{m.right.id} {m.right.label.value}",
            "box": box(m.left),
            "IoU": m.iou,
        }
        for m in alignment.label_mismatches
    ]
    return pd.DataFrame(rows, columns=["what", "A", "B", "box", "IoU"])


def render() -> None:
    st.title("Compare runs")
    store_location_widget()
    store = get_store()
    runs = [r for r in store.list() if r.status != "corrupt"]
    if not runs:
        st.info(f"No runs in {store.root} yet. Process a document first.")
        return
    by_id = {r.id: r for r in runs}
    if st.session_state.get(RUN_A) not in by_id:
        st.session_state[RUN_A] = runs[0].id
    top_a, top_doc, top_b = st.columns([4, 2, 4])
    a_id = top_a.selectbox(
        "Run A", list(by_id), format_func=lambda i: _describe(by_id[i]), key=RUN_A
    )
    reader_a = open_reader(a_id)
    if reader_a is None or not reader_a.documents:
        st.info("Run A has no finished page.")
        return
    docs = reader_a.documents
    if st.session_state.get(DOC) not in docs:
        st.session_state[DOC] = docs[0]
    doc = top_doc.selectbox("Document", docs, key=DOC)

    candidates: dict[str, tuple[RunReader, str]] = {}
    for r in runs:
        if r.id == a_id:
            continue
        other = open_reader(r.id)
        name = same_document(reader_a, doc, other) if other is not None else None
        if other is not None and name is not None:
            candidates[r.id] = (other, name)
    if candidates:
        if st.session_state.get(PENDING_B) in candidates:
            st.session_state[RUN_B] = st.session_state.pop(PENDING_B)
        if st.session_state.get(RUN_B) not in candidates:
            st.session_state[RUN_B] = next(iter(candidates))
        b_id = top_b.selectbox(
            "Run B (same document)",
            list(candidates),
            format_func=lambda i: _describe(by_id[i]),
            key=RUN_B,
        )
    with st.expander("Start the missing run", expanded=not candidates):
        start_missing(reader_a, doc, store)
    if not candidates:
        top_b.info(f"No other run holds {doc}. Start one below with another engine.")
        return
    reader_b, doc_b = candidates[b_id]
    compare_pair(reader_a, doc, reader_b, doc_b)


def compare_pair(reader_a: RunReader, doc_a: str, reader_b: RunReader, doc_b: str) -> None:
    pages = sorted(set(reader_a.page_numbers(doc_a)) | set(reader_b.page_numbers(doc_b)))
    if not pages:
        st.info("Neither run has a finished page of this document.")
        return
    if st.session_state.get(PAGE) not in pages:
        st.session_state[PAGE] = pages[0]
    c1, c2, c3, c4 = st.columns([2, 2, 4, 2])
    c1.selectbox(f"Page (both sides, {len(pages)})", pages, key=PAGE)
    page = int(st.session_state[PAGE])
    width = c2.slider("Zoom (px, both sides)", 280, 900, 520, 20, key=WIDTH)
    use_fix = c4.toggle("Corrected layers", value=True, key="cmp_use_fix")
    res_a = layer_result(reader_a, doc_a, page, use_fix)
    res_b = layer_result(reader_b, doc_b, page, use_fix)
    present = sorted({r.label.value for res in (res_a, res_b) if res for r in res.regions})
    key = f"{LABELS}_{'-'.join(present)}"
    visible = c3.multiselect("Labels (both sides)", present, default=present, key=key)
    st.session_state[LABELS] = visible

    alignment = align_regions(res_a, res_b) if res_a and res_b else Alignment()
    mark_a, mark_b = marks(alignment)
    cols = st.columns(2)
    for side, col, reader, doc, res, mark in (
        ("A", cols[0], reader_a, doc_a, res_a, mark_a),
        ("B", cols[1], reader_b, doc_b, res_b, mark_b),
    ):
        with col:
            _side(side, reader, doc, page, pages, res, mark, width, visible)

    n_dis = len(alignment.left_only) + len(alignment.right_only)
    n_dis += len(alignment.label_mismatches)
    st.subheader(f"Disagreements on page {page}: {n_dis}")
    st.caption(
        f"Magenta: region on one side only · orange: same place, other label · "
        f"agreement {alignment.agreement:.0%} · {len(alignment.matched)} matched (IoU ≥ 0.5)"
    )
    if n_dis:
        st.dataframe(disagreements_frame(alignment), hide_index=True, width="stretch")

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
    mark: dict[str, str],
    width: int,
    visible: list[str],
) -> None:
    info = reader.info
    st.markdown(f"**{side}** · `{info.engine}` / `{info.model}`")
    b1, b2, b3 = st.columns([1, 1, 3])
    b1.button(
        "◀ Prev",
        key=f"cmp_prev_{side}",
        on_click=_step,
        args=(-1, pages),
        disabled=page == pages[0],
    )
    b2.button(
        "Next ▶",
        key=f"cmp_next_{side}",
        on_click=_step,
        args=(1, pages),
        disabled=page == pages[-1],
    )
    caption = f"{side}: {doc} — page {page}"
    b3.caption(caption)
    if res is None:
        st.warning(f"Run {info.id} has no page {page}.")
        return
    image = page_image(reader, doc, page)
    if image is None:
        st.warning("The page image is missing from the run folder.")
    else:
        show_overlay(image, res.regions, width, visible, caption, mark)
    st.caption(
        f"{res.seconds:.2f} s · {res.tokens} tokens · {len(res.regions)} regions · {res.status}"
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
    """Run ``engine`` on run A's stored page images of ``doc`` into a new run; its id."""
    engine, spec = engine_spec
    source = next((d for d in reader.info.documents if d.name == doc), None)
    info = RunInfo(
        id="",
        name=f"{doc} {engine.name}",
        engine=engine.name,
        model=engine.model,
        settings={"source_run": reader.info.id},
        documents=[source] if source is not None else [],
    )
    writer = store.create(info)
    total = len(reader.page_numbers(doc))
    done = 0
    try:
        for item in process(engine, spec, _stored_pages(reader, doc), total=total):
            writer.write_page(item.result, item.image)
            done += 1
            if progress is not None:
                progress(done, total)
    except BaseException:
        writer.finish(RunStatus.CANCELLED)
        raise
    writer.finish(RunStatus.DONE)
    return writer.info.id


def start_missing(reader: RunReader, doc: str, store: RunStore) -> None:
    st.caption(
        f"Runs another engine on the {len(reader.page_numbers(doc))} page image(s) of {doc} "
        f"stored in run A (the same pixels A saw), as a new run B."
    )
    choices = engine_choices()
    c1, c2 = st.columns([3, 1])
    name = c1.selectbox("Engine for run B", list(choices), key="cmp_new_engine")
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
    st.session_state[PENDING_B] = new_id  # RUN_B's widget is drawn already in this run
    st.rerun()
