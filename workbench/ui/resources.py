"""Cached resources behind the UI: engines, opened documents, page images and OCR results.

Caching contract (nothing here is recomputed by navigation, label toggles or selection):

* **Engine**: ``st.cache_resource`` with one entry, keyed by the engine options. A different
  choice releases the old engine *before* the new one is built (:func:`use_engine` clears the
  cache and collects garbage first), so two models never sit in GPU memory at once.
* **Documents**: ``st.cache_resource`` keyed by (sha256, name): one PDFium handle per file,
  shared read-only by every session (documents.py serialises PDFium behind a lock).
* **Page images**: ``st.cache_data`` keyed by (sha256, page, dpi).
* **OCR results**: a process-wide LRU dict keyed by (sha256, page, engine key) where the
  engine key names engine, model and settings (never the API key).

Test seam: ``WORKBENCH_FAKE_ENGINE`` (read here and nowhere else) replaces every engine with
the deterministic ``tests.fakes.fake_engine.FakeEngine`` (value: seconds of delay per page,
``1`` meaning none); AppTest may also put an engine in ``st.session_state["engine_override"]``.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import streamlit as st
from PIL import Image

from workbench.documents import Document, open_document
from workbench.engines.base import Engine
from workbench.errors import DocumentError, EngineUnavailable, WorkbenchError
from workbench.models.registry import CPU_SPEC, ModelSpec, PageSizing, get_spec, match_served_model
from workbench.pipeline.process import model_input, render_dpi
from workbench.schema import PageImage, PageResult
from workbench.settings import Settings

OVERRIDE_KEY = "engine_override"
MAX_CACHED_RESULTS = 5000


@st.cache_resource
def settings() -> Settings:
    return Settings.from_env()


# ---------------------------------------------------------------------------- documents
@dataclass(frozen=True)
class LoadedFile:
    """An uploaded or sample file: opened, or refused with a reason naming it."""

    name: str
    sha256: str
    doc: Document | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.doc is not None


@st.cache_resource(max_entries=64, show_spinner=False)
def _open_cached(sha256: str, name: str, _data: bytes) -> tuple[Document | None, str | None]:
    try:
        return open_document(name, _data, settings()), None
    except DocumentError as exc:
        return None, str(exc)
    except Exception as exc:  # a library failing in a new way must not take the app down
        return None, f"{name}: cannot be read ({type(exc).__name__}: {exc})"


def load_file(name: str, data: bytes, upload_id: str | None = None) -> LoadedFile:
    """Open (or fetch from cache) one file; ``upload_id`` memoizes its hash for the session,
    so a 200 MB upload is not re-hashed on every rerun."""
    memo: dict[str, str] = st.session_state.setdefault("wb_sha_memo", {})
    sha = memo.get(upload_id) if upload_id else None
    if sha is None:
        sha = hashlib.sha256(data).hexdigest()
        if upload_id:
            memo[upload_id] = sha
    doc, error = _open_cached(sha, name, data)
    return LoadedFile(name, sha, doc, error)


@st.cache_data(max_entries=16, show_spinner=False)  # ~11 MB a page at 200 DPI
def page_image(sha256: str, name: str, index: int, dpi: float, _doc: Document) -> PageImage:
    """The rasterized page (cached by file content, page and DPI)."""
    return _doc.page(index, dpi)


@st.cache_data(max_entries=256, show_spinner=False)
def display_image(
    sha256: str,
    name: str,
    index: int,
    dpi: float,
    sizing: PageSizing,
    max_width: int,
    _doc: Document,
) -> bytes:
    """JPEG bytes of the page as the engine saw it (spec sizing), at most ``max_width`` wide."""
    image = model_input(page_image(sha256, name, index, dpi, _doc).image, sizing)
    if image.width > max_width:
        h = max(1, round(image.height * max_width / image.width))
        image = image.resize((max_width, h), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "JPEG", quality=88)
    return buf.getvalue()


# ---------------------------------------------------------------------------- engines
@dataclass(frozen=True)
class EngineChoice:
    """What the sidebar picked: a kind and its options object (from engines.factory)."""

    kind: str  # "cpu", "vllm-server", "vllm"
    options: Any = None  # CpuOptions | ServerOptions | LocalOptions

    @property
    def key(self) -> str:
        opts = self.options
        if opts is None:
            return self.kind
        fields = getattr(opts, "__dict__", {}) or {}
        shown = {k: v for k, v in sorted(fields.items()) if k != "api_key"}
        return f"{self.kind}:{shown}"


def _fake_delay() -> float | None:
    value = os.environ.get("WORKBENCH_FAKE_ENGINE", "").strip()
    if value in ("", "0", "false", "no"):
        return None
    try:
        delay = float(value)
    except ValueError:
        return 0.0
    return 0.0 if delay == 1 else delay


def _build(choice: EngineChoice) -> Engine:
    delay = _fake_delay()
    if delay is not None:
        from tests.fakes.fake_engine import FakeEngine  # test seam, see module docstring

        return FakeEngine(delay=delay)
    try:
        from workbench.engines import factory
    except ImportError as exc:
        raise EngineUnavailable(f"the engine factory is not available ({exc})") from None
    if choice.options is None:
        return factory.build_engine(factory.CpuOptions())
    return factory.build_engine(choice.options)


def _close(engine: Engine) -> None:
    with contextlib.suppress(Exception):  # releasing must never fail the page
        engine.close()


@st.cache_resource(max_entries=1, show_spinner="Loading engine…", on_release=_close)
def _engine(key: str, _choice: EngineChoice) -> Engine:
    return _build(_choice)


_current_key: dict[str, str] = {}
_described: dict[str, dict[str, str]] = {}
_engine_lock = threading.Lock()


def use_engine(choice: EngineChoice) -> Engine:
    """The engine for ``choice``; a different choice releases the previous engine first."""
    override = st.session_state.get(OVERRIDE_KEY)
    if override is not None:
        return override
    with _engine_lock:
        if _current_key.get("key") not in (None, choice.key):
            _engine.clear()  # release the old engine BEFORE building the new one
            gc.collect()
        _current_key["key"] = choice.key
    engine = _engine(choice.key, choice)
    if choice.key not in _described:
        try:
            _described.clear()
            _described[choice.key] = dict(engine.describe())
        except Exception:
            _described[choice.key] = {"engine": engine.name, "model": engine.model}
    return engine


def engine_key(engine: Engine, choice: EngineChoice) -> str:
    """The OCR-cache key part naming engine, model and settings."""
    if st.session_state.get(OVERRIDE_KEY) is not None:
        return f"override:{engine.name}:{engine.model}:{id(engine)}"
    return f"{choice.key}|{engine.name}|{engine.model}"


def spec_for(engine: Engine) -> ModelSpec:
    """The model spec an engine runs: its own ``spec`` if it has one, else by its name/model."""
    spec = getattr(engine, "spec", None)
    if isinstance(spec, ModelSpec):
        return spec
    if engine.name in ("cpu", "fake"):
        return CPU_SPEC
    found = match_served_model(engine.model)
    if found is None:
        try:
            return get_spec(engine.model)
        except KeyError as exc:
            raise WorkbenchError(
                f"no model spec matches the served model {engine.model!r}: {exc.args[0]}"
            ) from None
    return found


def dpi_for(spec: ModelSpec) -> float:
    return render_dpi(spec, settings().dpi)


# ---------------------------------------------------------------------------- OCR results
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

    def put(self, sha: str, page: int, ekey: str, result: PageResult) -> None:
        with self._lock:
            self._items[(sha, page, ekey)] = result
            self._items.move_to_end((sha, page, ekey))
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@st.cache_resource
def results() -> ResultCache:
    return ResultCache()


CHOICE_KEY = "engine_choice"


NO_ENGINE_KEY = "engine_none"


def current_choice() -> EngineChoice | None:
    """The engine the sidebar picked for this session; the embedded CPU engine by default,
    None when the picked engine is not configured (e.g. no server model)."""
    value = st.session_state.get(CHOICE_KEY)
    if isinstance(value, EngineChoice):
        return value
    return None if st.session_state.get(NO_ENGINE_KEY) else EngineChoice("cpu")


def description(choice: EngineChoice) -> dict[str, str] | None:
    """What the loaded engine for ``choice`` says about itself; None before it is built."""
    return _described.get(choice.key)
