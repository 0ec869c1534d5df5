"""The run folder ``ocr --out DIR`` writes into: whose it is, whether anything is left, and
whether this command may add to it.

A folder holds one run: the same ``--run-name`` resumes it; another name is refused. Settings
that contradict the run's are refused too (:meth:`workbench.pipeline.runner.RunJob.start`,
by the comparison :class:`workbench.pipeline.request.RunShape` makes, which also keeps
"nothing left to do" from being said to such a command).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from workbench.documents import AnyDocument
from workbench.errors import WorkbenchError, display_name
from workbench.pipeline.runner import finished_pages
from workbench.runs.folder import RunReader


def existing_run(out: Path, run_name: str) -> RunReader | None:
    """The run already in ``out`` (None when there is none or its manifest is unreadable);
    refuses another run's folder before anything is written there."""
    if not (out / "manifest.json").exists():
        return None
    try:
        reader = RunReader(out)
    except WorkbenchError:
        return None  # a corrupt manifest: the writer rebuilds it from the page files
    if reader.info.name != run_name:
        raise WorkbenchError(
            f"{display_name(out)} holds the run {reader.info.name!r}; pass --run-name "
            f"{reader.info.name} to resume it, or choose another --out"
        )
    return reader


def nothing_left(out: Path, wanted: Sequence[tuple[AnyDocument, list[int]]]) -> bool:
    for doc, pages in wanted:
        done = finished_pages(out, doc.info())
        if done is None or not set(pages) <= done:
            return False
    return True
