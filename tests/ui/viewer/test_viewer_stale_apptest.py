"""The Viewer's pager against a browser's stale report (the CI failure of 77e74f2: back from
Compare, the Viewer showed page 1 of the set after Next had shown page 2).

A browser sends every widget's value with each rerun it asks for, the polling fragment's too
(:mod:`workbench.ui.viewer.live`). A poll sent before the browser drew the answer to a click
carries the page number and file the pager showed before that click; Streamlit takes a value
that differs from its own for a change and calls the widget's callback, which moved the page
back. The pager is outside the fragment, so a pick of the user's reruns the whole page: a
change reported with a fragment's rerun is an echo (:func:`workbench.ui.state.fragment_run`).
AppTest stands in for the browser: it replays the widget states it held before the click; it
runs no fragment alone, so the replay is marked as the fragment's rerun it stands for.
"""

from __future__ import annotations

import pytest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.viewer.test_viewer_apptest import CENSUS, LATEX, app, page_input, stats, upload
from workbench.ui import state


def test_a_poll_sent_before_the_click_was_drawn_keeps_the_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = upload(app(FakeEngine()).run(), LATEX, CENSUS)
    before = at._tree.get_widget_states()  # what the browser holds: page 1 of latex.pdf
    at = at.button(key="wb_next").click().run()
    assert "latex.pdf · page 2 of 4" in stats(at)
    with monkeypatch.context() as m:
        m.setattr(state, "fragment_run", lambda: True)
        at = at._run(before)  # the poll that left before the answer came
    assert "latex.pdf · page 2 of 4" in stats(at) and not at.exception
    assert page_input(at).value == 2
    # the user's own picks move the page (a whole-page rerun), back to page 1 too
    at = page_input(at).set_value(1).run()
    assert "latex.pdf · page 1 of 4" in stats(at)
    at = page_input(at).set_value(5).run()
    assert "census.pdf · page 1 of 1" in stats(at)


def test_the_same_report_as_the_users_own_pick_moves_the_page() -> None:
    """The replay as a whole-page rerun is what a pick of page 1 by hand sends: it moves."""
    at = upload(app(FakeEngine()).run(), LATEX, CENSUS)
    before = at._tree.get_widget_states()
    at = at.button(key="wb_next").click().run()._run(before)
    assert "latex.pdf · page 1 of 4" in stats(at)


def test_no_script_run_is_no_fragment_run() -> None:
    assert state.fragment_run() is False
