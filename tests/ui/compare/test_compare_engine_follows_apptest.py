"""Compare → "Engine for run B" follows the sidebar, as Batch's box does: with the Compare page
open, picking "vLLM server" in the sidebar left the box on "Embedded CPU engine", so "Start
run B" ran the CPU engine again."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.runs_seed import seed

ROOT = Path(__file__).resolve().parents[3]


def test_engine_for_run_b_follows_the_sidebar(tmp_path: Path) -> None:
    a, _ = seed(tmp_path, pages=1, both=False)
    with FakeOpenAIServer(["text"], models=["lightonai/LightOnOCR-2-1B"]) as server:
        at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60)
        at.session_state["runs_store_dir"] = str(tmp_path)
        at.session_state["compare_run_a"] = a
        at = at.run().switch_page("../pages/compare.py").run()
        assert at.selectbox(key="cmp_new_engine").value == "Embedded CPU engine"
        at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm-server").run()
        at = at.sidebar.text_input(key="sb_base_url").set_value(server.base_url).run()
        assert not at.exception
        box = at.selectbox(key="cmp_new_engine")
        assert box.value == "Sidebar engine (vllm-server)", box.options
