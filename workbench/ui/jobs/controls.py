"""Stop, Resume, Cancel and Retry for one Viewer session: the part of
:class:`workbench.ui.jobs.worker.Board` the user's buttons call (a mixin over the board's lock,
sessions and result cache; nothing here calls Streamlit)."""

from __future__ import annotations

import threading

from workbench.engines.base import watchable
from workbench.ui.jobs.parts import Session, finish_job, idle_jobs, request_keys
from workbench.ui.results import ResultCache


class SessionControls:
    _cond: threading.Condition
    _sessions: dict[str, Session]
    _cache: ResultCache

    def _start(self) -> None:
        raise NotImplementedError

    def stop(self, session: str) -> None:
        """Stop ``session``'s processing: pages in flight on a watchable engine end at once
        (cancelled), others after the page in progress; nothing more is taken up until
        :meth:`resume` (or a new ask with other files or another engine)."""
        with self._cond:
            sess = self._sessions.get(session)
            if sess is None:
                return
            sess.stopped = True
            sess.version += 1  # the stretch in progress ends after its page
            keys, engine = request_keys(sess), sess.ask.engine
            paused, sess.stretch = sess.stretch, None
            if paused is not None:
                sess.jobs.pop(paused.key, None)
            idle = idle_jobs(sess)  # the running stretch's run is finished when it ends
            self._cond.notify_all()
        if watchable(engine):
            engine.cancel(keys)
        if paused is not None:
            paused.close()
        for job in idle:
            finish_job(job)

    def resume(self, session: str) -> None:
        with self._cond:
            sess = self._sessions.get(session)
            if sess is not None and sess.stopped:
                sess.stopped = False
                sess.version += 1
                self._start()
                self._cond.notify_all()

    def cancel_page(self, session: str, sha256: str, page: int) -> None:
        """End one page's call in flight at once (a watchable engine): it is recorded as
        failed with "cancelled by the user", and the other pages go on."""
        with self._cond:
            sess = self._sessions.get(session)
            if sess is None:
                return
            keys, engine = request_keys(sess, {(sha256, page)}), sess.ask.engine
        if watchable(engine):
            engine.cancel(keys)

    def retry_page(self, session: str, sha256: str, page: int, ekey: str) -> None:
        """Process a failed page again (its cached result is dropped, its run page replaced)."""
        with self._cond:
            self._cache.drop(sha256, page, ekey)
            sess = self._sessions.get(session)
            if sess is not None:
                sess.failed.discard((sha256, page))
                self._start()
                self._cond.notify_all()

    def retry_failed(self, session: str) -> int:
        """Process again every failed page of ``session``'s ask (a server that went away:
        their cached results dropped, their run pages replaced once done), and the pages of
        documents that failed as a whole; returns how many pages go back to the engine."""
        with self._cond:
            sess = self._sessions.get(session)
            if sess is None:
                return 0
            ekey, count = sess.ask.ekey, len(sess.failed)
            for doc in sess.ask.docs:
                for page in doc.pages:
                    result = self._cache.get(doc.sha256, page, ekey)
                    if result is None or not result.error or (doc.sha256, page) in sess.failed:
                        continue
                    self._cache.drop(doc.sha256, page, ekey)
                    count += 1
            sess.failed.clear()
            self._start()
            self._cond.notify_all()
        return count
