"""The Runs page: every run in the store, with open / delete / export and a viewer.

Runs are listed from :class:`~workbench.runs.store.RunStore` (never raises for a bad run: a corrupt
one shows as such). Opening a run sets ``open_run_id`` / ``open_document`` / ``open_page``
in session state; the viewer below the table reads them, and the app's viewer page may too.
Deleting asks for confirmation first. The viewer shows the corrected layer when there is
one (switchable to the model's own output) and has an edit mode (:mod:`workbench.ui.editor`).
A run a batch of this process is writing is followed: the page is drawn again as its pages
are written (at most every :data:`FOLLOW_S`), so its table, pickers and view keep up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from workbench.markdown.assemble import assemble_page
from workbench.markdown.display import MAX_CHARS, bound_regions, bound_text
from workbench.pipeline.batch import BatchJob, writing
from workbench.pipeline.request import SHAPING_SETTINGS
from workbench.runs.store import RunReader, RunSummary, summarize
from workbench.schema import PageStatus
from workbench.ui import editor, exports_view, state, workset
from workbench.ui.compare.metrics import shown
from workbench.ui.compare.parts import short_model
from workbench.ui.kit import (
    get_store,
    label_pills,
    open_reader,
    page_image,
    show_page,
    store_location_widget,
    zoom_control,
)
from workbench.ui.markdown_view import sanitize
from workbench.ui.page_facts import widen_main
from workbench.ui.viewer import live as viewer_live

OPEN_RUN, OPEN_DOC, OPEN_PAGE = state.OPEN_RUN, state.OPEN_DOCUMENT, state.OPEN_PAGE
#: Seconds between two looks at a run a batch is writing: a whole-page redraw at most this
#: often (pages land every second or so with several in flight; a redraw every time would
#: leave the view no rest to be read).
FOLLOW_S = 2.0
_CONFIRM = state.RUNS_CONFIRM_DELETE
_FIGURE_LINK = re.compile(r"!\[(Figure [^\]]*)\]\(page-\d{4}-[^)]*\.png\)\s*")


#: Status badge colours: finished green, partial/cancelled amber, running blue, failed red.
STATUS_COLORS = {
    "done": "#2b8a3e",
    "partial": "#e67700",
    "cancelled": "#868e96",
    "running": "#1c7ed6",
    "failed": "#c92a2a",
    "corrupt": "#c92a2a",
}
TABLE_COLUMNS = [
    "document",
    "status",
    "engine · model",
    "pages",
    "s/page",
    "settings",
    "date",
    "problem",
    "run",
]


def settings_text(settings: dict[str, str]) -> str:
    """What made the run's pages what they are, beside the model: who ran it and the settings
    that shape a page's output (two runs of one document with other settings differ here)."""

    def value(text: str) -> str:
        return text[:-2] if text.endswith(".0") else text  # "dpi 200", not "dpi 200.0"

    said = [settings["source"].split(":")[0]] if settings.get("source") else []  # "compare"
    said += [f"{k} {value(settings[k])}" for k in SHAPING_SETTINGS if k != "spec" and k in settings]
    return " · ".join(said)


