"""The Viewer's poller redraws the page on screen when its result arrives, even when the
result lands while that very page is being drawn (the race CI hit: the page drew "queued",
then the poller, asking the cache, believed the page drawn and never redrew it)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from workbench.ui.jobs.records import Progress, Waiting
from workbench.ui.viewer import live as viewer_live


class PendingBoard:
    """The worker, still busy with another page (a hung page 1): never idle."""

    def progress(self, session: str) -> Progress:
        return Progress(asked=2, done=1)


def _race_app() -> None:
    import streamlit as st

    from workbench.schema import PageResult
    from workbench.ui import state
    from workbench.ui.jobs.records import PageWord, Progress
    from workbench.ui.results import results
    from workbench.ui.viewer import live as viewer_live

    focus = ("race-sha", 2, "race-ekey")
    drawn = results().get(*focus) is not None  # what the page draws
    st.write(f"drawn={drawn}")
    if not drawn:  # the worker finishes the page between the draw and the poller
        results().put(
            *focus, PageResult(document="d", page=2, width=1, height=1, engine="e", model="m")
        )
    state.VIEWER_POS.set(0)
    viewer_live.show(Progress(asked=2, done=1), focus, 0, None if drawn else PageWord.QUEUED, "d")


def test_a_result_landing_while_the_page_is_drawn_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.ui.results import results

    # AppTest runs the script in this process: the fake worker is this module's, and undone
    monkeypatch.setattr(viewer_live, "board", PendingBoard)

    results().drop("race-sha", 2, "race-ekey")
    at = AppTest.from_function(_race_app, default_timeout=30).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "drawn=True" in texts, texts  # the poller reran the page, which drew the result
    assert "drawn=False" not in texts


SENT = Waiting(name="d", sha256="sent-sha", page=1, elapsed=1.0, tokens=0, attempt=1)


class SentBoard:
    """The worker, which has just sent page 1 (on screen) to the server."""

    def progress(self, session: str) -> Progress:
        return Progress(asked=2, done=0, waiting=(SENT,))

    def cancel_page(self, session: str, sha256: str, page: int) -> None:
        raise AssertionError("not clicked")


RUNS: list[int] = []  # the script runs of _sent_app (AppTest runs it in this process)


def _sent_app() -> None:
    import streamlit as st

    from tests.ui.viewer import test_viewer_live_apptest as here
    from workbench.ui import state
    from workbench.ui.jobs.records import Progress
    from workbench.ui.viewer import live as viewer_live

    here.RUNS.append(1)
    # The first run asked before the page was sent: queued; the next run's ask sees it sent.
    asked = Progress(asked=2) if len(here.RUNS) == 1 else viewer_live.board().progress("s")
    word = asked.word("sent-sha", 1, "d")
    st.write(f"badge={word}")
    state.VIEWER_POS.set(0)
    viewer_live.show(asked, ("sent-sha", 1, "ekey"), 0, word, "d")


def test_the_badge_follows_the_page_once_it_is_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page drawn "queued" that the worker then sends is drawn again "waiting for the model",
    the words of the status line under the progress bar (it read "queued" while that line said
    "page 1: waiting for the model for 1 s")."""
    monkeypatch.setattr(viewer_live, "board", SentBoard)
    RUNS.clear()
    at = AppTest.from_function(_sent_app, default_timeout=30).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "badge=waiting for the model" in texts, texts
    assert "badge=queued" not in texts
    captions = " ".join(c.value for c in at.caption)
    assert "d page 1: waiting for the model for 1 s" in captions


def test_the_words_of_a_page_without_a_result() -> None:
    sent, receiving = SENT, SENT.__class__(**{**SENT.__dict__, "tokens": 12})
    assert Progress(asked=2, waiting=(sent,)).word("sent-sha", 1, "d") == "waiting for the model"
    assert Progress(asked=2, waiting=(receiving,)).word("sent-sha", 1, "d") == (
        "receiving from the model"
    )
    assert viewer_live.waiting_text(receiving) == (
        "d page 1: receiving from the model, 12 tokens in 1 s"
    )
    assert Progress(asked=2, current="d page 1").word("sent-sha", 1, "d") == "running"
    assert Progress(asked=2, current="d page 2").word("sent-sha", 1, "d") == "queued"
    assert Progress(asked=2, stopped=True).word("sent-sha", 1, "d") == "not processed"
