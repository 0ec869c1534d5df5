"""Every processing in the viewer is also a run in the run store, written by the one run
writer (:mod:`workbench.pipeline.runner`), as the CLI, Batch and Compare write theirs.

One run per (document content, engine key) per session: the first page processed creates
it (named ``<file> · <model>``), later pages of the same document with the same engine go
into the same run, each written atomically with its figure crops as soon as it is done, so
closing the app mid-document keeps the finished pages. The store is the one the Runs page
shows (``runs_common.store_dir``). A store that cannot be written (disk full, no permission)
is reported and never stops the viewer: the pages are then processed without a run.

Use (the page on screen first, then the rest, each call its own job)::

    job = job_for(f, engine, spec, ekey, dpi)
    for item in process_pages(job, f, engine, spec, pages, dpi): ...
    finish(job, interrupted=...)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from workbench.errors import WorkbenchError
from workbench.models.registry import ModelSpec
from workbench.pipeline.process import Processed, process_document
from workbench.pipeline.runner import RunJob, run_info
from workbench.runs.folder import RunReader
from workbench.schema import PageResult
from workbench.ui import state
from workbench.ui.files import LoadedFile
from workbench.ui.runs_common import get_store


def job_for(f: LoadedFile, engine: Any, spec: ModelSpec, ekey: str, dpi: float) -> RunJob | None:
    """The run this document's pages go to with this engine (created on first use); None
    (after a warning) when the store cannot be written."""
    runs = state.VIEWER_RUNS.setdefault()  # {(sha256, engine key): run id}
    store = get_store()
    try:
        run_id = runs.get((f.sha256, ekey))
        if run_id is not None and store.path(run_id).exists():
            return RunJob.reopen(store.path(run_id), engine, spec, dpi)
        assert f.doc is not None
        info = run_info(
            engine,
            spec,
            name=f"{f.name} · {engine.model}",
            documents=[f.doc.info()],
            dpi=dpi,
            source="viewer",
        )
        job = RunJob.create(store, engine, spec, info)
        runs[(f.sha256, ekey)] = job.run_id
        return job
    except (OSError, WorkbenchError) as exc:
        st.warning(f"Results are shown but not saved as a run ({exc}).", icon=":material/save:")
        return None


def _not_saved(result: PageResult, exc: Exception) -> None:
    st.warning(f"Page {result.page} not saved to the run store ({exc}).")


def process_pages(
    job: RunJob | None,
    f: LoadedFile,
    engine: Any,
    spec: ModelSpec,
    pages: Sequence[int],
    dpi: float,
) -> Iterator[Processed]:
    """Process ``pages`` of the file in the order given, prepared for the model as the CLI
    prepares them; with a job each page is written to its run as it finishes (a page
    already in the run is processed again for the screen, not rewritten)."""
    assert f.doc is not None
    if job is None:
        return process_document(engine, spec, f.doc, list(pages), dpi)
    return job.document(f.doc, pages, skip_finished=False, on_write_error=_not_saved)


def finish(job: RunJob | None, interrupted: bool = False) -> None:
    """Close the run with the run writer's one status rule: cancelled when the script
    stopped mid-document (a rerun, a closed tab), partial when a page failed, else done.
    The next visit adds the missing pages."""
    if job is None:
        return
    with contextlib.suppress(OSError, WorkbenchError):
        job.finish(interrupted=interrupted)


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
    """Figure crops of ``pages`` in this document's run: {file name: path}."""
    found = run_folder(sha256, ekey)
    if found is None:
        return {}
    reader, name = found
    return {
        p.name: p
        for page in pages
        for p in reader.files(name, page)
        if p.suffix == ".png" and p.stem.startswith(f"page-{page:04d}-")
    }


def saved_caption(sha256: str, ekey: str) -> None:
    """Say which run holds this document's results, so the user can find it again."""
    run_id = state.VIEWER_RUNS.get().get((sha256, ekey))
    if run_id:
        st.caption(
            f"Saved as run `{run_id}` in `{get_store().root}` — the Runs page lists it for "
            "comparing, correcting and exporting."
        )
