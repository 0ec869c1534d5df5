"""Every ``st.session_state`` key of the app, in one place, with typed accessors.

Contract: no other module reads or writes ``st.session_state`` (a test greps for it). A value
lives in a :class:`Slot` (one key, one type, one default) or, when a key is built from parts
(a page number, an overlay key), a :class:`Family` that makes the slot for those parts. A
widget that owns a value gets the slot's ``key``: ``st.toggle(..., key=VIEWER_FURNITURE.key)``
and the value is read back with ``VIEWER_FURNITURE.get()``. Keys are grouped by page; the
prefix says whose they are:

``wb_``     the Viewer (position, filters, inputs, its runs)
``sb_``     the sidebar's engine picker
``engine_`` the engine this session picked (and AppTest's engine override)
``gpu``     the profile and GPU readings (the sidebar and the GPU page)
``runs_``, ``open_``  the Runs page and the run it shows
``batch_``  Batch processing on the Runs page
``cmp_``, ``compare_``  the Compare page
``ed_``     the region editor (per run, document and page)
``<overlay key>__selected``, ``__scroll``  an overlay's selected region

Values are whatever the page needs between reruns (ints, strings, sets, typed records);
``get()`` never stores the default, ``setdefault()`` does (for containers mutated in place).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

T = TypeVar("T")


class Slot(Generic[T]):
    """One session-state value: its key and a factory for its value when absent."""

    def __init__(self, key: str, default: Callable[[], T]) -> None:
        self.key = key
        self._default = default

    def get(self) -> T:
        if self.key in st.session_state:
            return st.session_state[self.key]
        return self._default()

    def setdefault(self) -> T:
        """The stored value, storing the default first when absent (mutable containers)."""
        if self.key not in st.session_state:
            st.session_state[self.key] = self._default()
        return st.session_state[self.key]

    def set(self, value: T) -> None:
        st.session_state[self.key] = value

    def pop(self) -> T:
        """Remove the value; returns it (the default when it was absent)."""
        if self.key in st.session_state:
            return st.session_state.pop(self.key)
        return self._default()

    def present(self) -> bool:
        return self.key in st.session_state

    def __repr__(self) -> str:
        return f"Slot({self.key!r})"


class Family(Generic[T]):
    """Slots whose keys are built from parts: ``Family("wb_labels_{}", list)(3)`` is
    ``Slot("wb_labels_3")``."""

    def __init__(self, pattern: str, default: Callable[[], T]) -> None:
        self.pattern = pattern
        self._default = default

    def __call__(self, *parts: Any) -> Slot[T]:
        return Slot(self.pattern.format(*parts), self._default)


def fragment_run() -> bool:
    """Whether this script run (and the callbacks before it) is a fragment's rerun, not the
    whole page's: a widget outside every fragment changed by the user reruns the whole page,
    so a change of one reported with a fragment's rerun is a stale echo of the browser."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def _none() -> Any:
    return None


def _false() -> bool:
    return False


# ------------------------------------------------------------------------ engine (any page)
#: An :class:`~workbench.ui.engines.EngineChoice` (typed as Any: engines imports this module).
ENGINE_CHOICE: Slot[Any] = Slot("engine_choice", _none)
#: True when the picked engine is not configured (no OCR until it is).
ENGINE_NONE: Slot[bool] = Slot("engine_none", _false)
#: AppTest's seam: an engine object that replaces every engine of this session.
ENGINE_OVERRIDE: Slot[Any] = Slot("engine_override", _none)