def runs_table(
    runs: list[RunSummary], live: Callable[[str], BatchJob | None] = writing
) -> pd.DataFrame:
    """One row per run, most useful first: document, status, engine · model, pages, speed,
    settings, date, why a run is incomplete, and the run id last. A run a batch is writing
    (``live``) counts as the batch does: its pages so far, their pace, how many of how many.
    No cell is None or NaN (the grid draws a missing value as "None"): "—" where a run has no
    finished page yet, so no pace and, for a broken manifest, no date."""
    rows = []
    for r in runs:
        row = {
            "document": ", ".join(r.documents) or "—",
            "status": [r.status],  # a list: drawn as a coloured badge
            "engine · model": f"{r.engine} · {r.model.rsplit('/', 1)[-1]}",
            "pages": r.pages,
            "s/page": shown(r.seconds_per_page, "s/page"),  # "—" until a page is done
            "settings": settings_text(r.settings),
            "date": r.created.strftime("%Y-%m-%d %H:%M") if r.created else "—",
            "problem": r.problem or "",
            "run": r.id,
        }
        job = live(r.id)
        if job is not None:
            pages, total = max(job.outcome.done, r.pages), job.outcome.total
            pace = (time.monotonic() - job.started) / pages if pages else None
            row["pages"], row["s/page"] = pages, shown(pace, "s/page")
            row["document"] = f"batch, {pages} of {total} pages so far: {row['document']}"
        rows.append(row)
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def _column_config(table: pd.DataFrame) -> dict[str, Any]:
    statuses = list(STATUS_COLORS)
    config: dict[str, Any] = {
        "document": st.column_config.TextColumn(width="medium"),
        "status": st.column_config.MultiselectColumn(
            width=90, options=statuses, color=[STATUS_COLORS[s] for s in statuses]
        ),
        "engine · model": st.column_config.TextColumn(width="medium"),
        "pages": st.column_config.NumberColumn(width=60),
        # text, not a number: a missing number is drawn "None" by the grid, whatever the format
        "s/page": st.column_config.TextColumn(width=70),
        "settings": st.column_config.TextColumn(width=120),
        "date": st.column_config.TextColumn(width=135),
        "problem": st.column_config.TextColumn(width="medium"),
        "run": st.column_config.TextColumn(width="small"),  # also named in the picker below
    }
    if not table["problem"].astype(bool).any():
        config["problem"] = None  # hidden while no run has one
    return config


def _describe(run: RunSummary) -> str:
    when = run.created.strftime("%Y-%m-%d %H:%M") if run.created else "?"
    docs = ", ".join(run.documents) or "no document"
    return f"{docs} · {run.engine}/{short_model(run.model)} · {run.status} · {when} · {run.id}"


def render() -> None:
    widen_main()
    st.title("Runs")
    st.caption(
        "Every processing is kept as a run until you delete it: view it, correct its boxes "
        "by hand, export it, or compare it with another run."
    )
    store_location_widget()
    store = get_store()
    runs = store.list()

    from workbench.ui.runs import batch as batch_view

    # Open while this session has a batch running or ended: its progress, then its counts.
    open_batch = not runs or state.BATCH_JOB.get() is not None
    with st.expander("Batch: process many documents as one run", expanded=open_batch):
        batch_view.render()

    if not runs:
        st.info(f"No runs in {store.root} yet. Process a document, or run a batch above.")
        return
    table = runs_table(runs)
    st.dataframe(table, hide_index=True, width="stretch", column_config=_column_config(table))

    by_id = {r.id: r for r in runs}
    ids = list(by_id)
    current = OPEN_RUN.get()
    index = ids.index(current) if current in by_id else 0
    run_id = st.selectbox(
        "Run", ids, index=index, format_func=lambda i: _describe(by_id[i]), key=state.RUNS_PICK.key
    )
    if run_id != OPEN_RUN.get():
        _open(run_id)
    run = by_id[run_id]

    c1, c2, _ = st.columns([3, 2, 5])  # "Compare with…" whole at 1100 px
    if c1.button("Compare with…", key="runs_to_compare", icon=":material/compare:"):
        state.CMP_RUN_A.set(run_id)
        _switch("compare")
    if c2.button("Delete", key="runs_delete", icon=":material/delete:"):
        _CONFIRM.set(run_id)
    if _CONFIRM.get() == run_id:
        _confirm_delete(run)
    if run.status == "cancelled":
        _how_to_resume(run_id, run)
    batch_view.retry_failed(run)

    if run.status == "corrupt":
        st.error(f"This run cannot be read: {run.problem}")
        return
    reader = open_reader(run_id)
    if reader is None:
        return
    if writing(run_id) is not None:
        _follow(run_id, run.pages)
    tab_view, tab_export = st.tabs(["View", "Export"])
    with tab_view:
        viewer(reader)
    with tab_export:
        exports_view.render(reader)


@st.fragment(run_every=FOLLOW_S)
def _follow(run_id: str, shown: int) -> None:
    """Run ``run_id`` is being written by a batch and ``shown`` of its pages are on screen:
    the whole page is drawn again once more are written or the batch has ended."""
    if writing(run_id) is None or summarize(get_store().path(run_id)).pages != shown:
        st.rerun()
        return
    st.caption(
        f"A batch is writing this run: {shown} page(s) so far. The view follows it as pages "
        "are written.",
        help="Open a page at any time; the page you are on stays open.",
    )


