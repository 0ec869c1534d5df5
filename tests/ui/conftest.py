"""Each test of the app gets a run store of its own.

The Viewer resumes the newest Viewer run of a document made with the same engine settings,
whichever session made it (:func:`workbench.ui.jobs.runs.open_run`), and a run names a
document by the name it was first saved under. In one shared store a run left by an earlier
test (the browser tests' FakeEngine server saves ``pdflatex_outline.pdf``) was resumed by a
later one that uploads the same bytes as ``latex.pdf``: its pages then reached the engine
under the old name, and a test that makes ``latex.pdf#2`` fail saw it succeed. Tests that
need a particular store still set ``WORKBENCH_STORE_DIR`` or ``runs_store_dir`` themselves.
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_run_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    store = tmp_path_factory.mktemp("store")
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(store))
    return store
