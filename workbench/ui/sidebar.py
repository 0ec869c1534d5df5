"""The sidebar: engine picker and its settings, the engine's description, and GPU readings.

The picked engine is stored as a :class:`~workbench.ui.engines.EngineChoice` in
:data:`workbench.ui.state.ENGINE_CHOICE` (read it with ``engines.current_choice()``). Choosing
another engine only records the choice; the engine is built when a page needs it, after the
previous one is released (see :mod:`workbench.ui.engines`).

GPU readings come from :func:`workbench.ui.gpu.panel.sidebar_gpu`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

import workbench.engines.factory as factory
from workbench.engines.server.engine import VllmServerEngine
from workbench.errors import EngineUnavailable, WorkbenchError
from workbench.gpu.engine_watch import Expected
from workbench.gpu.launch import plan_local_launch
from workbench.models.registry import all_specs, get_spec
from workbench.ui import engine_link, engines, state
from workbench.ui.config import settings
from workbench.ui.engine_link import EngineLink
from workbench.ui.gpu.engine_panel import sidebar_engine_panel
from workbench.ui.gpu.panel import current_profile, sidebar_gpu
from workbench.ui.kit import cpu_settings


def _kinds() -> dict[str, tuple[str, str | None]]:
    """kind -> (label, why it cannot run here or None)."""
    return {k.kind: (k.label, None if k.available else k.hint) for k in factory.engine_kinds()}


@st.cache_data(ttl=15, show_spinner=False)
def served_models(base_url: str, api_key: str | None) -> tuple[list[str], str | None]:
    """Models from ``GET {base_url}/models``, or an empty list and why not."""
    try:
        engine = VllmServerEngine(base_url, api_key=api_key or None, timeout=5.0)
        try:
            return engine.list_models(), None
        finally:
            engine.close()
    except EngineUnavailable as exc:
        return [], str(exc)
    except Exception as exc:  # never take the sidebar down
        return [], f"{type(exc).__name__}: {exc}"


def _server_choice() -> engines.EngineChoice | None:
    s = settings()
    start = engine_link.read().base_url or s.base_url  # the URL's server, when it named one
    base_url = st.text_input("Base URL", start, key=state.SB_BASE_URL.key)
    api_key = st.text_input("API key", s.api_key or "", type="password", key=state.SB_API_KEY.key)
    models = _while_lost(base_url.strip(), *_probe(base_url.strip(), api_key or None))
    if models and state.SB_SERVER_MODEL.get() not in models:
        state.SB_SERVER_MODEL.set(models[0])  # a new server: its first model
    model = st.selectbox(
        "Model", models, key=state.SB_SERVER_MODEL.key, placeholder="(none served)"
    )
    if model:
        state.SB_SERVER_LAST.setdefault()[base_url.strip()] = model
    cols = st.columns(2)
    concurrency = cols[0].number_input(
        "Pages in flight",
        1,
        1024,
        s.concurrency,
        key=state.SB_CONCURRENCY.key,
        placeholder="auto",
        help="Empty: as many as the server's KV cache holds (read from its /metrics).",
    )
    # From 1 s, as WORKBENCH_TIMEOUT allows (min 5 took the page down when it was set lower)
    value = min(max(round(s.timeout), 1), 3600)
    timeout = cols[1].number_input("Timeout (s)", 1, 3600, value, key=state.SB_TIMEOUT.key)
    if not model:
        return None
    options = factory.ServerOptions(
        base_url=base_url.strip(),
        api_key=api_key or None,
        model=model,
        concurrency=int(concurrency) if concurrency else None,
        timeout=float(timeout),
    )
    return engines.EngineChoice("vllm-server", options)


def _probe(base_url: str, api_key: str | None) -> tuple[list[str], str | None]:
    """The served models (or why none), recording since when the server has not answered."""
    models, why = served_models(base_url, api_key)
    lost = state.SB_SERVER_LOST.setdefault()
    if why:
        lost.setdefault(base_url, time.time())
    else:
        lost.pop(base_url, None)
    return models, why


def _while_lost(base_url: str, models: list[str], why: str | None) -> list[str]:
    """The models to offer: those served, or, while a server that served a model does not
    answer, that model still (its pages stay shown and its failed pages can be retried once it
    is back: the engine, the result cache and the run are keyed by it)."""
    if not why:
        return models
    since = state.SB_SERVER_LOST.get()[base_url]
    st.warning(f"{why} (not answering since {_clock(since)})", icon=":material/cloud_off:")
    last = state.SB_SERVER_LAST.get().get(base_url)
    return [last] if last else []


def _clock(since: float) -> str:
    ago = max(0, round(time.time() - since))
    when = time.strftime("%H:%M:%S", time.localtime(since))
    return f"{when}, {ago // 60} min {ago % 60} s ago" if ago >= 60 else f"{when}, {ago} s ago"


def server_lost(recheck: bool = False, choice: engines.EngineChoice | None = None) -> str | None:
    """One line for the page: the picked server does not answer, since when, and what to do;
    None while it answers (or another engine is picked). ``recheck``: ask the server now, not
    the list cached for up to 15 s (pages just failed, or the user retries them). ``choice``:
    the engine to ask about (default: the sidebar's)."""
    choice = choice or engines.current_choice()
    if choice is None or choice.kind != "vllm-server":
        return None
    url = str(getattr(choice.options, "base_url", ""))
    if recheck:
        served_models.clear()
    _probe(url, getattr(choice.options, "api_key", None))
    since = state.SB_SERVER_LOST.get().get(url)
    if since is None:
        return None
    return (
        f"The server at {url} is not answering (since {_clock(since)}). Pages already done "
        "stay shown and saved; pages sent meanwhile fail. Once it answers again, "
        "**Retry failed pages** processes every failed page."
    )


def _local_choice(hint: str | None) -> engines.EngineChoice | None:
    """vLLM in-process: the model, then the profile + memory plan decide its engine arguments
    (workbench.gpu.launch); a model that cannot fit one page is refused here, before loading."""
    if hint:
        st.info(hint, icon=":material/info:")
        return None
    specs = [s for s in all_specs() if s.family != "cpu"]
    model = st.selectbox("Model", [s.id for s in specs], key=state.SB_LOCAL_MODEL.key)
    choice = engines.EngineChoice("vllm", factory.LocalOptions(model), current_profile().name)
    try:  # the plan it will load with (planned again when it loads, on the same GPU)
        launch = plan_local_launch(get_spec(model), choice.profile)
    except WorkbenchError as exc:
        st.error(str(exc), icon=":material/memory:")
        return None
    state.SB_LOCAL_PREDICTED.set(launch.predicted())
    state.SB_LOCAL_EXPECTED.set(Expected.from_plan(launch.plan))
    st.caption(
        f"Profile **{launch.profile.name}** on {launch.gpu}: "
        + ", ".join(f"{k} {v}" for k, v in launch.predicted().items())
        + ". The GPU page shows the full plan and the matching `vllm serve` command."
    )
    return choice


def _cpu_choice(hint: str | None) -> engines.EngineChoice:
    if hint:
        st.warning(hint)
    with st.expander("CPU engine settings"):  # text layer, DPI, handwriting, tables
        cpu = cpu_settings("sb_cpu_", factory.CpuOptions(), stacked=True)
    st.caption("Tesseract + RapidOCR + CDLA layout: offline, no GPU needed.")
    return engines.EngineChoice("cpu", cpu)


#: each engine kind's part of the sidebar, given why the kind cannot run here (or None); it
#: returns the choice, or None when it is not configured yet (a registry: no if-chain)
_CHOICES: dict[str, Callable[[str | None], engines.EngineChoice | None]] = {
    "cpu": _cpu_choice,
    "vllm-server": lambda _hint: _server_choice(),
    "vllm": _local_choice,
}


def _on_kind_change() -> None:
    # Record only; the old engine is released by engines.use_engine before a new build.
    state.ENGINE_CHOICE.pop()
    state.ENGINE_NONE.set(False)


def _from_link(kinds: dict[str, tuple[str, str | None]]) -> str | None:
    """The kind a new session starts on: the URL's (a reload, a shared link); else, started
    with WORKBENCH_BASE_URL, that server (the user named it); None: the first (CPU). On the
    session's first run the URL's model becomes the model boxes' value, where offered."""
    link = engine_link.read()
    first_run = not state.SB_KIND.present()
    if first_run and link.model and link.kind == "vllm-server":
        state.SB_SERVER_MODEL.set(link.model)  # kept while that server is not answering too
        state.SB_SERVER_LAST.setdefault()[link.base_url or settings().base_url] = link.model
    if first_run and link.kind == "vllm" and link.model in {s.id for s in all_specs()}:
        state.SB_LOCAL_MODEL.set(link.model)
    if link.kind in kinds:
        return link.kind
    return "vllm-server" if settings().server_named and "vllm-server" in kinds else None


def _publish(kind: str, choice: engines.EngineChoice | None) -> None:
    """The URL names the picked engine (kind, base URL, model; never the API key)."""
    options = choice.options if choice is not None else None
    url = state.SB_BASE_URL.get().strip() if kind == "vllm-server" else None
    engine_link.publish(EngineLink(kind, url or None, getattr(options, "model", None)))


def engine_picker() -> engines.EngineChoice | None:
    kinds = _kinds()
    st.subheader("Engine", divider="gray")
    first = _from_link(kinds)
    kind = st.radio(
        "Engine",
        list(kinds),
        index=list(kinds).index(first) if first else 0,
        format_func=lambda k: kinds[k][0],
        key=state.SB_KIND.key,
        label_visibility="collapsed",
        on_change=_on_kind_change,
    )
    choice = _CHOICES[kind](kinds[kind][1])
    _publish(kind, choice)
    if choice is None:
        state.ENGINE_CHOICE.pop()
        state.ENGINE_NONE.set(True)
        st.caption("No engine ready: pages are shown without OCR.")
        return None
    state.ENGINE_CHOICE.set(choice)
    state.ENGINE_NONE.set(False)
    state.SB_DESCRIPTION_SLOT.set(st.empty())
    show_description(choice)
    return choice


def show_description(choice: engines.EngineChoice | None) -> None:
    """Fill the sidebar's engine line (the viewer calls this again once the engine is loaded)."""
    slot = state.SB_DESCRIPTION_SLOT.get()
    if slot is None or choice is None:
        return
    described = engines.description(choice)
    if described and choice.kind == "vllm":  # predicted beside what vLLM actually chose
        described = {**state.SB_LOCAL_PREDICTED.get(), **described}
    if described:
        slot.caption(" · ".join(f"**{k}**: {v}" for k, v in described.items() if v))
    else:
        # Not built in this process yet (descriptions are process-wide, so once any page has
        # loaded this choice every page's sidebar shows it).
        slot.caption("Not loaded yet: loads when a page is processed.")


def gpu_section() -> None:
    st.subheader("GPU", divider="gray")
    sidebar_gpu()
    sidebar_engine_panel()  # vLLM's own numbers, when the engine is vLLM


def render_sidebar() -> engines.EngineChoice | None:
    with st.sidebar:
        choice = engine_picker()
        gpu_section()
    return choice
