"""The Viewer's side of background processing (:mod:`workbench.ui.jobs.worker`).

Each script run *asks* the process's worker for this session's pages (:func:`ask`: the
selected files and pages, the engine, the page on screen) and returns at once; the page shows
what the result cache holds. The page on screen, while it is in flight on a server, is listed
at once (polled every :data:`FOCUS_POLL_S` seconds while it has no result: it says so within
2 s) as waiting on the model with its elapsed time and a Cancel button; other pages once they
have waited :data:`SHOW_WAIT_S` or more (a cancelled page fails with "cancelled by the user"
and can be retried); Stop ends this session's processing and Resume restarts it.

While pages are pending, :func:`show` draws a progress bar in a
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
from workbench.ui.jobs.records import Ask, DocAsk, PageWord, Progress, Waiting
from workbench.ui.jobs.worker import board
from workbench.ui.kit import get_store
from workbench.ui.results import results
from workbench.ui.sidebar import served_models, server_lost

POLL_S = 1.0  # a poll is a script run: often enough to show pages as they finish, rare enough
#              to leave the session free for clicks
#: the poll while the page on screen has no result yet: the user waits on that very page, and
#: a hung page must say so within 2 s of being shown (issue 25.2)
FOCUS_POLL_S = 0.5
#: A page in flight this long is shown as waiting, with its elapsed time and a Cancel button
#: (a normal page on a busy server takes a few seconds; shorter would flicker on every page).
#: The page on screen is shown from 0 s: the user is looking at it, and a hung answer must
#: not look "queued" (issue 25.2).
SHOW_WAIT_S = 5.0
SHOW_FOCUS_WAIT_S = 0.0
MAX_WAITING_SHOWN = 3

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


def show(
    progress: Progress,
    focus: Focus,
    pos: int,
    drawn: PageWord | None,
    name: str,
    *,
    lost_said: bool = False,
) -> None:
    """The worker's notes for this session and, while pages are pending, the polling
    progress bar (``pos``: the position on screen, whose page is ``focus``); when the user
    stopped processing, what is left and a Resume button.

    ``drawn``: the word the focus page's badge shows (None: this script run drew its
    result). It is what the page shows, not what the cache holds now: a result that arrives
    while the page is being drawn is in the cache by the time this is called, and asking the
    cache would leave the page showing "queued" with a poller that never redraws it (seen in
    CI). The poller redraws the page when the page's word changes (queued, then waiting for
    the model...), so the badge says what the status line says. ``name``: the focus page's
    document name. ``lost_said``: the page already says the server does not answer; else
    the poller asks the server once a page has waited :data:`SHOW_WAIT_S` and, when it does not
    answer, draws the page again so that it says so (pages wait on a dead server for tens of
    seconds before they fail: the progress bar alone read as "still working")."""
    for note in progress.notes:
        st.warning(note, icon=":material/warning:")
    if progress.pending:
        (_poll_focus if drawn else _poll)(session_id(), focus, drawn, pos, name, lost_said)
    elif progress.stopped and progress.left and (progress.current or progress.waiting):
        _stopping(session_id())
    elif progress.stopped and progress.left:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.info(
                f"Processing stopped: {progress.left} page(s) not processed; "
                f"{progress.done} of {progress.asked} done and saved.",
                icon=":material/pause_circle:",
            )
            st.button(
                "Resume",
                key=state.VIEWER_RESUME.key,
                icon=":material/play_arrow:",
                on_click=board().resume,
                args=(session_id(),),
            )


@st.fragment(run_every=POLL_S)
def _stopping(session: str) -> None:
    """Stop was pressed while a page was in flight on an engine that cannot cut it short: it
    is finished and saved first; the page is drawn again once it is, with the counts then
    true (the counts at the click were one page off)."""
    p = board().progress(session)
    if not (p.current or p.waiting):
        st.rerun()
    st.info(
        f"Stopping: {p.current or 'the page in flight'} is finished and saved first; "
        f"then {max(p.left - 1, 0)} page(s) will be left.",
        icon=":material/pause_circle:",
    )


def failed_row(failed: int) -> None:
    """How many of the selected pages failed, and one button that sends every one of them
    again (a server that went away and came back: one click, not one per page)."""
    if failed <= 0:
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(
            f":material/error: {failed} page{'s' if failed != 1 else ''} failed "
            "(each says why on its page)",
            width="content",
        )
        st.button(
            "Retry failed pages",
            key=state.VIEWER_RETRY_ALL.key,
            icon=":material/refresh:",
            on_click=_retry_failed,
            args=(session_id(),),
        )


def _retry_failed(session: str) -> None:
    board().retry_failed(session)
    state.VIEWER_SEEN_FAILED.set(0)
    served_models.clear()  # the server is asked again, not the list cached while it was away


def resume() -> None:
    """Let this session's stopped processing go on (its next ask is taken up)."""
    board().resume(session_id())


