"""The sidebar starts on the server the app was started with (``WORKBENCH_BASE_URL``), in
every new session, a reload too (a walkthrough: started with it, the app opened on the CPU
engine, and after a reload went back to it and read the whole working set again on the CPU).
Without a named server it starts on the embedded CPU engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.ui import config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_settings() -> Iterator[None]:
    config.settings.clear()  # the process's settings are read once, from the environment
    yield
    config.settings.clear()


def _kind(tmp_path: Path) -> str:
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(tmp_path)
    at = at.run()
    assert not at.exception
    return str(at.sidebar.radio(key="sb_engine_kind").value)


def test_a_server_named_at_start_is_the_engine_a_session_starts_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(["text"], models=["lightonai/LightOnOCR-2-1B"]) as server:
        monkeypatch.setenv("WORKBENCH_BASE_URL", server.base_url)
        assert _kind(tmp_path) == "vllm-server"
        assert _kind(tmp_path) == "vllm-server"  # a new session (a reload): the same


def test_without_a_named_server_the_cpu_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WORKBENCH_BASE_URL", raising=False)
    assert _kind(tmp_path) == "cpu"


def test_a_short_timeout_from_the_environment_does_not_take_the_page_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """WORKBENCH_TIMEOUT under the box's old minimum (5 s) raised StreamlitValueBelowMinError
    on every page once the server engine was picked (the batch soak runs with 3 s)."""
    with FakeOpenAIServer(["text"], models=["lightonai/LightOnOCR-2-1B"]) as server:
        monkeypatch.setenv("WORKBENCH_BASE_URL", server.base_url)
        monkeypatch.setenv("WORKBENCH_TIMEOUT", "3")
        assert _kind(tmp_path) == "vllm-server"  # _kind asserts no exception
