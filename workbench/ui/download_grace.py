"""A download built for a click lives until the browser has had time to fetch it.

Streamlit 1.67 builds a deferred download (``st.download_button(data=callable)``, which the
Viewer, Compare and Runs use so that a rerun never pays for a long document's ZIP or JSON) when
the user clicks, stores the file referenced by no session, and deletes every unreferenced
download at the end of the *second* script run after it: any session's run, fragments
included (the sidebar's GPU panel reruns every 2 s, the Viewer's progress every 0.5-1 s). A
browser that takes longer than two such runs to fetch the file gets a 404: the download is
"canceled", or saved under the file's hash instead of its name. Seen in the browser tests
under load; a user with several tabs open meets it on a busy machine.

:func:`install` keeps each file built for a click out of that sweep for :data:`GRACE_S`
seconds; afterwards Streamlit removes it as before. Static downloads and media are untouched.
It wraps two methods of Streamlit's ``MediaFileManager``: ``execute_deferred`` (public) and
``_get_inactive_file_ids`` (private, the set the sweep deletes from). Where either is missing
it changes nothing, logs why and returns False; tests/ui/test_download_grace.py then fails, so
a Streamlit upgrade that moves them says so in CI.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

log = logging.getLogger(__name__)

#: Seconds a file built for a click is kept: far beyond any browser's fetch (milliseconds on a
#: quiet machine, seconds under load), short enough that clicked files do not pile up.
GRACE_S = 120.0

_MARK = "_workbench_download_grace"
_install_lock = threading.Lock()


class Grace:
    """File ids kept until their deadline (thread-safe: the click's thread adds, any script
    run's sweep reads)."""

    def __init__(self, grace_s: float, clock: Callable[[], float]) -> None:
        self._grace_s = grace_s
        self._clock = clock
        self._until: dict[str, float] = {}
        self._lock = threading.Lock()

    def keep(self, file_id: str) -> None:
        with self._lock:
            self._until[file_id] = self._clock() + self._grace_s

    def kept(self) -> set[str]:
        """The ids still within their grace (expired ones are forgotten here)."""
        now = self._clock()
        with self._lock:
            for file_id in [f for f, until in self._until.items() if until <= now]:
                del self._until[file_id]
            return set(self._until)


def file_id_of(url: str) -> str:
    """The storage id in a media URL (``/media/<id>.<ext>``, Streamlit's MemoryMediaFileStorage)."""
    return PurePosixPath(url).name.split(".", 1)[0]


def install(
    manager: Any = None, *, grace_s: float = GRACE_S, clock: Callable[[], float] = time.monotonic
) -> bool:
    """Keep this app's clicked downloads for ``grace_s`` seconds; True once installed (again:
    a no-op). ``manager`` defaults to the running app's MediaFileManager."""
    if manager is None:
        from streamlit import runtime

        if not runtime.exists():
            return False
        manager = runtime.get_instance().media_file_mgr
    with _install_lock:
        if getattr(manager, _MARK, None) is not None:
            return True
        execute = getattr(manager, "execute_deferred", None)
        inactive = getattr(manager, "_get_inactive_file_ids", None)
        if not callable(execute) or not callable(inactive):
            log.warning(
                "Streamlit's MediaFileManager has no execute_deferred/_get_inactive_file_ids: "
                "clicked downloads are not kept (a slow browser may get 'canceled')"
            )
            return False
        grace = Grace(grace_s, clock)

        def execute_deferred(file_id: str) -> str:
            url: str = execute(file_id)
            grace.keep(file_id_of(url))
            return url

        def inactive_file_ids() -> set[str]:
            return set(inactive()) - grace.kept()

        manager.execute_deferred = execute_deferred
        manager._get_inactive_file_ids = inactive_file_ids
        setattr(manager, _MARK, grace)
        return True
