"""The engine picked by hand in the sidebar survives a reload and travels in a shared link:
the URL names it (``?engine=&server=&model=``, never the API key) and a new session opened
on that URL starts on it (a walkthrough: engine, base URL and model went back to the
defaults on every reload)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.ui import config

ROOT = Path(__file__).resolve().parents[2]
MODELS = ["lightonai/LightOnOCR-2-1B", "datalab-to/chandra"]


@pytest.fixture(autouse=True)
def _fresh_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("WORKBENCH_BASE_URL", raising=False)
    config.settings.clear()  # the process's settings are read once, from the environment
    yield
    config.settings.clear()


def _open(tmp_path: Path, query: dict[str, Any] | None = None) -> AppTest:
    """A new session (a reload, or a shared link opened) on the URL's query ``query``."""
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(tmp_path)
    at.query_params.update(query or {})
    at = at.run()
    assert not at.exception
    return at


def _sidebar(at: AppTest) -> dict[str, Any]:
    kind = at.sidebar.radio(key="sb_engine_kind").value
    if kind != "vllm-server":
        return {"kind": kind}
    return {
        "kind": kind,
        "base_url": at.sidebar.text_input(key="sb_base_url").value,
        "model": at.sidebar.selectbox(key="sb_server_model").value,
    }


def test_a_server_picked_by_hand_comes_back_on_reload(tmp_path: Path) -> None:
    with FakeOpenAIServer(["text"], models=MODELS) as server:
        at = _open(tmp_path)
        at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm-server").run()
        at = at.sidebar.text_input(key="sb_base_url").set_value(server.base_url).run()
        at = at.sidebar.text_input(key="sb_api_key").set_value("sekrit-key").run()
        at = at.sidebar.selectbox(key="sb_server_model").set_value(MODELS[1]).run()
        assert not at.exception
        picked = _sidebar(at)
        assert picked == {"kind": "vllm-server", "base_url": server.base_url, "model": MODELS[1]}
        query = dict(at.query_params)
        assert query == {"engine": "vllm-server", "server": server.base_url, "model": MODELS[1]}
        assert not any("sekrit" in str(v) for v in query.values())  # never the key

        again = _open(tmp_path, query)  # a reload: a new session on the same URL
        assert _sidebar(again) == picked
        assert again.sidebar.text_input(key="sb_api_key").value == ""


def test_the_cpu_engine_picked_over_a_named_server_stays_picked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(["text"], models=MODELS) as server:
        monkeypatch.setenv("WORKBENCH_BASE_URL", server.base_url)
        config.settings.clear()
        at = _open(tmp_path)
        assert _sidebar(at)["kind"] == "vllm-server"
        at = at.sidebar.radio(key="sb_engine_kind").set_value("cpu").run()
        assert dict(at.query_params) == {"engine": "cpu"}
        assert _sidebar(_open(tmp_path, dict(at.query_params))) == {"kind": "cpu"}


def test_a_link_naming_what_the_sidebar_does_not_offer_is_ignored(tmp_path: Path) -> None:
    at = _open(tmp_path, {"engine": "nonsense", "model": "nope"})
    assert _sidebar(at) == {"kind": "cpu"}
    assert dict(at.query_params) == {"engine": "cpu"}  # the URL says what is picked now
    at = _open(tmp_path, {"engine": "vllm-server", "server": "file:///etc/passwd"})
    assert at.sidebar.text_input(key="sb_base_url").value == config.settings().base_url
