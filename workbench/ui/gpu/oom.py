"""The GPU page's "If it runs out of memory" section: :mod:`workbench.gpu.oom_help` rendered.

vLLM's out-of-memory errors by their text, what each means and the knob that fixes it (those
that concern the sidebar's profile first), a box that matches a pasted error to its entry,
and the popular advice that is wrong, next to the profiles it concerns. Texts are the
project's own (no model output), rendered as Markdown with code spans for the quotes.
"""

from __future__ import annotations

import streamlit as st

from workbench.errors import PlanError
from workbench.gpu import oom_help
from workbench.gpu.oom_help import Myth, OomEntry
from workbench.gpu.planner import MemoryPlan, plan_for_model
from workbench.gpu.profiles import get_profile
from workbench.ui import state

DEFAULT_MODEL = "lightonai/LightOnOCR-2-1B"  # the GPU page's model when none is picked yet


def _entry_markdown(entry: OomEntry) -> str:
    knobs = ", ".join(f"`{k}`" for k in entry.knobs)
    return (
        f"**vLLM says** ({entry.stage}): `` {entry.says} ``\n\n"  # a code span wraps
        f"**What it means.** {entry.means}\n\n"
        f"**Fix.** {entry.fix}\n\n"
        f"Knobs: {knobs}. Source in vLLM: `{entry.source}`."
    )


def _myth_markdown(myth: Myth) -> str:
    where = ", ".join(myth.profiles) if myth.profiles else "every GPU profile"
    return f"- **“{myth.claim}”** ({where}). {myth.truth} <small>Source: `{myth.source}`.</small>"


def _plan(profile_name: str) -> MemoryPlan | None:
    """The plan of the GPU page's model on the profile's card (None: no GPU profile)."""
    try:
        profile = get_profile(profile_name)
        card = profile.card
        if card is None:
            return None
        model = state.WIDGET("gpu_model").get() or DEFAULT_MODEL
        return plan_for_model(str(model), profile, card.total_bytes)[0]
    except (PlanError, KeyError):
        return None


def _likely_causes(pasted: str, profile_name: str) -> None:
    """Only the last line of an out-of-memory: its likely causes in order, how to tell them
    apart, and the fixes with the numbers of this card's plan."""
    plan = _plan(profile_name)
    where = f" for {plan.model_id} on {profile_name}" if plan is not None else ""
    lines = [
        f"**Only the last line: the likely causes, most likely first** (numbers{where})."
        " The lines above it in the log tell them apart:"
    ]
    for n, cause in enumerate(oom_help.likely_causes(pasted, plan), 1):
        lines.append(
            f"{n}. **{cause.title}**  \n*How to tell:* {cause.tell}  \n*Fix:* `{cause.fix}`"
        )
    st.info("\n".join(lines), icon=":material/troubleshoot:")


def render_oom_help(profile: str) -> None:
    """The section for ``profile`` (a profile name)."""
    st.subheader("If it runs out of memory")
    st.caption(
        "vLLM's own messages, as it prints them (checked in the 0.26 and 0.33 source), what "
        "each means and the setting that fixes it. The same table: "
        '`python -m workbench plan --explain-error "<pasted error>"`.'
    )
    pasted = st.text_area(
        "Paste an error or a log to look it up",
        key="gpu_oom_paste",
        height=100,
        placeholder="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate …",
    )
    found = oom_help.explain(pasted) if pasted.strip() else []
    if pasted.strip() and not found:
        st.warning("No known out-of-memory error in that text; the list below has them all.")
    if found and oom_help.bare_oom(pasted):
        _likely_causes(pasted, profile)
        found = []
    for i, entry in enumerate(found):
        head = "Most likely" if i == 0 else "Also matches"
        box = st.success if i == 0 else st.info
        box(f"**{head}: {entry.title}**\n\n{_entry_markdown(entry)}")
    errors, myths = oom_help.for_profile(profile)
    for entry in errors:
        with st.expander(f"{entry.title}: {entry.says.split(' …')[0][:90]}"):
            st.markdown(_entry_markdown(entry))
    st.markdown("**Popular advice, corrected**")
    st.markdown("\n".join(_myth_markdown(m) for m in myths), unsafe_allow_html=True)
