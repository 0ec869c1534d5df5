"""OCR results shared by every session of this process: a thread-safe LRU of
:class:`~workbench.schema.PageResult` keyed by (sha256, page, engine key), where the engine
key names engine, model and settings (never the API key; see
:func:`workbench.ui.engines.engine_key`). The background worker (:mod:`workbench.ui.jobs.worker`)
puts results here as pages finish; pages read them, so a rerun never recomputes OCR."""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from workbench.schema import PageResult

MAX_CACHED_RESULTS = 5000


class ResultCache:
    """Thread-safe LRU of PageResults shared by every session of this process."""

    def __init__(self, size: int = MAX_CACHED_RESULTS) -> None:
        self._items: OrderedDict[tuple[str, int, str], PageResult] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def get(self, sha: str, page: int, ekey: str) -> PageResult | None:
        with self._lock:
            item = self._items.get((sha, page, ekey))
            if item is not None:
                self._items.move_to_end((sha, page, ekey))
            return item

    def has(self, sha: str, page: int, ekey: str) -> bool:
        with self._lock:
            return (sha, page, ekey) in self._items

    def put(self, sha: str, page: int, ekey: str, result: PageResult) -> None:
        with self._lock:
            self._items[(sha, page, ekey)] = result
            self._items.move_to_end((sha, page, ekey))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def drop(self, sha: str, page: int, ekey: str) -> None:
        with self._lock:
            self._items.pop((sha, page, ekey), None)

    def __len__(self) -> int:
        return len(self._items)


@st.cache_resource
def results() -> ResultCache:
    return ResultCache()
