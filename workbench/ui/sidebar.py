"""The sidebar: engine picker and its settings, the engine's description, and GPU readings.

The picked engine is stored as a :class:`~workbench.ui.resources.EngineChoice` in
``st.session_state["engine_choice"]`` (read it with ``resources.current_choice()``). Choosing
another engine only records the choice; the engine is built when a page needs it, after the
previous one is released (see :mod:`workbench.ui.resources`).

GPU readings come from ``workbench.ui.gpu_panel.sidebar_gpu()`` when that module is there.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import streamlit as st

from workbench.errors import EngineUnavailable
from workbench.specs import all_specs
from workbench.ui import resources

_KIND = "sb_engine_kind"
DESCRIPTION_SLOT = "sb_engine_slot"
_FALLBACK_KINDS = {
    "cpu": ("Embedded CPU engine", None),
    "vllm-server": ("vLLM server (OpenAI API)", None),
    "vllm": ("vLLM in this process", None),
}


def _kinds() -> dict[str, tuple[str, str | None]]:
    """kind -> (label, why it cannot run here or None)."""
    try:
        from workbench.engines.factory import engine_kinds
    except ImportError:
        return dict(_FALLBACK_KINDS)
    return {k.kind: (k.label, None if k.available else k.hint) for k in engine_kinds()}


@st.cache_data(ttl=15, show_spinner=False)
def served_models(base_url: str, api_key: str | None) -> tuple[list[str], str | None]:
    """Models from ``GET {base_url}/models``, or an empty list and why not."""
    try:
        from workbench.engines.vllm_server import VllmServerEngine

        engine = VllmServerEngine(base_url, api_key=api_key or None, timeout=5.0)
        try:
            return engine.list_models(), None
        finally:
            engine.close()
    except EngineUnavailable as exc:
        return [], str(exc)
    except Exception as exc:  # never take the sidebar down
        return [], f"{type(exc).__name__}: {exc}"


def _options(kind: str, **values: Any) -> Any:
    from workbench.engines import factory

    cls = {"cpu": "CpuOptions", "vllm-server": "ServerOptions", "vllm": "LocalOptions"}[kind]
    return getattr(factory, cls)(**values)


def _server_choice() -> resources.EngineChoice | None:
    s = resources.settings()
    base_url = st.text_input("Base URL", s.base_url, key="sb_base_url")
    api_key = st.text_input("API key", s.api_key or "", type="password", key="sb_api_key")
    models, why = served_models(base_url.strip(), api_key or None)
    if why:
        st.warning(why, icon=":material/cloud_off:")
    if models and st.session_state.get("sb_server_model") not in models:
        st.session_state["sb_server_model"] = models[0]  # a new server: its first model
    model = st.selectbox("Model", models, key="sb_server_model", placeholder="(none served)")
    cols = st.columns(2)
    concurrency = cols[0].number_input(
        "Pages in flight", 1, 1024, s.concurrency, key="sb_concurrency"
    )
    timeout = cols[1].number_input("Timeout (s)", 5, 3600, int(s.timeout), key="sb_timeout")
    if not model:
        return None
    options = _options(
        "vllm-server",
        base_url=base_url.strip(),
        api_key=api_key or None,
        model=model,
        concurrency=int(concurrency),
        timeout=float(timeout),
    )
    return resources.EngineChoice("vllm-server", options)


def _profile_engine_args(model: str) -> dict[str, Any]:
    """Engine arguments from the GPU tuning profile, when the GPU panel offers them."""
    try:
        panel = importlib.import_module("workbench.ui.gpu_panel")
    except ImportError:
        return {}
    getter = getattr(panel, "engine_args_for", None)
    if not callable(getter):
        return {}
    try:
        return dict(getter(model))
    except Exception:
        return {}


def _local_choice(hint: str | None) -> resources.EngineChoice | None:
    if hint:
        st.info(hint, icon=":material/info:")
        return None
    specs = [s for s in all_specs() if s.family != "cpu"]
    if not specs:
        st.info("No vLLM model specs are registered yet.")
        return None
    model = st.selectbox(
        "Model", [s.id for s in specs], key="sb_local_model", format_func=lambda m: m
    )
    args = _profile_engine_args(model)
    if args:
        st.caption("Engine arguments from the GPU profile: " + ", ".join(sorted(args)))
    return resources.EngineChoice("vllm", _options("vllm", model=model, engine_args=args))


def _on_kind_change() -> None:
    # Record only; the old engine is released by resources.use_engine before a new build.
    st.session_state.pop(resources.CHOICE_KEY, None)
    st.session_state[resources.NO_ENGINE_KEY] = False


def engine_picker() -> resources.EngineChoice | None:
    kinds = _kinds()
    st.subheader("Engine", divider="gray")
    kind = st.radio(
        "Engine",
        list(kinds),
        format_func=lambda k: kinds[k][0],
        key=_KIND,
        label_visibility="collapsed",
        on_change=_on_kind_change,
    )
    hint = kinds[kind][1]
    choice: resources.EngineChoice | None
    if kind == "cpu":
        if hint:
            st.warning(hint)
        choice = resources.EngineChoice("cpu", _options("cpu") if _has_factory() else None)
        st.caption("Tesseract + RapidOCR + CDLA layout: offline, no GPU needed.")
    elif kind == "vllm-server":
        choice = _server_choice()
    else:
        choice = _local_choice(hint)
    if choice is None:
        st.session_state.pop(resources.CHOICE_KEY, None)
        st.session_state[resources.NO_ENGINE_KEY] = True
        st.caption("No engine ready: pages are shown without OCR.")
        return None
    st.session_state[resources.CHOICE_KEY] = choice
    st.session_state[resources.NO_ENGINE_KEY] = False
    slot = st.empty()
    st.session_state[DESCRIPTION_SLOT] = slot
    show_description(choice)
    return choice


def show_description(choice: resources.EngineChoice | None) -> None:
    """Fill the sidebar's engine line (the viewer calls this again once the engine is loaded)."""
    slot = st.session_state.get(DESCRIPTION_SLOT)
    if slot is None or choice is None:
        return
    described = resources.description(choice)
    if described:
        slot.caption(" · ".join(f"**{k}**: {v}" for k, v in described.items() if v))
    else:
        slot.caption("Loads when the first page is processed.")


def _has_factory() -> bool:
    return importlib.util.find_spec("workbench.engines.factory") is not None


def gpu_section() -> None:
    st.subheader("GPU", divider="gray")
    try:
        panel = importlib.import_module("workbench.ui.gpu_panel")
    except ImportError:
        panel = None
    if panel is not None and callable(getattr(panel, "sidebar_gpu", None)):
        panel.sidebar_gpu()
        return
    st.caption(_gpu_line())


def _gpu_line() -> str:
    try:
        import pynvml
    except ImportError:
        return "No NVIDIA GPU detected (nvidia-ml-py is not installed)."
    try:
        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        pynvml.nvmlShutdown()
    except pynvml.NVMLError as exc:
        return f"No NVIDIA GPU detected ({exc})."
    return f"{count} NVIDIA GPU(s) found." if count else "No NVIDIA GPU detected."


def render_sidebar() -> resources.EngineChoice | None:
    with st.sidebar:
        choice = engine_picker()
        gpu_section()
    return choice
