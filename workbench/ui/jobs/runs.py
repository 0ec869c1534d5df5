"""Which run a Viewer document's pages go to, and saving pages the app already holds.

Contract (issue 24.1: one document, one run):

* A document's pages go to **one run per (document content, engine settings, store)**, shared
  by every session of the process: a document stopped part way and opened again, in the same
  tab or another, goes on in the run holding its first pages (:func:`open_run` finds it in the
  store: a Viewer run of that one document whose recorded settings are the same, else it
  starts one). Two tabs never hold two writers on one run folder.
* Every page the Viewer shows as done is in that run: a page the result cache holds but the
  run lacks (computed for a run since deleted, or for another store) is written to it from
  the cache, with its page image rendered again, never sent to the engine
  (:func:`record_cached`). So "Saved as run X" names a run holding every page shown.
* A PDF's original is kept in the store (:func:`workbench.pipeline.batch.keep_original`),
  for Compare's reference text.

Nothing here calls Streamlit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from workbench.errors import PlanError, StoreError
from workbench.pipeline.batch import keep_original
from workbench.pipeline.prepare import prepare_pages
from workbench.pipeline.process import Processed
from workbench.pipeline.request import run_info
from workbench.pipeline.runner import RunJob
from workbench.runs.store import RunStore
from workbench.schema import PageResult
from workbench.ui.jobs.parts import Task
from workbench.ui.jobs.records import Ask

RunKey = tuple[str, str, str]  # (document sha256, engine key, store root)


def run_key(task: Task) -> RunKey:
    return (task.doc.sha256, task.ask.ekey, str(task.ask.store_root))


def shared_runs(shared: Mapping[RunKey, RunJob], ask: Ask) -> dict[tuple[str, str], str]:
    """The open runs (``shared``, whichever tab opened them) of the documents ``ask`` holds:
    a tab asking for a document done in another has nothing to process, yet names its run."""
    out = {}
    for d in ask.docs:
        job = shared.get((d.sha256, ask.ekey, str(ask.store_root)))
        if job is not None and job.path.is_dir():
            out[(d.sha256, ask.ekey)] = job.run_id
    return out


def open_run(store: RunStore, task: Task, known: str | None) -> RunJob:
    """The run for the task's document: ``known`` (the session's) if it still exists, else
    the newest Viewer run of this one document with the same settings, else a new one.
    Raises OSError or a WorkbenchError when the store cannot be written."""
    ask, d = task.ask, task.doc
    keep_original(store, d.doc)
    if known is not None and store.path(known).exists():
        return RunJob.reopen(store.path(known), ask.engine, ask.spec, ask.dpi)
    info = run_info(
        ask.engine,
        ask.spec,
        name=f"{d.name} · {ask.engine.model}",
        documents=[d.doc.info()],
        dpi=ask.dpi,
        source="viewer",
    )
    for reader in store.document_runs(d.sha256):
        old = reader.info
        if old.settings.get("source") != "viewer" or len(old.documents) != 1:
            continue  # a batch or a CLI run is the user's own; the Viewer does not add to it
        try:  # refuses a run made with another engine, model or settings
            return RunJob.start(reader.path, ask.engine, ask.spec, info)
        except (PlanError, StoreError):
            continue
    return RunJob.create(store, ask.engine, ask.spec, info)


def record_cached(
    job: RunJob,
    task: Task,
    results: Sequence[PageResult],
    on_error: Callable[[PageResult, Exception], None],
) -> set[int]:
    """Write ``results`` (pages of the task's document held in the result cache) to ``job``'s
    run, each with its page image rendered again as the engine saw it; returns the pages the
    run then holds."""
    ask, d = task.ask, task.doc
    name = job.add(d.doc.info())
    by_page = {r.page: r for r in results}
    images = prepare_pages(d.doc, sorted(by_page), ask.spec, job.dpi or None, workers=0)
    for image in images:
        result = by_page[image.index]
        if result.document != name:
            result = result.model_copy(update={"document": name})
        job.write_one(Processed(result, image.image, image.png), on_error)
    return job.writer.recorded_pages(name)
