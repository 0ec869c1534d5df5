"""The GPU page's vLLM release: which one the plan is made for (the installed one unless the
user picks another), the known-bad combinations for it, and what the plan would change on
the other releases users run (:mod:`workbench.gpu.release_plans`, :mod:`workbench.gpu.compat`).

Session state: :data:`workbench.ui.state.GPU_VLLM_VERSION`, the release box's value.
"""

from __future__ import annotations

from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from workbench.gpu import compat, release_plans, vllm_versions
from workbench.gpu.planner import MemoryPlan
from workbench.gpu.profiles import Profile
from workbench.models.registry import ModelSpec
from workbench.ui import state


def release_choice(col: DeltaGenerator) -> release_plans.WhichVllm:
    """The release box: the planned releases and the installed one, the installed (or the
    assumed default) first chosen."""
    here = release_plans.which_vllm(None)
    options = sorted({*vllm_versions.PLANNED_RELEASES, here.version}, key=vllm_versions.version_key)
    if state.GPU_VLLM_VERSION.get() not in options:
        state.GPU_VLLM_VERSION.set(here.version)
    chosen = str(
        col.selectbox(
            "vLLM release",
            options,
            key=state.GPU_VLLM_VERSION.key,
            format_func=lambda v: f"{v} ({here.how})" if v == here.version else v,
            help="The plan follows how this release sizes its KV cache and profiles the "
            "vision encoder (workbench/gpu/vllm_versions.py).",
        )
    )
    return here if chosen == here.version else release_plans.which_vllm(chosen)


def render_release_notes(
    which: release_plans.WhichVllm,
    plan: MemoryPlan,
    spec: ModelSpec,
    profile: Profile,
    kwargs: dict[str, Any],
    gpu_name: str,
) -> None:
    """Warnings for this release, and the other releases' differences in an expander."""
    setup = compat.Setup(
        which.version, spec, plan.total_bytes, gpu_name,
        transformers=vllm_versions.installed_transformers()
        if which.how == "installed here" else None,
        kwargs=kwargs,
    )  # fmt: skip
    for warning in compat.warnings(setup):
        st.warning(warning, icon=":material/warning:")
    if not which.supported:
        st.warning(
            f"vLLM {which.version} is outside the supported range {vllm_versions.OLDEST}–"
            f"{vllm_versions.NEWEST}: planned as the nearest release read."
        )
    mnbt, seqs = compat.serve_defaults(which.version, plan.total_bytes, gpu_name)
    rows = release_plans.compare(spec, profile, plan.total_bytes, plan.free_bytes)
    with st.expander(f"On other vLLM releases (this plan is for {which.version})"):
        lines = release_plans.differences(plan, rows)
        st.markdown("\n".join(f"- {line}" for line in lines) or "The same on every release.")
        st.caption(
            f"`vllm serve` without `--max-num-batched-tokens` / `--max-num-seqs` uses {mnbt:,} "
            f"/ {seqs:,} on this card (engine/arg_utils.py::get_batch_defaults)."
        )
