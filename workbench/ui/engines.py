"""The engine a session uses: what the sidebar picked, built once per process and shared.

* **One engine per process**: ``st.cache_resource`` with one entry, keyed by the engine
  options. A different choice releases the old engine *before* the new one is built
  (:func:`use_engine` clears the cache and collects garbage first), so two models never sit
  in GPU memory at once. The cache holds an :class:`~workbench.pipeline.engine_holder.
  EngineHolder` (the rule the service shares): an engine that died (``dead`` set: vLLM's
  EngineCore is gone) is released and built again on its next use, so the run resumes on a
  new one. Every session
  with the same choice gets the same instance; the Viewer's pages reach it through one
  background worker (:mod:`workbench.ui.jobs.worker`), a thread per session on an engine
  that interleaves them.
* **Choice**: the sidebar stores an :class:`EngineChoice` in session state
  (:data:`workbench.ui.state.ENGINE_CHOICE`); :func:`current_choice` reads it.

Test seams, both outside this package's imports of ``tests``:

* ``WORKBENCH_ENGINE_FACTORY=module:callable`` names an importable callable that takes the
  :class:`EngineChoice` and returns the engine to use instead of the real one (the browser
  tests name ``tests.fakes.fake_engine:from_env``). Read here and nowhere else.
* AppTest may put an engine object in :data:`workbench.ui.state.ENGINE_OVERRIDE`.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import itertools
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from workbench.engines.base import Engine
from workbench.engines.factory import CpuOptions
from workbench.errors import EngineUnavailable
from workbench.models.registry import ModelSpec
from workbench.pipeline.engine_holder import EngineHolder
from workbench.pipeline.request import RunRequest
from workbench.settings import Settings
from workbench.ui import state
from workbench.ui.config import settings

FACTORY_ENV = "WORKBENCH_ENGINE_FACTORY"


@dataclass(frozen=True)
class EngineChoice:
    """What the sidebar picked: a kind, its options object (from engines.factory) and, for
    the in-process engine, the GPU tuning profile it is planned with when it loads."""

    kind: str  # "cpu", "vllm-server", "vllm"
    options: Any = None  # CpuOptions | ServerOptions | LocalOptions
    profile: str | None = None

    @property
    def key(self) -> str:
        opts = self.options
        if opts is None:
            return self.kind
        fields = getattr(opts, "__dict__", {}) or {}
        shown = {k: v for k, v in sorted(fields.items()) if k != "api_key"}
        return f"{self.kind}:{shown}" + (f"|{self.profile}" if self.profile else "")

    @property
    def request(self) -> RunRequest:
        """The run request this choice makes (the app's pages ask no ``max_tokens``; the CPU
        engine's DPI setting is the request's DPI)."""
        dpi = self.options.dpi if isinstance(self.options, CpuOptions) else None
        options = self.options or CpuOptions()
        return RunRequest(options, dpi=dpi, profile=self.profile, settings=settings())


def _factory_hook() -> Callable[[EngineChoice], Engine] | None:
    """The callable named by ``WORKBENCH_ENGINE_FACTORY`` (``module:callable``), or None."""
    value = os.environ.get(FACTORY_ENV, "").strip()
    if not value:
        return None
    module, _, name = value.partition(":")
    try:
        hook = getattr(importlib.import_module(module), name or "build")
    except (ImportError, AttributeError) as exc:
        raise EngineUnavailable(f"{FACTORY_ENV}={value!r} cannot be loaded ({exc})") from None
    return hook


def _build(choice: EngineChoice) -> Engine:
    hook = _factory_hook()
    if hook is not None:
        return hook(choice)
    # The CPU engine's OCR runs in a worker process: in the app's process it would hold the
    # GIL in stretches and slow every script run that answers a click (benchmarks/viewer_clicks.py).
    own = not Settings.from_env().cpu_in_process
    engine, _ = choice.request.open(own_process=own)
    return engine


def _close(holder: EngineHolder) -> None:
    holder.close()  # releasing never fails the page (the holder swallows closing errors)


@st.cache_resource(max_entries=1, show_spinner="Loading engine…", on_release=_close)
def _engine(key: str, _choice: EngineChoice) -> EngineHolder:
    """The process's one holder (:mod:`workbench.pipeline.engine_holder`): its first engine
    is built here, under the spinner; a rebuild after a death happens in :func:`use_engine`."""
    holder = EngineHolder(lambda: _build(_choice))
    holder.get()
    return holder


_current_key: dict[str, str] = {}
_loaded: dict[str, weakref.ref[Any]] = {}  # choice key -> the engine built for it (telemetry)
_described: dict[str, tuple[int, dict[str, str]]] = {}  # choice key -> (engine id, facts)
_engine_lock = threading.Lock()


def use_engine(choice: EngineChoice) -> Engine:
    """The engine for ``choice``; a different choice releases the previous engine first."""
    override = state.ENGINE_OVERRIDE.get()
    if override is not None:
        return override
    with _engine_lock:  # two sessions building at once still get one engine
        if _current_key.get("key") not in (None, choice.key):
            _engine.clear()  # release the old engine BEFORE building the new one
            gc.collect()
        _current_key["key"] = choice.key
        holder = _engine(choice.key, choice)
        # vLLM died: the holder releases the dead engine (its GPU memory) and builds a new one
        with st.spinner("Loading engine…") if holder.stale else contextlib.nullcontext():
            engine = holder.get()
    with contextlib.suppress(TypeError):  # an engine without weak references: not watched
        _loaded.clear()
        _loaded[choice.key] = weakref.ref(engine)
    known = _described.get(choice.key)
    if known is None or known[0] != id(engine):  # a new engine describes itself again
        try:
            facts = dict(engine.describe())
        except Exception:
            facts = {"engine": engine.name, "model": engine.model}
        _described.clear()
        _described[choice.key] = (id(engine), facts)
    return engine


def loaded_engine(choice: EngineChoice) -> Engine | None:
    """The engine already built for ``choice`` (AppTest's override first), or None: never
    builds one (a panel that watches an engine must not load a model)."""
    override = state.ENGINE_OVERRIDE.get()
    if override is not None:
        return override
    ref = _loaded.get(choice.key)
    engine = ref() if ref is not None else None
    return None if engine is None or getattr(engine, "closed", False) else engine


def overridden() -> bool:
    """True when AppTest replaced this session's engine."""
    return state.ENGINE_OVERRIDE.get() is not None


# An injected engine's cache key must name that very object for as long as any result keyed by
# it lives. ``id()`` does not: CPython reuses the address of a freed engine, so a later test's
# engine (one made to fail a page) read the earlier one's cached pages. A serial number held
# by a weak map is never reused.
_OVERRIDE_SERIALS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_OVERRIDE_COUNT = itertools.count(1)
_SERIAL_LOCK = threading.Lock()


def _override_serial(engine: Engine) -> int:
    with _SERIAL_LOCK:
        serial = _OVERRIDE_SERIALS.get(engine)
        if serial is None:
            serial = _OVERRIDE_SERIALS[engine] = next(_OVERRIDE_COUNT)
        return serial


def engine_key(engine: Engine, choice: EngineChoice) -> str:
    """The OCR-cache key part naming engine, model and settings. An injected (AppTest) engine
    is named by a serial number unique to that object in this process."""
    if overridden():
        return f"override:{engine.name}:{engine.model}:{_override_serial(engine)}"
    return f"{choice.key}|{engine.name}|{engine.model}"


def dpi_for(spec: ModelSpec) -> float:
    """The DPI pages of ``spec`` are rendered at: the CPU engine's sidebar setting for the
    CPU engine, else the model's rule (:meth:`RunRequest.render_dpi`)."""
    choice = current_choice() if spec.family == "cpu" else None
    request = choice.request if choice is not None else RunRequest(settings=settings())
    return request.render_dpi(spec)


def current_choice() -> EngineChoice | None:
    """The engine the sidebar picked for this session; the embedded CPU engine by default,
    None when the picked engine is not configured (e.g. no server model)."""
    value = state.ENGINE_CHOICE.get()
    if isinstance(value, EngineChoice):
        return value
    return None if state.ENGINE_NONE.get() else EngineChoice("cpu")


def description(choice: EngineChoice) -> dict[str, str] | None:
    """What the loaded engine for ``choice`` says about itself; None before it is built."""
    known = _described.get(choice.key)
    return known[1] if known is not None else None
