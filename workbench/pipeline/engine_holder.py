"""One engine held for a front end: built on first use, released and rebuilt when it died,
closed on shutdown. The app (:mod:`workbench.ui.engines`, which keeps the holder in
``st.cache_resource``) and the service (:mod:`workbench.service.jobs`) hold their engine here.

Contract
--------
* :meth:`EngineHolder.get` returns the engine, building it (``build()``) the first time.
* An engine whose ``dead`` attribute is set (vLLM's EngineCore is gone:
  :mod:`workbench.engines.dead`) is closed *before* its successor is built (its GPU memory
  released first, so two engines never sit on the GPU at once); the next :meth:`get` builds
  a new one with the same ``build``. Work already holding the dead engine fails on it (its
  pages get the engine's reason); work that asks after gets the new engine.
* :meth:`close` closes the engine held (errors while closing are swallowed: releasing never
  fails the caller); a later :meth:`get` builds again.
* Thread-safe: concurrent callers get one engine, never two builds at once.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable

from workbench.engines.base import Engine


def is_dead(engine: Engine) -> bool:
    """Whether ``engine`` reports its backend died (its ``dead`` attribute is set)."""
    return getattr(engine, "dead", None) is not None


def close_quietly(engine: Engine) -> None:
    """Close ``engine``; an error while closing is not the caller's problem."""
    with contextlib.suppress(Exception):
        engine.close()


class EngineHolder:
    """The one engine of a front end (see the module contract)."""

    def __init__(self, build: Callable[[], Engine]) -> None:
        self._build = build
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self.builds = 0  # engines built so far (a rebuild after a death adds one)

    @property
    def current(self) -> Engine | None:
        """The engine held now, dead or alive; None before the first build. Builds nothing."""
        return self._engine

    @property
    def stale(self) -> bool:
        """Whether the next :meth:`get` builds an engine (none yet, or the one held died)."""
        engine = self._engine
        return engine is None or is_dead(engine)

    def get(self) -> Engine:
        """The engine, alive: built now when there is none or the one held died."""
        with self._lock:
            engine = self._engine
            if engine is not None and is_dead(engine):
                self._engine = None
                close_quietly(engine)  # its memory goes before the new one loads
                del engine
                gc.collect()
                engine = None
            if engine is None:
                engine = self._engine = self._build()
                self.builds += 1
            return engine

    def close(self) -> None:
        """Close the engine held, if any."""
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            close_quietly(engine)
