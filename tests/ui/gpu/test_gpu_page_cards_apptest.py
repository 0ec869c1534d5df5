"""The GPU page plans one profile, the sidebar's, on its card, and agrees with ``plan``
(issue 20 item 5); the memory bar keeps other processes' memory apart from free; the
out-of-memory help finds a pasted error."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from workbench.cli import main
from workbench.gpu.planner import GiB, plan_for_model
from workbench.gpu.profiles import PROFILES, get_profile
from workbench.gpu.telemetry import GpuSnapshot
from workbench.ui.gpu.panel import memory_bar

PAGE = Path(__file__).resolve().parents[3] / "pages" / "gpu.py"
NO_GPU = GpuSnapshot(time.time(), error="no GPU in this test")
MODEL = "lightonai/LightOnOCR-2-1B"


@pytest.fixture
def no_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    for where in ("workbench.ui.gpu.panel", "workbench.cli.plan_cmd"):
        monkeypatch.setattr(f"{where}.read_snapshot", lambda **_: NO_GPU)


def _page(profile: str) -> AppTest:
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = profile
    at.run()
    at.selectbox(key="gpu_model").set_value(MODEL).run()
    assert not at.exception
    return at


@pytest.mark.parametrize("profile", [p.name for p in PROFILES if p.supported and p.name != "cpu"])
def test_page_plans_the_sidebar_profile_on_its_card_like_plan(no_gpu, capsys, profile) -> None:
    at = _page(profile)
    card = get_profile(profile).card
    assert at.selectbox(key="gpu_card").value == card.label
    assert at.number_input(key="gpu_total_gib").value == round(card.total_bytes / GiB, 2)
    assert not [s for s in at.selectbox if s.label == "Plan with profile"]  # one profile only
    assert main(["plan", "--model", MODEL, "--profile", profile, "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    serve = at.code[0].value
    assert serve == plan["serve_command"]  # the printed command is the CLI's, card and all
    assert at.subheader[1].value == f"Profile: {get_profile(profile).label}"


def test_switching_profile_or_card_moves_the_memory(no_gpu) -> None:
    at = _page("l4")
    assert at.number_input(key="gpu_total_gib").value == 22.03  # an L4's total to CUDA
    at.session_state["profile"] = "h100-h200"
    at.run()
    assert at.number_input(key="gpu_total_gib").value == 79.11
    at.selectbox(key="gpu_card").set_value("H200 (141 GB, 139.80 GiB to CUDA)").run()
    assert at.number_input(key="gpu_total_gib").value == 139.8
    assert "--gpu-memory-utilization 0.92 " in at.code[0].value
    assert any("an assumed H200 (139.8 GiB" in c.value for c in at.caption)


def test_cpu_and_unsupported_profiles_plan_nothing(no_gpu) -> None:
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = "cpu"
    at.run()
    assert not at.exception and not at.code and not at.metric
    assert any("no vLLM to plan" in i.value for i in at.info)
    at.session_state["profile"] = "v100"
    at.run()
    assert at.error[0].value.startswith("Unsupported by vLLM") and not at.code


def test_memory_bar_keeps_other_processes_apart_from_free() -> None:
    plan, _arch, _spec = plan_for_model(MODEL, get_profile("rtx-4090"), 24 * GiB, 18 * GiB)
    bar = memory_bar(plan)
    assert bar["other processes"] == 6 * GiB
    assert sum(bar.values()) == 24 * GiB
    assert bar["free"] == plan.split.free - 6 * GiB  # the planner's "free" held them


def test_pasted_error_is_explained_on_the_page(no_gpu) -> None:
    at = _page("generic-24gb")
    at.text_area(key="gpu_oom_paste").set_value(
        "ValueError: No available memory for the cache blocks. Try increasing"
    ).run()
    assert at.success[-1].value.startswith("**Most likely: No memory left for the KV cache**")
    assert any("CUDA_MALLOC_ASYNC" in m.value for m in at.markdown)


def _page_or_away() -> None:
    import streamlit as st

    from workbench.ui.gpu.panel import render_gpu_page

    if st.session_state.get("show_gpu", True):
        render_gpu_page()
    else:
        st.write("another page")


def test_memory_comes_back_after_another_page(no_gpu) -> None:
    at = AppTest.from_function(_page_or_away, default_timeout=60)
    at.session_state["profile"] = "a100-40g"
    at.run()
    assert at.number_input(key="gpu_total_gib").value == 39.39
    at.session_state["show_gpu"] = False
    at.run()
    at.session_state["show_gpu"] = True
    at.run()
    assert not at.exception
    assert at.number_input(key="gpu_total_gib").value == 39.39  # not the 1.0 minimum


def test_page_plans_for_the_chosen_vllm_release_like_plan(no_gpu, capsys) -> None:
    at = _page("rtx-4090")
    box = at.selectbox(key="gpu_vllm_version")
    assert box.value == "0.26.0"  # no vLLM here: the release the H200 probes ran on
    assert any("for vLLM 0.26.0 (assumed" in c.value for c in at.caption)
    box.set_value("0.34.0").run()
    assert not at.exception
    serve = at.code[0].value
    assert "--gpu-memory-utilization" not in serve  # 0.34: sized from measured memory
    argv = ["plan", "--model", MODEL, "--profile", "rtx-4090", "--vllm-version", "0.34.0"]
    assert main([*argv, "--json"]) == 0
    assert serve == json.loads(capsys.readouterr().out)["serve_command"]
    notes = " ".join(m.value for m in at.markdown)
    assert "vLLM 0.26.0: " in notes and "unset (1.0) → 0.9" in notes


def test_a_bare_oom_line_gets_its_likely_causes_with_numbers(no_gpu) -> None:
    """Issue 30.6: the last line of an out-of-memory lists the likely causes in order, how to
    tell them apart and the fixes as numbers (e859558: the generic entry only)."""
    at = _page("h100-h200")
    at.text_area(key="gpu_oom_paste").set_value(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.34 GiB"
    ).run()
    assert not at.exception
    shown = " ".join(i.value for i in at.info)
    assert "Only the last line: the likely causes, most likely first" in shown
    assert shown.count("*How to tell:*") == 4
    assert re.search(r"1\. \*\*The vision encoder's batch.*max_num_batched_tokens=\d+", shown, re.S)


def test_no_profile_text_ends_in_two_full_stops(no_gpu) -> None:
    """Issue 30.9: the T4 and V100 profiles read "… or a newer GPU.." on the GPU page."""
    for name in ("t4", "v100", "cpu", "l4"):
        at = AppTest.from_file(str(PAGE), default_timeout=60)
        at.session_state["profile"] = name
        at.run()
        assert not at.exception
        texts = [c.value for c in at.caption] + [e.value for e in at.error]
        assert not [t for t in texts if ".." in t.replace("...", "")], name


def test_with_no_gpu_the_app_names_the_profile_as_the_gpu_command_does(
    no_gpu, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30 item 9: with no GPU the app defaulted to "Generic 24 GB" while
    ``python -m workbench gpu`` said "cpu"; both say the CPU profile now, and the GPU page says
    how to plan for a card."""
    monkeypatch.setattr("workbench.cli.gpu_cmd.read_snapshot", lambda **_: NO_GPU)
    code = main(["gpu"])
    out = capsys.readouterr().out
    assert code == 0 and "profile: cpu (CPU only (embedded engine))" in out
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.run()
    assert not at.exception
    assert at.session_state["profile"] == "cpu"
    assert at.subheader[1].value == "Profile: CPU only (embedded engine)"
    hint = " ".join(i.value for i in at.info)
    assert "pick the profile of its card in the sidebar" in hint and "Generic 24 GB" in hint