# ------------------------------------------------------------------------ sidebar
SB_KIND: Slot[str | None] = Slot("sb_engine_kind", _none)
#: The ``st.empty`` slot that shows the engine's description (filled again once it loads).
SB_DESCRIPTION_SLOT: Slot[Any] = Slot("sb_engine_slot", _none)
SB_BASE_URL: Slot[str] = Slot("sb_base_url", str)
SB_API_KEY: Slot[str] = Slot("sb_api_key", str)
SB_SERVER_MODEL: Slot[str | None] = Slot("sb_server_model", _none)
SB_CONCURRENCY: Slot[int | None] = Slot("sb_concurrency", _none)
SB_TIMEOUT: Slot[int | None] = Slot("sb_timeout", _none)
SB_LOCAL_MODEL: Slot[str | None] = Slot("sb_local_model", _none)
#: {base URL: time.time() when its model list first failed}: a server that stopped answering.
SB_SERVER_LOST: Slot[dict[str, float]] = Slot("sb_server_lost", dict)
#: {base URL: the model last picked there} (kept while that server does not answer).
SB_SERVER_LAST: Slot[dict[str, str]] = Slot("sb_server_last", dict)
#: What the memory planner predicts for the in-process vLLM engine (shown beside vLLM's own).
SB_LOCAL_PREDICTED: Slot[dict[str, str]] = Slot("sb_local_predicted", dict)
#: The engine the URL named when this session began (a ``workbench.ui.engine_link.EngineLink``;
#: ``?engine=&server=&model=``), read once: the sidebar's widgets start on it.
SB_LINK: Slot[Any] = Slot("sb_link", _none)

# ------------------------------------------------------------------------ GPU
GPU_PROFILE: Slot[str | None] = Slot("profile", _none)
#: The GPU readings history (a ``workbench.ui.gpu.panel.History``).
GPU_HISTORY: Slot[Any] = Slot("_gpu_history", _none)
#: vLLM's own numbers over time: (source key, ``workbench.gpu.engine_watch.StatsHistory``).
ENGINE_STATS: Slot[Any] = Slot("_engine_stats", _none)
#: What the memory plan predicts for the in-process engine (``engine_watch.Expected``).
SB_LOCAL_EXPECTED: Slot[Any] = Slot("sb_local_expected", _none)
#: The GPU page's memory plan: the card box, the memory inputs (reset to the card's memory when
#: the profile or card changes) and the (profile, card) they were last reset for.
GPU_CARD: Slot[str | None] = Slot("gpu_card", _none)
GPU_TOTAL_GIB: Slot[float | None] = Slot("gpu_total_gib", _none)
GPU_USED_GIB: Slot[float | None] = Slot("gpu_used_gib", _none)
GPU_PLAN_FOR: Slot[tuple[str, str] | None] = Slot("_gpu_plan_for", _none)
#: The GPU page's vLLM release box (the plan's release; workbench.ui.gpu.releases).
GPU_VLLM_VERSION: Slot[str | None] = Slot("gpu_vllm_version", _none)