def _how_to_resume(run_id: str, run: RunSummary) -> None:
    """A stopped run says how much it holds and how to finish it: the Viewer goes on in the
    run that holds a document's pages (same file, same engine settings), so only the pages
    missing are processed; a batch by "Retry failed pages" (the Batch form always starts a
    new run, so it cannot be what resumes one); a CLI run by its command again."""
    reader = open_reader(run_id)
    if reader is None:
        return
    total = sum(d.pages for d in reader.info.documents)
    docs = ", ".join(d.name for d in reader.info.documents) or "its document"
    source = reader.info.settings.get("source")
    where = {
        "viewer": f"drop {docs} in the Viewer with the same engine settings: it goes on in "
        "this run",
        "batch": 'click "Retry failed pages" below: it goes on in this run',
        "cli": "run the same `python -m workbench ocr` command (the same --out) again",
        "cli-ray": "run the same `python -m workbench ocr` command (the same --out) again",
    }.get(str(source), "process the same documents into this run again")
    # A page cut short by Stop is written as failed ("cancelled by the user"): not "saved".
    failed = sum(e.status == PageStatus.ERROR for e in reader.info.pages)
    also = f" ({failed} failed or cancelled)" if failed else ""
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.info(
        f"Stopped with {len(reader.info.pages) - failed} of {total} page(s) saved{also}. To "
        f"resume, {where}; only the pages missing are processed, the saved ones are kept.",
        icon=":material/pause_circle:",
    )
    if reader.info.settings.get("source") == "viewer" and c2.button(
        "Resume in the Viewer", key="runs_resume", icon=":material/play_arrow:"
    ):
        _resume_in_viewer(reader)


def _resume_in_viewer(reader: RunReader) -> None:
    """Reopen the run's documents in the Viewer from the originals the store keeps, and let
    the Viewer's processing go on (it continues in this run: same file, same settings)."""
    store = get_store()
    found, missing = [], []
    for d in reader.info.documents:
        path = store.source(d.sha256)
        if path is None:
            missing.append(d.name)
        else:
            found.append(workset.KeptFile(d.name, d.sha256, path.read_bytes()))
    if missing:
        st.warning(
            f"The store keeps no original of {', '.join(missing)} (it keeps PDFs only): "
            "drop it in the Viewer to resume.",
            icon=":material/warning:",
        )
        if not found:
            return
    workset.open_documents(found)
    viewer_live.resume()
    _switch("viewer")


def _open(run_id: str) -> None:
    OPEN_RUN.set(run_id)
    OPEN_DOC.pop()
    OPEN_PAGE.set(1)


def _switch(name: str) -> None:
    root = Path(__file__).resolve().parents[3]
    target = root / "pages" / f"{name}.py"
    try:
        st.switch_page(str(target))
    except Exception as exc:  # the page is not registered in this app
        st.warning(f"Cannot open the {name} page here ({exc}).")


def _confirm_delete(run: RunSummary) -> None:
    with st.container(border=True):
        st.warning(
            f"Delete run **{run.id}** ({run.pages} page(s)) and every file in it, "
            "corrections included? This cannot be undone."
        )
        yes, no = st.columns(2)
        yes.button("Yes, delete it", key="runs_delete_yes", type="primary", on_click=_delete,
                   args=(run.id,))  # fmt: skip
        if no.button("Cancel", key="runs_delete_no"):
            _CONFIRM.pop()
            st.rerun()


def _delete(run_id: str) -> None:
    """Delete the run, then show the first run left, picker included. A callback: run before
    the script, so the picker is given its new value before it is drawn (set after, the
    browser kept showing the deleted run's name while the view and Export acted on another)."""
    _CONFIRM.pop()
    try:
        get_store().delete(run_id)
    except Exception as exc:
        st.toast(f"Could not delete {run_id}: {exc}", icon=":material/error:")
        return
    left = [r.id for r in get_store().list()]
    if left:
        _open(left[0])
        state.RUNS_PICK.set(left[0])
    else:
        OPEN_RUN.pop()
        state.RUNS_PICK.pop()
    st.toast(f"Deleted {run_id}")


