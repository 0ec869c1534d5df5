"""Every processing in the viewer is also a run in the run store.

One run per (document content, engine key) per session: the first page processed creates
it (named ``<file> · <model>``), later pages of the same document with the same engine go
into the same run, each written atomically as soon as it is done (see
:mod:`workbench.runs.folder`), so closing the app mid-document keeps the finished pages. The
store is the one the Runs page shows (``runs_common.store_dir``). A store that cannot be
written (disk full, no permission) is reported once and never stops the viewer.
"""

from __future__ import annotations

import contextlib
from typing import Any

import streamlit as st

from workbench import __version__
from workbench.errors import WorkbenchError
from workbench.models.registry import ModelSpec
from workbench.pipeline.process import Processed
from workbench.runs.folder import RunWriter
from workbench.schema import PageStatus, RunInfo, RunStatus
from workbench.ui import state
from workbench.ui.files import LoadedFile
from workbench.ui.runs_common import get_store


def writer_for(f: LoadedFile, engine: Any, spec: ModelSpec, ekey: str) -> RunWriter | None:
    runs = state.VIEWER_RUNS.setdefault()  # {(sha256, engine key): run id}
    store = get_store()
    try:
        run_id = runs.get((f.sha256, ekey))
        if run_id is not None and store.path(run_id).exists():
            return RunWriter.open(store.path(run_id))
        assert f.doc is not None
        info = RunInfo(
            id="",
            name=f"{f.name} · {engine.model}",
            engine=engine.name,
            model=engine.model,
            settings={"spec": spec.id, "source": "viewer"},
            versions={"workbench": __version__},
            documents=[f.doc.info()],
        )
        writer = store.create(info)
        runs[(f.sha256, ekey)] = writer.info.id
        return writer
    except (OSError, WorkbenchError) as exc:
        st.warning(f"Results are shown but not saved as a run ({exc}).", icon=":material/save:")
        return None


def record(writer: RunWriter | None, item: Processed) -> None:
    if writer is None:
        return
    try:
        if item.result.page not in writer.done_pages(item.result.document):
            writer.write_page(item.result, item.image)
    except (OSError, WorkbenchError) as exc:
        st.warning(f"Page {item.result.page} not saved to the run store ({exc}).")


def finish(writer: RunWriter | None, interrupted: bool = False) -> None:
    """Close the run: cancelled when the script stopped mid-document (a rerun, a closed
    tab), partial when a page failed, else done. The next visit adds the missing pages."""
    if writer is None:
        return
    bad = any(e.status is PageStatus.ERROR for e in writer.info.pages)
    status = RunStatus.CANCELLED if interrupted else RunStatus.PARTIAL if bad else RunStatus.DONE
    with contextlib.suppress(OSError, WorkbenchError):
        writer.finish(status)


def saved_caption(sha256: str, ekey: str) -> None:
    """Say which run holds this document's results, so the user can find it again."""
    run_id = state.VIEWER_RUNS.get().get((sha256, ekey))
    if run_id:
        st.caption(
            f"Saved as run `{run_id}` in `{get_store().root}` — the Runs page lists it for "
            "comparing, correcting and exporting."
        )
