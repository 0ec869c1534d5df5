"""AppTest and the Viewer's background worker: in a browser a polling fragment reruns the
page when pages finish; AppTest never ticks fragments, so a test waits for the worker itself
and reruns, as the fragment would."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from workbench.ui.jobs.worker import board


def settle(at: AppTest, timeout: float = 60.0) -> AppTest:
    """Wait until the worker has processed every page any session asked for, then rerun."""
    assert board().wait_idle(timeout), "the background worker did not finish in time"
    return at.run()