def _label_pills(run_id: str, labels: list[str], counts: dict[str, int], where: str) -> list[str]:
    """The label filter of one run's page: every label on, except those the user turned off
    in this run (kept per run, so one run's page never hides another run's boxes)."""
    hidden = state.RUNS_HIDDEN.setdefault().setdefault(run_id, set())
    return label_pills(labels, counts, state.RUNS_LABELS(run_id, where), hidden)


def viewer(reader: RunReader) -> None:
    """Read-only view of one run's pages (regions over the image, Markdown beside)."""
    docs = reader.documents
    if not docs:
        st.info("This run has no finished page yet.")
        return
    doc = st.selectbox("Document", docs, key=OPEN_DOC.key) if len(docs) > 1 else docs[0]
    numbers = reader.page_numbers(doc)
    if not numbers:
        st.info(f"{doc}: no finished page yet.")
        return
    page = int(OPEN_PAGE.get() or numbers[0])
    if page not in numbers:
        page = numbers[0]
        OPEN_PAGE.set(page)
    c1, c2, c3 = st.columns([2, 5, 2], vertical_alignment="bottom")  # five zoom choices
    c1.number_input(
        f"Page (of {len(numbers)})", min_value=numbers[0], max_value=numbers[-1], key=OPEN_PAGE.key
    )
    page = int(OPEN_PAGE.get() or numbers[0])
    with c2:
        zoom = zoom_control("runs_zoom")
    try:
        stored = reader.stored(doc, page)
    except Exception as exc:
        st.error(f"{doc} page {page}: {exc}")
        return
    has_fix = stored.corrected is not None
    layer = c3.segmented_control(
        "Layer",
        ["corrected", "model"] if has_fix else ["model"],
        key="runs_layer",
        default="corrected" if has_fix else "model",
        required=True,
        help="Hand corrections are kept beside the model's output, never over it.",
    )
    regions = stored.corrected if layer == "corrected" and has_fix else stored.result.regions
    counts: dict[str, int] = {}
    for r in regions or []:
        counts[r.label.value] = counts.get(r.label.value, 0) + 1
    labels = sorted(counts, key=lambda lab: -counts[lab])
    visible = _label_pills(reader.info.id, labels, counts, f"{doc}_{page}_{layer}")
    result = stored.result
    st.caption(
        f"{doc} · page {page} · {result.width}×{result.height} page_px · {result.engine}/"
        f"{result.model} · {result.seconds:.2f} s · {result.tokens} tokens · {result.status}"
        + (" · **corrected layer**" if layer == "corrected" and has_fix else "")
    )
    for note in result.notes:
        st.caption(f"ℹ️ {note}")
    if result.error:
        st.error(f"The engine failed on this page: {result.error}")

    if st.toggle("Edit mode", key="runs_edit", help="Add, move, resize, delete, relabel boxes"):
        image = page_image(reader, doc, page)
        if image is None:
            st.error("The page image is missing; regions cannot be edited without it.")
        else:
            editor.render_editor(reader, doc, page, image, key="runs")
        return
    left, right = st.columns([3, 2], gap="medium")
    with left:
        shown = bound_regions(regions or [])  # a 5 MB answer must not stall the tab
        show_page(reader, doc, page, shown, visible or [], f"runs_ov_{page}", zoom=zoom)
    with right:
        text = result.markdown
        if layer == "corrected" and stored.corrected is not None:
            text = assemble_page(stored.corrected, page)
        text = _FIGURE_LINK.sub(r"*[\1]*\n\n", text)  # the crop file is not beside the page
        if len(text) > MAX_CHARS:
            st.info(f"Showing the first {MAX_CHARS:,} of {len(text):,} characters; the run's files "
                    "have the full text.", icon=":material/content_cut:")  # fmt: skip
            text = bound_text(text)
        # Wide tables scroll inside the column instead of running off the page.
        st.html("<style>.st-key-runs_md table { display: block; overflow-x: auto; }</style>")
        with st.container(key="runs_md"):
            st.markdown(sanitize(text) or "_(no text)_", unsafe_allow_html=True)
