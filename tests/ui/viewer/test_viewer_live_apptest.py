"""The Viewer's poller redraws the page on screen when its result arrives, even when the
result lands while that very page is being drawn (the race CI hit: the page drew "queued",
then the poller, asking the cache, believed the page drawn and never redrew it)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from workbench.ui.jobs.records import Progress
from workbench.ui.viewer import live as viewer_live


class PendingBoard:
    """The worker, still busy with another page (a hung page 1): never idle."""

    def progress(self, session: str) -> Progress:
        return Progress(asked=2, done=1)


def _race_app() -> None:
    import streamlit as st

    from workbench.schema import PageResult
    from workbench.ui import state
    from workbench.ui.jobs.records import Progress
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
    viewer_live.show(Progress(asked=2, done=1), focus, 0, drawn)


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
