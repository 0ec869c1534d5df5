"""GPU widgets: the sidebar's profile switch and live VRAM panel, and the GPU page.

Session state:

``profile``         name of the selected tuning profile (the sidebar selectbox's key);
                    defaults to the one detected from GPU 0's name and memory, and with no
                    GPU to generic-24gb (what ``plan`` assumes; :mod:`workbench.gpu.target`)
``gpu_card`` …      the GPU page's card box and memory inputs (:mod:`workbench.ui.state`)
``_gpu_history``    :class:`workbench.gpu.telemetry.History` of this session's readings

:func:`sidebar_gpu` is called by Home.py inside ``with st.sidebar:``; its VRAM panel is an
``st.fragment(run_every="2s")`` so only the panel reruns. :func:`current_profile` gives other
UI code the selected :class:`Profile`. :func:`render_gpu_page` is the whole GPU page: it plans
the sidebar's profile only, on the card chosen in its card box.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from workbench.errors import PlanError
from workbench.gpu.commands import llm_snippet
from workbench.gpu.launch import Launch, plan_launch
from workbench.gpu.planner import GiB, MemoryPlan, MiB
from workbench.gpu.profiles import Profile, detect_profile, get_profile, profile_names
from workbench.gpu.release_plans import WhichVllm
from workbench.gpu.target import PlanTarget, planning_profile, targets
from workbench.gpu.telemetry import GpuSnapshot, History, read_snapshot
from workbench.models.registry import all_specs, find_architecture
from workbench.ui import state
from workbench.ui.gpu.engine_panel import page_engine_panel
from workbench.ui.gpu.oom import render_oom_help
from workbench.ui.gpu.releases import release_choice, render_release_notes
from workbench.ui.page_facts import widen_main


def _detected(snap: GpuSnapshot) -> Profile:
    """The GPU's profile, as ``python -m workbench gpu`` names it: with no GPU, the CPU one
    (the GPU page then says which card ``plan`` assumes and how to plan for another)."""
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


def _card_choice(profile: Profile, snap: GpuSnapshot, col: DeltaGenerator) -> PlanTarget:
    """The card box: the present GPU and the profile's cards. The memory inputs are reset to
    the chosen one's memory whenever the profile or the card changes, so they always show
    the card that is planned for."""
    choices, default = targets(profile, snap)
    labels = [t.label for t in choices]
    if state.GPU_CARD.get() not in labels:
        state.GPU_CARD.set(labels[default])
    label = col.selectbox(
        "Card",
        labels,
        key=state.GPU_CARD.key,
        help="The cards this profile is tuned for (and this machine's GPU, if any). "
        "The memory to the right follows the card; edit it to plan another size.",
    )
    target = choices[labels.index(str(label))]
    # Streamlit drops a widget's value when a run does not draw it (another page was shown),
    # so an absent value is reset as well as a changed profile or card.
    absent = state.GPU_TOTAL_GIB.get() is None or state.GPU_USED_GIB.get() is None
    if absent or state.GPU_PLAN_FOR.get() != (profile.name, label):
        state.GPU_PLAN_FOR.set((profile.name, str(label)))
        state.GPU_TOTAL_GIB.set(round(target.total_bytes / GiB, 2))
        state.GPU_USED_GIB.set(round((target.total_bytes - target.free_bytes) / GiB, 2))
    return target


def _plan_section(snap: GpuSnapshot, profile: Profile) -> None:
    st.subheader("Memory plan")
    specs = [s for s in all_specs() if s.id != "cpu" and find_architecture(s.id)]
    if not specs:
        st.info("No GPU model is registered.")
        return
    names = {s.id: s.display for s in specs}
    cols = st.columns([3, 3, 2, 2])
    model = cols[0].selectbox(
        "Model", [s.id for s in specs], format_func=lambda m: names[m], key="gpu_model"
    )
    target = _card_choice(profile, snap, cols[1])
    total_gib = cols[2].number_input(
        "GPU memory (GiB)",
        min_value=1.0,
        max_value=1024.0,
        step=1.0,
        key=state.GPU_TOTAL_GIB.key,
        help="A present GPU: its total as CUDA sees it (NVML total minus the driver-reserved "
        "part). A card: its memory as sold.",
    )
    used_gib = cols[3].number_input(
        "Held by others (GiB)",
        min_value=0.0,
        max_value=1024.0,
        step=0.5,
        key=state.GPU_USED_GIB.key,
        help="Memory other processes hold; vLLM can only take what is free.",
    )
    total = int(total_gib * GiB)
    free = max(int((total_gib - used_gib) * GiB), 0)
    which = release_choice(cols[0])
    try:
        launch = plan_launch(model, profile, total, free, vllm_version=which.version)
    except PlanError as exc:
        st.error(str(exc))
        return
    st.caption(
        f"Planning **{profile.label}** on {_planned_on(target, total_gib)} for vLLM "
        f"{which.version} ({which.how})."
    )
    _show_launch(launch, target, which)


def _show_launch(launch: Launch, target: PlanTarget, which: WhichVllm) -> None:
    """The plan's numbers, its memory split, its settings and, when it fits, how to start it
    and send it a page."""
    plan, spec, profile, kwargs = launch.plan, launch.spec, launch.profile, launch.kwargs
    m = st.columns(4)
    m[0].metric("max_model_len", f"{plan.max_model_len:,}")
    m[1].metric("tokens per page", f"{plan.tokens_per_page:,}")
    m[2].metric("pages in flight", f"{plan.pages_in_flight:,}")
    m[3].metric("KV cache", f"{plan.kv_cache_bytes / GiB:.1f} GiB")
    if plan.fits:
        st.success(kv_sentence(plan))
    else:
        st.error("Does not fit.\n\n" + "\n".join(f"- {tip}" for tip in plan.advice))
    bar = memory_bar(plan)
    st.bar_chart(
        pd.DataFrame([{k: v / GiB for k, v in bar.items()}], index=["GiB"]),
        horizontal=True,
        stack=True,
        height=140,
        color=[SPLIT_COLORS[k] for k in bar],
    )
    gpu_name = target.gpu.name if target.gpu else (target.card.name if target.card else "")
    render_release_notes(which, plan, spec, profile, kwargs, gpu_name)
    _settings_table(profile, plan, kwargs)
    if not plan.fits:  # a command that cannot start would only be copied and fail
        st.warning(
            "No `vllm serve` command: this plan does not fit. Change the model, card or "
            "memory above, or the profile in the sidebar, until it fits.",
            icon=":material/block:",
        )
    else:
        st.code(launch.serve_command, language="bash")
        with st.expander("Send a page to it (curl, Python OpenAI client)"):
            st.code(launch.example_curl, language="bash")
            st.code(launch.example_python, language="python")
        st.code(llm_snippet(kwargs), language="python")
        st.caption(
            "Check this plan on this GPU with real vLLM (no weights needed; it starts vLLM "
            "with these arguments and sends the most pages the plan allows at once): "
            f"`python -m workbench probe --model {plan.model_id} --here`"
        )
    with st.expander("Assumptions"):
        st.markdown("\n".join(f"- {a}" for a in plan.assumptions))


def _planned_on(target: PlanTarget, total_gib: float) -> str:
    gib = f"{total_gib:g} GiB"
    if abs(total_gib * GiB - target.total_bytes) > GiB / 100:
        return f"a {gib} card (memory edited)"
    if target.gpu is not None:
        return f"this machine's {target.gpu.name} ({gib})"
    return f"an assumed {target.card.name if target.card else 'card'} ({gib}, no GPU measured)"


def _shown(value: object) -> str:
    return "the model's own" if value is None else str(value)


def _settings_table(profile: Profile, plan: MemoryPlan, kwargs: dict[str, object]) -> None:
    """Every setting of the profile with the value the command below uses (the plan's where
    it overrides the profile) and why; a static table, so the reasons wrap at any width."""
    rows = []
    for k in profile.knobs:
        if k.kind == "engine":
            used = kwargs.get(k.name, k.value)
        elif k.name == "pages_in_flight":
            used = plan.client_pages_in_flight
        else:
            used = k.value
        why = k.why + (" (a guess, not measured)" if k.guessed else "")
        if str(used) != str(k.value):
            big = f" ({k.large_value} for 7-9 B models)" if k.large_value is not None else ""
            why += f" Profile: {_shown(k.value)}{big}; this plan: {_shown(used)}."
        rows.append({"setting": k.name, "value": _shown(used), "why": why})
    st.markdown(f"**Settings of {profile.label}**, as the command below uses them")
    st.table(pd.DataFrame(rows).set_index("setting"))


#: Memory-bar colours, in drawing order; free memory is good news, so green (never red), and
#: memory other processes hold is grey: it is neither vLLM's nor free.
SPLIT_COLORS = {
    "weights": "#4C78A8",
    "activations": "#B279A2",
    "cuda_graphs": "#9D755D",
    "kv_cache": "#F58518",
    "other processes": "#9E9E9E",
    "free": "#8BC34A",
}


def memory_bar(plan: MemoryPlan) -> dict[str, int]:
    """The card's memory in bytes, split for the bar: vLLM's parts, what other processes hold
    (total minus free when planned) and what is left free. The planner's own split counts the
    other processes as free; they are taken out of it here, so the parts add up to the total."""
    split = plan.split.as_dict()
    others = max(plan.total_bytes - plan.free_bytes, 0)
    parts = {k: split[k] for k in ("weights", "activations", "cuda_graphs", "kv_cache")}
    parts["other processes"] = others
    parts["free"] = max(split["free"] - others, 0)
    return parts


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
        "What the GPU holds now, a memory plan for the sidebar's tuning profile with every "
        "setting and why, the matching vLLM command, and what to do if it runs out of memory."
    )
    snap = read_snapshot()
    _readings(snap)
    profile = current_profile()
    st.subheader(f"Profile: {profile.label}")
    st.caption(
        f"{profile.reason.rstrip('.')}. One profile at a time: the sidebar's; change it there. "
        f"Tuned for: {', '.join(c.label for c in profile.cards) or 'no card'}."
    )
    if not profile.supported:
        st.error(f"Unsupported by vLLM: {profile.reason}")
    elif profile.card is None:
        st.info(
            "This profile runs the embedded CPU engine: there is no vLLM to plan. To plan a "
            "vLLM deployment, pick the profile of its card in the sidebar (`python -m "
            f"workbench plan` with no `--profile` assumes {planning_profile(None).label})."
        )
    else:
        _plan_section(snap, profile)
    page_engine_panel()  # what the running vLLM reports, beside its plan (issue 36)
    render_oom_help(profile.name)
