"""The GPU page and the sidebar panel in Streamlit's AppTest (no GPU on this machine)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from workbench.gpu.telemetry import read_snapshot

PAGE = Path(__file__).resolve().parents[3] / "pages" / "gpu.py"


def _planned() -> AppTest:
    """The GPU page with a card's profile picked (with no GPU the sidebar's is the CPU one)."""
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = "generic-24gb"
    return at.run()


def test_gpu_page_shows_plan_and_commands() -> None:
    at = _planned()
    assert not at.exception
    assert at.title[0].value == "GPU"
    metrics = {m.label: m.value for m in at.metric}
    assert set(metrics) == {"max_model_len", "tokens per page", "pages in flight", "KV cache"}
    assert int(metrics["max_model_len"].replace(",", "")) > 0
    assert at.success and at.success[0].value.startswith("Fits: ")
    serve, curl, client, snippet = (c.value for c in at.code)
    # the example calls send a page as the workbench does, to the model the command serves
    assert curl.startswith("curl ") and "page.png" in curl
    assert "from openai import OpenAI" in client or "OpenAI(" in client
    model = at.selectbox(key="gpu_model").value
    assert serve.startswith(f"vllm serve {model} --gpu-memory-utilization ")
    assert snippet.startswith("import vllm") and f"model={model!r}" in snippet
    # the profile's settings are explained, in a static table whose reasons wrap, with the
    # values the command uses
    table = at.table[0].value
    assert "why" in table.columns and all(len(w) > 20 for w in table["why"])
    assert f"--max-num-seqs {table.loc['max_num_seqs', 'value']} " in serve


def test_gpu_page_shows_advice_when_the_model_cannot_fit() -> None:
    at = _planned()
    at.selectbox(key="gpu_model").set_value("allenai/olmOCR-2-7B-1025").run()
    at.number_input(key="gpu_total_gib").set_value(16.0).run()
    assert at.number_input(key="gpu_total_gib").value == 16.0  # an edit is kept
    at.number_input(key="gpu_used_gib").set_value(0.0).run()
    assert not at.exception
    assert at.error, "expected an st.error with advice"
    text = at.error[0].value
    assert text.startswith("Does not fit.") and "smaller model" in text
    assert "olmOCR 2 (7B, FP8)" in text  # the registry's display name of the FP8 checkpoint
    # a plan that does not fit prints no command to start it (issue 13)
    assert not any("vllm serve" in c.value or "vllm.LLM" in c.value for c in at.code)


def _sidebar_app() -> None:
    import streamlit as st

    from workbench.ui.gpu.panel import current_profile, sidebar_gpu

    with st.sidebar:
        sidebar_gpu()
    st.write(f"profile={current_profile().name}")


def test_sidebar_profile_switch_and_vram_line() -> None:
    at = AppTest.from_function(_sidebar_app, default_timeout=60).run()
    assert not at.exception
    box = at.sidebar.selectbox(key="profile")
    assert box.value == at.session_state["profile"]
    if not read_snapshot().available:
        assert at.sidebar.caption[0].value.startswith("No NVIDIA GPU (NVML: ")
    box.set_value("t4").run()
    assert at.sidebar.warning[0].value.startswith("sm_75")
    assert at.markdown[-1].value == "profile=t4"
    at.sidebar.selectbox(key="profile").set_value("l4").run()
    assert at.markdown[-1].value == "profile=l4" and not at.sidebar.warning


def test_a_hopper_plan_shows_its_api_servers_with_why_and_serves_with_them() -> None:
    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.session_state["profile"] = "h100-h200"
    at.run()
    assert not at.exception
    table = at.table[0].value
    assert table.loc["api_server_count", "value"] == "4"
    assert "one after another" in table.loc["api_server_count", "why"]
    assert "--api-server-count 4" in at.code[0].value
