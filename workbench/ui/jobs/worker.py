"""Background OCR for the Viewer: pages are processed outside the script run.

A script run never waits for the engine: it *asks* for pages (:meth:`Board.ask`) and draws
what the result cache (:mod:`workbench.ui.results`) holds; a click is answered in the time a
rerun takes, whatever the engine is doing. The Viewer polls :meth:`Board.progress` from a
fragment and reruns when the page on screen (or the whole document) is ready.

Contract
--------
* **One worker thread per server process** (:func:`board`, ``st.cache_resource``) serves
  every session, and two sessions never run two copies of a model (one engine instance per
  process, :mod:`workbench.ui.engines`). An engine that interleaves callers (a streaming
  engine: a vLLM server or the shared in-process vLLM engine) gets each session's stretch in a
  thread of its own, so sessions are in it at once and it shares its slots between them; any
  other engine (the CPU engine) sees one session at a time, in turns.
* **An ask replaces the session's previous ask**: engine, files, pages, the page on screen.
  Per session in turn (round robin) the worker takes the page on screen first, then the
  other missing pages in order. A new ask (another page on screen, a file removed, another
  engine) ends the work in progress after the page in progress and plans again. On an engine
  that does not interleave, another session waiting pauses it after :data:`SLICE_S` (at least
  one page per turn); the next turn resumes it where it stopped.
* Pages already in the result cache are never sent to the engine again (any session's).
* **Runs**: one run per (document content, engine key, store), shared by every session and
  found again in the store (:mod:`workbench.ui.jobs.runs`), written by the one run writer as
  each page finishes (a page the cache holds but the run lacks, from the cache), finished when
  the work on it ends: ``done``/``partial``, or ``cancelled`` when cut short (the next stretch
  reopens it). A store that cannot be written is reported in :attr:`Progress.notes`; pages
  are then processed without a run.
* A document that fails as a whole (the engine raises) is reported in the notes and its
  remaining pages are not retried until the session asks for something else.
* A session that has not asked or polled for :data:`FORGET_AFTER_S` is forgotten (its runs
  finished as cancelled); so is every session when the process exits.

Nothing here calls Streamlit from the worker thread.
"""

from __future__ import annotations

import atexit
import functools
import threading
import time
from collections.abc import Callable, Iterator

import streamlit as st

from workbench.engines.base import streams
from workbench.errors import CANCELLED, WorkbenchError
from workbench.pipeline.process import Processed, process_document
from workbench.pipeline.runner import RunJob
from workbench.runs.store import RunStore
from workbench.ui.jobs.controls import SessionControls
from workbench.ui.jobs.parts import (
    Session,
    Stretch,
    Task,
    finish_job,
    idle_jobs,
    job_key,
    lower_priority,
    still_asked,
    waiting,
)
from workbench.ui.jobs.records import Ask, DocAsk, Progress, page_text
from workbench.ui.jobs.runs import RunKey, open_run, record_cached, run_key, shared_runs
from workbench.ui.results import ResultCache, results

#: Seconds one session may keep the engine while another waits (then it stops after the page
#: in progress and the other gets its turn).
SLICE_S = 2.0
#: A session silent this long (no ask, no poll: the tab was closed) is forgotten.
FORGET_AFTER_S = 120.0