def retry_button(sha256: str, page: int, ekey: str) -> None:
    """Process a failed (or cancelled) page again."""
    st.button(
        "Retry this page",
        key=state.VIEWER_RETRY.key,
        icon=":material/refresh:",
        on_click=board().retry_page,
        args=(session_id(), sha256, page, ekey),
    )


def waiting_text(w: Waiting) -> str:
    """One line for a page in flight: waiting for its first token, or receiving."""
    again = f" (attempt {w.attempt})" if w.attempt > 1 else ""
    if w.tokens == 0:
        return f"{w.name} page {w.page}: {w.word} for {w.elapsed:.0f} s{again}"
    return f"{w.name} page {w.page}: {w.word}, {w.tokens} tokens in {w.elapsed:.0f} s{again}"


def _poll_body(
    session: str, focus: Focus, drawn: PageWord | None, pos: int, name: str, lost_said: bool
) -> None:
    p = board().progress(session)
    # A timer of a page the user has left (a click is being answered) must not rerun.
    here = state.VIEWER_POS.get() == pos
    if here and (p.pending == 0 or (drawn is not None and results().has(*focus))):
        st.rerun()  # the page on screen, or the document, is complete: draw it
    if here and drawn is not None and p.word(focus[0], focus[1], name) != drawn:
        st.rerun()  # its badge was drawn once: draw it again with what is true now
    stuck = p.current_s >= SHOW_WAIT_S or any(w.elapsed >= SHOW_WAIT_S for w in p.waiting)
    if here and stuck and not lost_said and server_lost():  # asked at most every 15 s
        st.rerun()  # the page says it above the pages, with since when
    slow = p.current_s >= SHOW_WAIT_S and not p.waiting  # engines that cannot list calls
    now = f" · now {p.current}" + (f" ({p.current_s:.0f} s)" if slow else "") if p.current else ""
    last = p.last
    took = f" · {last.document} page {last.page} took {last.seconds:.2f} s" if last else ""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.progress(
            min(p.done / max(p.asked, 1), 1.0),
            text=f"Processing in the background: {p.done}/{p.asked} pages{now}{took}",
        )
        if st.button("Stop", key=state.VIEWER_STOP.key, icon=":material/stop_circle:"):
            board().stop(session)
            st.rerun()  # the whole page: the bar gives way to "stopped" and Resume
    _waiting(session, p, focus)


_poll = st.fragment(run_every=POLL_S)(_poll_body)
_poll_focus = st.fragment(run_every=FOCUS_POLL_S)(_poll_body)


def _waiting(session: str, p: Progress, focus: Focus) -> None:
    """Pages that have waited on the engine for :data:`SHOW_WAIT_S` or more, and the page on
    screen whatever its wait: that page first, then the oldest, each with its elapsed time
    and a Cancel button."""

    def shown(w: Waiting) -> bool:
        on_screen = (w.sha256, w.page) == focus[:2]
        return w.elapsed >= (SHOW_FOCUS_WAIT_S if on_screen else SHOW_WAIT_S)

    slow = [w for w in p.waiting if shown(w)]
    slow.sort(key=lambda w: ((w.sha256, w.page) != focus[:2], -w.elapsed))
    for w in slow[:MAX_WAITING_SHOWN]:
        with st.container(horizontal=True, vertical_alignment="center", key=f"wb-wait-{w.page}"):
            st.caption(f":material/hourglass_top: {waiting_text(w)}", width="content")
            st.button(
                f"Cancel page {w.page}",
                key=state.VIEWER_CANCEL(f"{w.sha256[:12]}-{w.page}").key,
                on_click=board().cancel_page,
                args=(session, w.sha256, w.page),
                type="tertiary",
            )
    if len(slow) > MAX_WAITING_SHOWN:
        st.caption(f"and {len(slow) - MAX_WAITING_SHOWN} more page(s) waiting")
