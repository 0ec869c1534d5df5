"""Runs → Batch: the Engine box follows the sidebar. A user who opened the Runs page (the
sidebar on the CPU engine), then picked "vLLM server" in the sidebar and pressed "Start batch"
got the embedded CPU engine: the box kept its first value, "Embedded CPU engine"."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[3]


def test_the_batch_engine_follows_the_sidebar_when_it_changes(tmp_path: Path) -> None:
    with FakeOpenAIServer(["text"], models=["lightonai/LightOnOCR-2-1B"]) as server:
        at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60)
        at.session_state["runs_store_dir"] = str(tmp_path)
        at = at.run().switch_page("../pages/runs.py").run()
        assert at.selectbox(key="batch_engine").value == "Embedded CPU engine"
        at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm-server").run()
        at = at.sidebar.text_input(key="sb_base_url").set_value(server.base_url).run()
        assert not at.exception
        [box] = [s for s in at.selectbox if s.label == "Engine"]
        assert box.value == "Sidebar engine (vllm-server)", box.options
        # a choice the user makes in the box stays theirs
        at = box.set_value("Embedded CPU engine").run()
        assert at.selectbox(key="batch_engine").value == "Embedded CPU engine"
