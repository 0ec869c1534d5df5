"""The background worker's own bookkeeping (:mod:`workbench.ui.jobs.worker`): a session's state, a
stretch of work on one document, and which of a session's pages an engine has in flight.

Nothing here calls Streamlit; the Board holds its lock around every use of a :class:`Session`.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from workbench.engines.base import watchable
from workbench.errors import WorkbenchError
from workbench.pipeline.process import Processed
from workbench.pipeline.runner import RunJob
from workbench.schema import PageResult
from workbench.ui.jobs.records import Ask, DocAsk, Waiting

MAX_NOTES = 5


@dataclass
class Session:
    ask: Ask
    version: int = 0
    seen: float = field(default_factory=time.monotonic)
    failed: set[tuple[str, int]] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)
    runs: dict[tuple[str, str], str] = field(default_factory=dict)
    unsaved: set[tuple[str, str]] = field(default_factory=set)  # store not writable
    current: str = ""
    current_since: float = 0.0  # time.monotonic() when the worker took up ``current``
    last: PageResult | None = None
    stretch: Stretch | None = None  # paused for another session's turn
    running: Task | None = None  # the task the worker is on for this session
    # Runs kept open between stretches of one document (a click on another page cuts a
    # stretch; finishing and reopening the run each time would re-read every page file).
    jobs: dict[tuple[str, str], RunJob] = field(default_factory=dict)
    stopped: bool = False  # the user pressed Stop: nothing is processed until Resume

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
            del self.notes[:-MAX_NOTES]

    def working_on(self, text: str) -> None:
        if text != self.current:
            self.current, self.current_since = text, time.monotonic()

    def live_docs(self) -> list[DocAsk]:
        """The documents whose pages may be in flight for this session now."""
        tasks = [self.running, self.stretch.task if self.stretch is not None else None]
        return [t.doc for t in tasks if t is not None]


@dataclass(frozen=True)
class Task:
    session: str
    version: int
    ask: Ask
    doc: DocAsk
    pages: tuple[int, ...]


@dataclass
class Stretch:
    """Work on one document for one session. Paused between turns with its iterator and run
    kept, so the next turn resumes it instead of preparing its pages again."""

    task: Task
    items: Iterator[Processed]
    job: RunJob | None
    done: int = 0
    finished: set[int] = field(default_factory=set)  # pages yielded (any order: a server's)

    def next_page(self) -> int | None:
        """The first page of the task not finished yet: the one the user waits for."""
        return next((p for p in self.task.pages if p not in self.finished), None)

    def close(self, finish: bool = True) -> None:
        """End it. ``finish``: also finish its run (pages not done leave it cancelled);
        without, the run stays open for the next stretch of the same document."""
        with contextlib.suppress(Exception):
            getattr(self.items, "close", lambda: None)()
        if finish and self.job is not None:
            finish_job(self.job, interrupted=self.done < len(self.task.pages))

    @property
    def key(self) -> tuple[str, str]:
        return job_key(self.task)


def job_key(task: Task) -> tuple[str, str]:
    return (task.doc.sha256, task.ask.ekey)


def finish_job(job: RunJob, interrupted: bool = True) -> None:
    with contextlib.suppress(OSError, WorkbenchError):
        job.finish(interrupted=interrupted)


def idle_jobs(sess: Session, only_unasked: bool = False) -> list[RunJob]:
    """Remove and return the session's open runs that no stretch holds (``only_unasked``: only
    those of documents or engines the session no longer asks for). Call with the lock held;
    finish them without it."""
    held = {t.doc.sha256 for t in (sess.running,) if t is not None}
    if sess.stretch is not None:
        held.add(sess.stretch.task.doc.sha256)
    asked = {(d.sha256, sess.ask.ekey) for d in sess.ask.docs}
    out = []
    for key in list(sess.jobs):
        if key[0] in held or (only_unasked and key in asked and not sess.stopped):
            continue
        out.append(sess.jobs.pop(key))
    return out


def request_key(doc: DocAsk, page: int) -> str:
    """The engine request key of a page (:func:`workbench.pipeline.process.page_key`: the
    document's name in its run, which for a Viewer run of one document is its own name)."""
    return f"{doc.doc.name}#{page}"


def waiting(sess: Session) -> tuple[Waiting, ...]:
    """The session's pages in flight on its engine, oldest first (none for an engine that
    cannot list them). Only documents the worker is on for this session are matched, so
    another session's pages of a same-named file are not shown here."""
    engine = sess.ask.engine
    docs = sess.live_docs()
    if not docs or not watchable(engine):
        return ()
    keys = {request_key(d, p): (d, p) for d in docs for p in d.pages}
    out = []
    for call in engine.in_flight():
        hit = keys.get(call.key)
        if hit is not None:
            d, p = hit
            out.append(Waiting(d.name, d.sha256, p, call.elapsed, call.tokens, call.attempt))
    return tuple(out)


def request_keys(sess: Session, pages: set[tuple[str, int]] | None = None) -> list[str]:
    """Engine request keys of the session's pages of the documents being worked on (all, or
    those of ``pages``): what to cancel; pages not in flight are simply not found."""
    docs = sess.live_docs()
    return [
        request_key(d, p) for d in docs for p in d.pages if pages is None or (d.sha256, p) in pages
    ]


#: How much lower the worker's CPU priority is (``nice`` steps) than the script runs'.
WORKER_NICE = 10


def lower_priority() -> None:
    """Run this thread, and the threads and processes it starts (an engine's threads, the
    page-preparing pool), at a lower CPU priority than the script runs that answer clicks:
    on a machine busy with OCR the user's click comes first (Linux: nice is per thread)."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + WORKER_NICE)


def still_asked(sessions: dict[str, Session], sess: Session, task: Task) -> bool:
    """``sess`` still wants ``task``'s document from the same engine and store (lock held)."""
    ask = sess.ask
    return (
        sessions.get(task.session) is sess
        and not sess.stopped
        and ask.ekey == task.ask.ekey
        and ask.store_root == task.ask.store_root
        and any(doc.sha256 == task.doc.sha256 for doc in ask.docs)
    )
