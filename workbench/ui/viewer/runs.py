"""Where the Viewer's runs are: every processing in the viewer is also a run in the run
store, written by the one run writer (:class:`workbench.pipeline.runner.RunJob`, driven by
the background worker in :mod:`workbench.ui.jobs.worker`), as the CLI, Batch and Compare write
theirs: one run per (document content, engine key) per session, each page written with its
figure crops as soon as it is done. :data:`~workbench.ui.state.VIEWER_RUNS` names those runs;
this module finds them again for the caption and the downloads (figure crops).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import streamlit as st

from workbench.errors import WorkbenchError
from workbench.markdown.assemble import figure_page
from workbench.runs.folder import RunReader
from workbench.ui import state
from workbench.ui.kit import get_store


def run_folder(sha256: str, ekey: str) -> tuple[RunReader, str] | None:
    """The run holding this document's pages and the document's name in it, if any."""
    run_id = state.VIEWER_RUNS.get().get((sha256, ekey))
    if not run_id:
        return None
    try:
        reader = get_store().open(run_id)
    except (OSError, WorkbenchError):
        return None
    name = next((d.name for d in reader.info.documents if d.sha256 == sha256), None)
    return (reader, name) if name is not None and name in reader.folders else None


def figure_files(sha256: str, ekey: str, pages: Iterable[int]) -> dict[str, Path]:
    """Figure crops of ``pages`` in this document's run: {file name: path}. One listing of the
    document's folder, whatever the number of pages (not one per page)."""
    found = run_folder(sha256, ekey)
    if found is None:
        return {}
    reader, name = found
    wanted = set(pages)
    out = {}
    for path in reader.folder(name).glob("page-*-*.png"):
        if figure_page(path.name) in wanted:
            out[path.name] = path
    return out


def saved_caption(sha256: str, ekey: str) -> None:
    """Say which run holds this document's results, so the user can find it again."""
    run_id = state.VIEWER_RUNS.get().get((sha256, ekey))
    if run_id:
        st.caption(
            f"Saved as run `{run_id}` in `{get_store().root}` — the Runs page lists it for "
            "comparing, correcting and exporting."
        )