class Board(SessionControls):
    """The asks of every session and the worker thread that serves them."""

    def __init__(self, cache: ResultCache) -> None:
        self._cache = cache
        self._cond = threading.Condition()
        self._sessions: dict[str, Session] = {}
        self._order: list[str] = []  # round robin
        self._busy: set[str] = set()  # sessions whose stretch is running
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._shared: dict[RunKey, RunJob] = {}  # a document's open run, whichever session
        self._recorded: dict[RunKey, set[int]] = {}  # pages that run holds
        atexit.register(self.close)

    # ------------------------------------------------------------------ sessions' side
    def ask(self, session: str, ask: Ask) -> Progress:
        """Replace ``session``'s ask; returns its progress. Never waits for the engine."""
        with self._cond:
            old = self._sessions.get(session)
            if old is None:
                old = self._sessions[session] = Session(ask)
                self._order.append(session)
            elif old.ask.plan_key() != ask.plan_key():
                if (old.ask.ekey, old.ask.docs) != (ask.ekey, ask.docs):
                    old.failed.clear()  # something else is asked: failed documents may retry
                    old.stopped = False
                old.ask = ask
                old.version += 1
            else:
                old.ask = ask
            for key, run_id in [*ask.runs, *shared_runs(self._shared, ask).items()]:
                old.runs.setdefault(key, run_id)
            old.seen = time.monotonic()
            self._start()
            self._cond.notify_all()
            return self._progress(session)

    def progress(self, session: str) -> Progress:
        """``session``'s progress (an empty one for a session never seen); counts as a sign
        of life, so a polling tab is not forgotten."""
        with self._cond:
            sess = self._sessions.get(session)
            if sess is not None:
                sess.seen = time.monotonic()
            return self._progress(session)

    def idle(self) -> bool:
        """Nothing to do and nothing in progress."""
        with self._cond:
            return not self._busy and self._next(peek=True) is None

    def wait_idle(self, timeout: float) -> bool:
        """Wait until :meth:`idle` (tests; the app never waits); whether it became idle."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._busy or self._next(peek=True) is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
            return True

    def close(self) -> None:
        """Stop the worker after the page in progress (its run is marked cancelled)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)
        with self._cond:
            paused = [v.stretch for v in self._sessions.values() if v.stretch is not None]
            idle = [job for v in self._sessions.values() for job in idle_jobs(v)]
        for stretch in paused:
            stretch.close()
        for job in idle:
            finish_job(job)

    # ------------------------------------------------------------------ bookkeeping
    def _missing(self, sess: Session) -> list[tuple[DocAsk, int]]:
        """The session's pages not in the cache, or not in the run that is to hold them, and
        not failed: the page on screen first."""
        if sess.stopped:
            return []
        ask = sess.ask
        out = []
        for d in ask.docs:
            saving = ask.store_root is not None and (d.sha256, ask.ekey) not in sess.unsaved
            rkey = (d.sha256, ask.ekey, str(ask.store_root))
            shared = self._shared.get(rkey)
            if saving and shared is not None and not shared.path.is_dir():  # deleted on Runs
                del self._shared[rkey]
                self._recorded.pop(rkey, None)
            recorded = self._recorded.get(rkey, set())
            out += [
                (d, p)
                for p in d.pages
                if (d.sha256, p) not in sess.failed
                and (not self._cache.has(d.sha256, p, ask.ekey) or (saving and p not in recorded))
            ]
        if ask.focus is not None:
            out.sort(key=lambda item: (item[0].sha256, item[1]) != ask.focus)  # stable
        return out

    def _progress(self, session: str) -> Progress:
        sess = self._sessions.get(session)
        if sess is None:
            return Progress()
        ask = sess.ask
        asked = sum(len(d.pages) for d in ask.docs)
        done = sum(self._cache.has(d.sha256, p, ask.ekey) for d in ask.docs for p in d.pages)
        failed = sum(
            (d.sha256, p) in sess.failed and not self._cache.has(d.sha256, p, ask.ekey)
            for d in ask.docs
            for p in d.pages
        )
        return Progress(
            asked=asked,
            done=done,
            failed=failed,
            current=sess.current if session in self._busy else "",
            current_s=time.monotonic() - sess.current_since if session in self._busy else 0.0,
            waiting=waiting(sess),
            stopped=sess.stopped,
            last=sess.last,
            notes=tuple(sess.notes),
            runs=dict(sess.runs),
        )

    def _expire(self) -> list[Callable[[], None]]:
        """Forget silent sessions; returns the closing of their paused work and open runs,
        to be done without the lock."""
        now = time.monotonic()
        closers: list[Callable[[], None]] = []
        for session in [s for s, v in self._sessions.items() if now - v.seen > FORGET_AFTER_S]:
            if session not in self._busy:
                sess = self._sessions.pop(session)
                self._order.remove(session)
                closers += [sess.stretch.close] if sess.stretch is not None else []
                closers += [functools.partial(finish_job, job) for job in idle_jobs(sess)]
        return closers

    def _next(self, peek: bool = False) -> Task | None:
        """The next stretch of work: one document of the next session in turn that has
        pages missing, the page on screen first. Called with the lock held."""
        for i, session in enumerate(self._order):
            sess = self._sessions[session]
            if session in self._busy:
                continue
            if sess.stretch is not None and sess.stretch.task.version == sess.version:
                task = sess.stretch.task  # resume the paused stretch
            else:
                missing = self._missing(sess)
                if not missing:
                    continue
                doc = missing[0][0]
                pages = tuple(p for d, p in missing if d.sha256 == doc.sha256)
                task = Task(session, sess.version, sess.ask, doc, pages)
            if not peek:  # round robin: this session goes to the back of the line
                self._order.append(self._order.pop(i))
            return task
        return None

    def _others_waiting(self, session: str) -> bool:
        return any(s != session and self._missing(v) for s, v in self._sessions.items())

    # ------------------------------------------------------------------ the worker
    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name="viewer-ocr", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        lower_priority()
        while True:
            with self._cond:
                self._cond.notify_all()  # idle waiters
                task, stale = None, []
                while not self._stopping:
                    stale += self._expire()
                    for other in self._sessions.values():  # runs of documents no longer asked
                        stale += [
                            functools.partial(finish_job, job)
                            for job in idle_jobs(other, only_unasked=True)
                        ]
                    task = self._next()
                    if task is not None:
                        break
                    self._cond.wait(timeout=5.0)
                if task is not None:
                    self._busy.add(task.session)
            for closing in stale:
                closing()
            if task is None:
                return
            if streams(task.ask.engine):  # it interleaves callers: this session runs beside
                name = f"viewer-ocr-{task.session[:8]}"
                threading.Thread(target=self._serve, args=(task,), name=name, daemon=True).start()
            else:
                self._serve(task)

    def _serve(self, task: Task) -> None:
        """Run one task; the session is free for its next task afterwards."""
        try:
            self._run(task)
        except BaseException as exc:
            with self._cond:
                sess = self._sessions.get(task.session)
                if sess is not None:
                    sess.failed.update((task.doc.sha256, p) for p in task.pages)
                    why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                    sess.note(f"{task.doc.name}: processing failed ({why})")
        finally:
            with self._cond:
                self._busy.discard(task.session)
                self._cond.notify_all()

    def _begin(self, sess: Session, task: Task) -> Stretch:
        """A new stretch; it ends after the page in progress once the session asks for
        something else (another page on screen, other files, another engine)."""
        ask, d = task.ask, task.doc

        def cancelled() -> bool:
            with self._cond:
                return (
                    self._stopping
                    or self._sessions.get(task.session) is not sess
                    or (sess.version != task.version)
                )

        job = self._job(sess, task)
        cached = [p for p in task.pages if self._cache.has(d.sha256, p, ask.ekey)]
        todo = [p for p in task.pages if p not in set(cached)]
        if job is not None and cached:
            self._record(sess, job, task, cached)
        items: Iterator[Processed] = iter(())
        if job is not None and todo:
            items = job.document(
                d.doc, todo, skip_finished=False, cancelled=cancelled,
                on_write_error=lambda r, exc: self._note(
                    task.session, f"{d.name} page {r.page} not saved to the run store ({exc})"
                ),
            )  # fmt: skip
        elif todo:
            engine, spec = ask.engine, ask.spec
            items = process_document(engine, spec, d.doc, todo, ask.dpi, cancelled=cancelled)
        return Stretch(task, items, job, done=len(cached), finished=set(cached))

    def _record(self, sess: Session, job: RunJob, task: Task, pages: list[int]) -> None:
        """Write pages the cache holds to the run that lacks them (never the engine)."""
        d, ekey = task.doc, task.ask.ekey
        held = [r for p in pages if (r := self._cache.get(d.sha256, p, ekey)) is not None]
        recorded = record_cached(job, task, held, lambda _r, exc: self._unsaved(sess, task, exc))
        with self._cond:
            self._recorded[run_key(task)] = recorded

    def _unsaved(self, sess: Session, task: Task, exc: Exception) -> None:
        with self._cond:
            sess.unsaved.add((task.doc.sha256, task.ask.ekey))  # not tried again and again
            sess.note(f"{task.doc.name}: pages shown are not saved to the run store ({exc})")

    def _run(self, task: Task) -> None:
        """One turn: resume or begin the task's stretch; pause it after :data:`SLICE_S` (and
        at least one page) when another session waits, else run it to its end."""
        ask, d = task.ask, task.doc
        with self._cond:
            sess = self._sessions.get(task.session)
            if sess is None:
                return
            stretch, sess.stretch = sess.stretch, None
        if stretch is not None and stretch.task is not task:
            same = stretch.key == job_key(task)  # the same document: its run stays open
            if not same:
                with self._cond:
                    sess.jobs.pop(stretch.key, None)
            stretch.close(finish=not same)  # asked for something else while paused
            stretch = None
        stretch = stretch or self._begin(sess, task)
        started, turns = time.monotonic(), not streams(ask.engine)
        try:
            with self._cond:
                sess.running = task
                first = stretch.next_page()
                sess.working_on(page_text(d.name, first) if first else "")
            for item in stretch.items:
                r = item.result
                stretch.finished.add(r.page)
                if r.error == CANCELLED and sess.stopped:
                    continue  # stopped, not failed: Resume takes the page up again
                self._cache.put(d.sha256, r.page, ask.ekey, r)
                stretch.done += 1
                with self._cond:
                    if stretch.job is not None:
                        self._recorded.setdefault(run_key(task), set()).add(r.page)
                    sess.last = r
                    left = stretch.next_page()
                    sess.working_on(page_text(d.name, left) if left else "")
                    self._cond.notify_all()
                    late = turns and time.monotonic() - started > SLICE_S
                    if late and self._others_waiting(task.session):
                        sess.stretch = stretch  # resumed on this session's next turn
                        return
        except WorkbenchError as exc:
            with self._cond:
                sess.failed.update((d.sha256, p) for p in task.pages if p not in stretch.finished)
                sess.note(f"{d.name}: {exc}")
        except BaseException:
            with self._cond:
                sess.jobs.pop(stretch.key, None)
            stretch.close()
            raise
        finally:
            with self._cond:
                sess.running = None
        with self._cond:  # cut short by a click on another page: the run stays open
            keep = stretch.done < len(task.pages) and still_asked(self._sessions, sess, task)
            keep = keep and not self._stopping
            if not keep:
                sess.jobs.pop(stretch.key, None)
        stretch.close(finish=not keep)

    def _note(self, session: str, text: str) -> None:
        with self._cond:
            sess = self._sessions.get(session)
            if sess is not None:
                sess.note(text)

    def _job(self, sess: Session, task: Task) -> RunJob | None:
        """The run this document's pages go to (see :mod:`workbench.ui.jobs.runs`), or None
        when the session does not save runs or its store cannot be written."""
        ask, d = task.ask, task.doc
        key, rkey = (d.sha256, ask.ekey), run_key(task)
        if ask.store_root is None or key in sess.unsaved:
            return None
        with self._cond:
            kept = sess.jobs.get(key)
            if kept is not None and not kept.path.is_dir():  # its run was deleted meanwhile
                kept = sess.jobs.pop(key) and None
            shared = self._shared.get(rkey)
            if kept is None and shared is not None and shared.path.is_dir():
                kept = shared  # another tab's run of this document, or this tab's stopped one
        if kept is not None:
            kept.replan(ask.engine)  # the stretch before was cut short: its pages are re-asked
            kept.writer.mark_running()
            with self._cond:
                sess.jobs[key], sess.runs[key] = kept, kept.run_id
            return kept
        try:
            job = open_run(RunStore(ask.store_root), task, sess.runs.get(key))
            recorded = job.writer.recorded_pages(job.add(d.doc.info()))
        except (OSError, WorkbenchError) as exc:
            with self._cond:
                sess.unsaved.add(key)
                sess.note(f"Results are shown but not saved as a run ({exc}).")
            return None
        with self._cond:
            sess.runs[key] = job.run_id
            sess.jobs[key] = self._shared[rkey] = job
            self._recorded[rkey] = recorded
        return job


@st.cache_resource
def board() -> Board:
    """The process's board and worker, shared by every session."""
    return Board(results())