# ------------------------------------------------------------------------ viewer
VIEWER_UPLOADS: Slot[Any] = Slot("wb_uploads", _none)
VIEWER_SAMPLES: Slot[list[str] | None] = Slot("wb_samples", _none)
VIEWER_RANGE: Slot[str] = Slot("wb_range", str)
#: The working set kept across pages and reloads (:mod:`workbench.ui.workset`): the uploader's
#: key generation (a new one empties it), the files it held on this visit and those carried
#: from earlier visits (``KeptFile`` by sha256), the carried files' widget, the samples and the
#: range last picked, and the token naming the set on disk (``?docs=`` in the URL).
VIEWER_UPLOADER_GEN: Slot[int] = Slot("wb_uploader_gen", int)
VIEWER_LIVE: Slot[dict[str, Any]] = Slot("wb_live", dict)
VIEWER_KEPT: Slot[dict[str, Any]] = Slot("wb_kept", dict)
VIEWER_KEPT_PICK: Slot[list[str]] = Slot("wb_kept_pick", list)
VIEWER_KEPT_SAMPLES: Slot[list[str]] = Slot("wb_kept_samples", list)
VIEWER_KEPT_RANGE: Slot[str] = Slot("wb_kept_range", str)
VIEWER_WORKSET: Slot[str | None] = Slot("wb_workset", _none)
VIEWER_WORKSET_SAVED: Slot[Any] = Slot("wb_workset_saved", _none)
#: The "Documents" expander holding the uploader and the samples (open while nothing is loaded,
#: closed when files are added, so the page comes into view) and how many files it held.
VIEWER_INPUTS_OPEN: Slot[bool] = Slot("wb_inputs_open", lambda: True)
VIEWER_INPUTS_HELD: Slot[int] = Slot("wb_inputs_held", int)
#: upload file id -> sha256, so a large upload is hashed once per session.
VIEWER_SHA_MEMO: Slot[dict[str, str]] = Slot("wb_sha_memo", dict)
# The password field of an encrypted PDF (by the file's sha256), and the passwords typed, kept
# apart from the field: a widget's value goes when the widget does (once the file opens).
VIEWER_PASSWORD: Family[str] = Family("wb_password_{}", str)
VIEWER_PASSWORDS: Slot[dict[str, str]] = Slot("wb_passwords", dict)
#: 0-based index into the (file, page) list (clamped every run) and that list's length.
VIEWER_POS: Slot[int] = Slot("wb_pos", int)
VIEWER_COUNT: Slot[int] = Slot("wb_count", lambda: 1)
#: The files (sha256) the pager held when last drawn: a file added since is shown at once.
VIEWER_FILES_SEEN: Slot[list[str]] = Slot("wb_files_seen", list)
VIEWER_PAGE_INPUT: Slot[int] = Slot("wb_page_in", lambda: 1)
VIEWER_FILE_INPUT: Slot[str | None] = Slot("wb_file_in", _none)
VIEWER_PREV = Slot[Any]("wb_prev", _none)  # button keys
VIEWER_NEXT = Slot[Any]("wb_next", _none)
VIEWER_STOP = Slot[Any]("wb_stop", _none)  # background processing: stop, resume, retry, cancel
VIEWER_RESUME = Slot[Any]("wb_resume", _none)
VIEWER_RETRY = Slot[Any]("wb_retry", _none)
VIEWER_RETRY_ALL = Slot[Any]("wb_retry_all", _none)
VIEWER_CANCEL: Family[Any] = Family("wb_cancel_{}", _none)
#: The labels the user switched off (carried from page to page).
VIEWER_HIDDEN: Slot[set[str]] = Slot("wb_hidden", set)
#: The label pills of the page at position n.
VIEWER_LABELS: Family[list[str]] = Family("wb_labels_{}", list)
#: The overlay key of the page at position n (its selection: :data:`OVERLAY_SELECTED`).
VIEWER_OVERLAY: Family[Any] = Family("wb_ov_{}", _none)
VIEWER_FURNITURE: Slot[bool] = Slot("wb_furniture", _false)
VIEWER_ZOOM: Slot[str | None] = Slot("wb_zoom", _none)
VIEWER_TAGS: Slot[bool] = Slot("wb_tags", _false)
#: {(sha256, engine key): run id}: the run each document's pages go to.
VIEWER_RUNS: Slot[dict[tuple[str, str], str]] = Slot("wb_runs", dict)
#: This session's id for the background worker (see :mod:`workbench.ui.jobs.worker`).
VIEWER_SESSION: Slot[str | None] = Slot("wb_session", _none)
#: How many of this session's pages were finished when the page was last drawn.
VIEWER_SEEN_DONE: Slot[int] = Slot("wb_seen_done", int)
#: How many of the selected pages had failed when the page was last drawn.
VIEWER_SEEN_FAILED: Slot[int] = Slot("wb_seen_failed", int)

# ------------------------------------------------------------------------ overlays
#: The selected region id of the overlay with key k.
OVERLAY_SELECTED: Family[str | None] = Family("{}__selected", _none)
#: Set by a click in the overlay: scroll the Markdown to the selected block once.
OVERLAY_SCROLL: Family[bool] = Family("{}__scroll", _false)
#: A selectbox beside an overlay that picks its region.
OVERLAY_PICK: Family[str | None] = Family("{}_pick", _none)
#: A widget's value by the key a caller gave it (helpers that draw a widget under a caller's
#: key, such as an overlay component or a zoom switch, read it back through this).
WIDGET: Family[Any] = Family("{}", _none)

