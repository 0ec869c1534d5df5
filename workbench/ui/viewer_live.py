"""The Viewer's side of background processing (:mod:`workbench.ui.jobs`).

Each script run *asks* the process's worker for this session's pages (:func:`ask`: the
selected files and pages, the engine, the page on screen) and returns at once; the page shows
what the result cache holds. While pages are pending, :func:`show` draws a progress bar in a
fragment that polls every :data:`POLL_S` seconds and reruns the whole page when the page on
screen has just been finished or the last page is done (so downloads and counts include
every page). A click is therefore answered in the time of a rerun, never after the page the
engine is working on.

Session state: :data:`~workbench.ui.state.VIEWER_SESSION` (this session's id for the worker)
and :data:`~workbench.ui.state.VIEWER_RUNS` (the runs the worker made for this session).
"""

from __future__ import annotations

import uuid

import streamlit as st

from workbench.engines.base import Engine
from workbench.models.registry import ModelSpec
from workbench.ui import engines, state
from workbench.ui.inputs import Selected
from workbench.ui.job_records import Ask, DocAsk, Progress
from workbench.ui.jobs import board
from workbench.ui.results import results
from workbench.ui.runs_common import get_store

POLL_S = 1.0  # a poll is a script run: often enough to show pages as they finish, rare enough
#              to leave the session free for clicks

#: (sha256, page, engine key) of the page on screen.
Focus = tuple[str, int, str]


def session_id() -> str:
    sid = state.VIEWER_SESSION.get()
    if not sid:
        sid = uuid.uuid4().hex
        state.VIEWER_SESSION.set(sid)
    return sid


def ask(
    selected: list[Selected], engine: Engine, spec: ModelSpec, ekey: str, focus: tuple[str, int]
) -> Progress:
    """Hand this session's pages to the worker (the page on screen first); never waits."""
    docs = tuple(
        DocAsk(s.file.sha256, s.file.name, s.file.doc, s.pages)
        for s in selected
        if s.file.doc is not None
    )
    request = Ask(
        engine=engine,
        spec=spec,
        ekey=ekey,
        dpi=engines.dpi_for(spec),
        docs=docs,
        focus=focus,
        store_root=get_store().root,
        runs=tuple(state.VIEWER_RUNS.get().items()),
    )
    progress = board().ask(session_id(), request)
    state.VIEWER_RUNS.setdefault().update(progress.runs)
    return progress


def show(progress: Progress, focus: Focus, pos: int) -> None:
    """The worker's notes for this session and, while pages are pending, the polling
    progress bar (``pos``: the position on screen, whose page is ``focus``)."""
    for note in progress.notes:
        st.warning(note, icon=":material/warning:")
    if progress.pending:
        _poll(session_id(), focus, results().has(*focus), pos)


@st.fragment(run_every=POLL_S)
def _poll(session: str, focus: Focus, focus_ready: bool, pos: int) -> None:
    p = board().progress(session)
    # A timer of a page the user has left (a click is being answered) must not rerun.
    here = state.VIEWER_POS.get() == pos
    if here and (p.pending == 0 or (not focus_ready and results().has(*focus))):
        st.rerun()  # the page on screen, or the document, is complete: draw it
    now = f" · now {p.current}" if p.current else ""
    last = p.last
    took = f" · {last.document} page {last.page} took {last.seconds:.2f} s" if last else ""
    st.progress(
        min(p.done / max(p.asked, 1), 1.0),
        text=f"Processing in the background: {p.done}/{p.asked} pages{now}{took}",
    )
