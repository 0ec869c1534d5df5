"""GPU widgets: the sidebar's profile switch and live VRAM panel, and the GPU page.

Session state:

``profile``         name of the selected tuning profile (the sidebar selectbox's key);
                    defaults to the one detected from GPU 0's name and memory
``_gpu_history``    :class:`workbench.gpu.telemetry.History` of this session's readings

:func:`sidebar_gpu` is called by Home.py inside ``with st.sidebar:``; its VRAM panel is an
``st.fragment(run_every="2s")`` so only the panel reruns. :func:`current_profile` gives other
UI code the selected :class:`Profile`. :func:`render_gpu_page` is the whole GPU page.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.errors import PlanError
from workbench.gpu.commands import engine_kwargs, llm_snippet, serve_command
from workbench.gpu.planner import GiB, MemoryPlan, MiB, plan_for_model
from workbench.gpu.profiles import PROFILES, Profile, detect_profile, get_profile, profile_names
from workbench.gpu.telemetry import GpuSnapshot, History, read_snapshot
from workbench.models.registry import all_specs, find_architecture
from workbench.ui import state
from workbench.ui.page_facts import widen_main


def _detected(snap: GpuSnapshot) -> Profile:
    gpu = snap.first
    return detect_profile(gpu.name if gpu else None, gpu.total_bytes if gpu else None)


def _label(name: str) -> str:
    return get_profile(name).label


def current_profile() -> Profile:
    """The profile selected in the sidebar (detected from the GPU until someone picks one)."""
    name = state.GPU_PROFILE.get()
    if not name:
        name = _detected(read_snapshot(with_processes=False)).name
        state.GPU_PROFILE.set(name)
    return get_profile(str(name))


def profile_selector() -> Profile:
    current_profile()  # seeds state.GPU_PROFILE before the widget reads it
    st.selectbox(
        "Tuning profile",
        profile_names(),
        key=state.GPU_PROFILE.key,
        format_func=_label,
        help="vLLM engine arguments, page size and pages in flight for this GPU class. "
        "The GPU page explains each setting.",
    )
    profile = current_profile()
    if not profile.supported:
        st.warning(profile.reason)
    return profile


@st.fragment(run_every="2s")
def vram_panel() -> None:
    snap = read_snapshot(with_processes=False)
    if not snap.available:
        st.caption(snap.summary())
        return
    history: History | None = state.GPU_HISTORY.get()
    if history is None:
        history = History()
        state.GPU_HISTORY.set(history)
    history.add(snap)
    for gpu in snap.gpus:
        bits = [f"{gpu.used_bytes / GiB:.1f} / {gpu.total_bytes / GiB:.1f} GiB"]
        if gpu.utilization_pct is not None:
            bits.append(f"{gpu.utilization_pct}%")
        if gpu.temperature_c is not None:
            bits.append(f"{gpu.temperature_c} °C")
        st.progress(min(gpu.used_fraction, 1.0), text=f"GPU {gpu.index} · " + " · ".join(bits))
    rows = pd.DataFrame(history.rows())
    if len(rows) > 1:
        rows["time"] = pd.to_datetime(rows["time"], unit="s")
        chart = rows.pivot_table(index="time", columns="gpu", values="used_gib")
        chart.columns = [f"GPU {c} GiB" for c in chart.columns]
        st.line_chart(chart, height=120)


def sidebar_gpu() -> Profile:
    """Profile switch + live VRAM panel; call inside ``with st.sidebar:``."""
    profile = profile_selector()
    vram_panel()
    return profile


def _readings(snap: GpuSnapshot) -> None:
    st.subheader("GPUs")
    if not snap.available:
        st.info(snap.summary() + " — the embedded CPU engine still works; plan below for a card.")
        return
    st.caption(snap.summary())
    st.dataframe(
        pd.DataFrame(
            {
                "GPU": g.index,
                "name": g.name,
                "used MiB": round(g.used_bytes / MiB),
                "reserved MiB": None if g.reserved_bytes is None else round(g.reserved_bytes / MiB),
                "total MiB": round(g.total_bytes / MiB),
                "util %": g.utilization_pct,
                "temp °C": g.temperature_c,
                "power W": None if g.power_w is None else round(g.power_w),
            }
            for g in snap.gpus
        ),
        hide_index=True,
    )
    procs = [
        {
            "GPU": g.index,
            "pid": p.pid,
            "process": p.name,
            "MiB": None if p.used_bytes is None else round(p.used_bytes / MiB),
        }
        for g in snap.gpus
        for p in g.processes
    ]
    if procs:
        st.dataframe(pd.DataFrame(procs), hide_index=True)
    else:
        st.caption("No process holds GPU memory.")


def _profile_details(profile: Profile) -> None:
    st.subheader(f"Profile: {profile.label}")
    if not profile.supported:
        st.error(f"Unsupported by vLLM 0.33: {profile.reason}")
        return
    st.caption(profile.reason)
    st.dataframe(
        pd.DataFrame(
            {
                "setting": k.name,
                "value": str(k.value),
                "7-9 B models": "" if k.large_value is None else str(k.large_value),
                "kind": k.kind,
                "why": k.why + (" (guessed)" if k.guessed else ""),
            }
            for k in profile.knobs
        ),
        hide_index=True,
    )


def _plan_section(snap: GpuSnapshot, selected: Profile) -> None:
    st.subheader("Memory plan")
    specs = [s for s in all_specs() if s.id != "cpu" and find_architecture(s.id)]
    model_ids = [s.id for s in specs]
    if not model_ids:
        st.info("No GPU model is registered.")
        return
    names = {s.id: s.display for s in specs}
    gpu_profiles = [p.name for p in PROFILES if p.supported and p.name != "cpu"]
    default = selected.name if selected.name in gpu_profiles else "generic-24gb"
    gpu = snap.first
    cols = st.columns(4)
    model = cols[0].selectbox("Model", model_ids, format_func=lambda m: names[m], key="gpu_model")
    prof_name = cols[1].selectbox(
        "Plan with profile",
        gpu_profiles,
        index=gpu_profiles.index(default),
        format_func=_label,
        key="gpu_plan_profile",
    )
    total_gib = cols[2].number_input(
        "GPU memory (GiB)",
        min_value=1.0,
        max_value=1024.0,
        value=round(gpu.cuda_total_bytes / GiB, 2) if gpu else 24.0,
        step=1.0,
        key="gpu_total_gib",
        help="Total as CUDA sees it (NVML total minus the driver-reserved part).",
    )
    used_gib = cols[3].number_input(
        "Held by others (GiB)",
        min_value=0.0,
        max_value=1024.0,
        value=round(gpu.used_bytes / GiB, 2) if gpu else 0.0,
        step=0.5,
        key="gpu_used_gib",
    )
    total = int(total_gib * GiB)
    free = max(int((total_gib - used_gib) * GiB), 0)
    profile = get_profile(prof_name)
    try:
        plan, _arch, spec = plan_for_model(model, profile, total, free)
    except PlanError as exc:
        st.error(str(exc))
        return
    m = st.columns(4)
    m[0].metric("max_model_len", f"{plan.max_model_len:,}")
    m[1].metric("tokens per page", f"{plan.tokens_per_page:,}")
    m[2].metric("pages in flight", f"{plan.pages_in_flight:,}")
    m[3].metric("KV cache", f"{plan.kv_cache_bytes / GiB:.1f} GiB")
    if plan.fits:
        st.success(kv_sentence(plan))
    else:
        st.error("Does not fit.\n\n" + "\n".join(f"- {tip}" for tip in plan.advice))
    split = plan.split.as_dict()
    st.bar_chart(
        pd.DataFrame([{k: split[k] / GiB for k in SPLIT_COLORS}], index=["GiB"]),
        horizontal=True,
        stack=True,
        height=140,
        color=list(SPLIT_COLORS.values()),
    )
    if not plan.fits:  # a command that cannot start would only be copied and fail
        st.warning(
            "No `vllm serve` command: this plan does not fit. Change the model, profile or "
            "memory above until it fits.",
            icon=":material/block:",
        )
    else:
        kwargs = engine_kwargs(plan.model_id, spec, profile, plan)
        st.code(serve_command(kwargs), language="bash")
        st.code(llm_snippet(kwargs), language="python")
    with st.expander("Assumptions"):
        st.markdown("\n".join(f"- {a}" for a in plan.assumptions))


#: Memory-split colours, in drawing order; free memory is good news, so green (never red).
SPLIT_COLORS = {
    "weights": "#4C78A8",
    "activations": "#B279A2",
    "cuda_graphs": "#9D755D",
    "kv_cache": "#F58518",
    "free": "#8BC34A",
}


def kv_sentence(plan: MemoryPlan) -> str:
    """The KV-cache facts, every number from the plan and multiplying out: usable blocks x
    block size = the tokens the cache holds (vLLM keeps one more block in reserve)."""
    usable = plan.max_model_len_fit // plan.block_size
    return (
        f"Fits: {usable:,} usable blocks × {plan.block_size} tokens = "
        f"{usable * plan.block_size:,} tokens in the KV cache ({plan.num_blocks:,} blocks of "
        f"{plan.bytes_per_block / MiB:.2f} MiB, one kept in reserve by vLLM); page "
        f"{plan.page_width}x{plan.page_height} px = {plan.vision_tokens:,} vision tokens."
    )


def render_gpu_page() -> None:
    widen_main()  # the same page width as the Viewer, Compare and Runs
    st.title("GPU")
    st.caption(
        "What the GPU holds now, the tuning profile and why, and a memory plan with the "
        "matching vLLM command."
    )
    snap = read_snapshot()
    _readings(snap)
    selected = current_profile()
    _profile_details(selected)
    _plan_section(snap, selected)