# ------------------------------------------------------------------------ runs
RUNS_STORE_DIR: Slot[str | None] = Slot("runs_store_dir", _none)
RUNS_PICK: Slot[str | None] = Slot("runs_pick", _none)
RUNS_CONFIRM_DELETE: Slot[str | None] = Slot("runs_confirm_delete", _none)
OPEN_RUN: Slot[str | None] = Slot("open_run_id", _none)
#: {run id: labels the user turned off in that run}, and the label pills of one of its pages.
RUNS_HIDDEN: Slot[dict[str, set[str]]] = Slot("runs_hidden", dict)
RUNS_LABELS: Family[list[str]] = Family("runs_labels_{}_{}", list)
OPEN_DOCUMENT: Slot[str | None] = Slot("open_document", _none)
OPEN_PAGE: Slot[int | None] = Slot("open_page", _none)

# ------------------------------------------------------------------------ batch
#: The last batch's outcome (a ``workbench.ui.runs.batch.BatchOutcome``).
BATCH_LAST: Slot[Any] = Slot("batch_last", _none)
BATCH_CANCEL_CLICKED: Slot[bool] = Slot("batch_cancel_clicked", _false)
#: The session's batch running in its thread, or the last one
#: (a ``workbench.ui.runs.batch.BatchJob``).
BATCH_JOB: Slot[Any] = Slot("batch_job", _none)
#: The engine the session's batch runs on (a ``workbench.ui.engines.EngineChoice``): its
#: progress says when that engine's server stops answering.
BATCH_CHOICE: Slot[Any] = Slot("batch_choice", _none)
#: The Batch form's Engine box, and the first choice it last offered (the sidebar's engine):
#: when that changes, the box follows it.
BATCH_ENGINE: Slot[str] = Slot("batch_engine", str)
BATCH_ENGINE_FOR: Slot[str] = Slot("batch_engine_for", str)

# ------------------------------------------------------------------------ compare
#: Compare's "Engine for run B" box and the sidebar engine it last followed (as for Batch).
CMP_NEW_ENGINE: Slot[str] = Slot("cmp_new_engine", str)
CMP_NEW_ENGINE_FOR: Slot[str] = Slot("cmp_new_engine_for", str)
CMP_PAGE: Slot[int | None] = Slot("cmp_page", _none)
CMP_ZOOM: Slot[str | None] = Slot("cmp_zoom", _none)
CMP_LABELS: Slot[list[str] | None] = Slot("cmp_labels", _none)
CMP_TAGS: Slot[bool] = Slot("cmp_tags", _false)
CMP_USE_FIX: Slot[bool] = Slot("cmp_use_fix", lambda: True)
#: The overlay key prefix of side "A"/"B"; ``CMP_SEEN(side)`` the selection last seen there.
CMP_OVERLAY = "cmp_ov_"
CMP_SEEN: Family[str | None] = Family("cmp_ov_{}__seen", _none)
CMP_RUN_A: Slot[str | None] = Slot("compare_run_a", _none)
CMP_RUN_B: Slot[str | None] = Slot("compare_run_b", _none)
CMP_DOC: Slot[str | None] = Slot("compare_doc", _none)
#: Run B to select on the next run (its widget is drawn already in this one).
CMP_PENDING_B: Slot[str | None] = Slot("compare_run_b_next", _none)
CMP_REF_PDF: Slot[Any] = Slot("cmp_ref_pdf", _none)
#: Pasted reference text for (document, page).
CMP_REF_TEXT: Family[str] = Family("cmp_ref_{}_{}", str)

# ------------------------------------------------------------------------ editor
#: Per editor base key (``ed_<where>_<run>_<doc>_<page>``): saved message, start regions,
#: canvas version (a new version redraws the canvas from the regions).
EDITOR_SAVED_MSG: Family[str | None] = Family("{}_saved_msg", _none)
EDITOR_START: Family[list[Any] | None] = Family("{}_start", _none)
EDITOR_VERSION: Family[int] = Family("{}_ver", int)
EDITOR_WORKING: Family[list[Any] | None] = Family("{}_working", _none)
