"""The engine picked by hand survives a reload and travels in a link (walkthrough, issue 30):
the vLLM server picked in the sidebar, its base URL and its second model, are still picked
after opening another page, after a reload, and in a new browser opening the copied URL; the
API key typed is in none of them. Before, a reload went back to the CPU engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.browser

SERVER = "vLLM server (OpenAI API)"
MODELS = ["lightonai/LightOnOCR-2-1B", "datalab-to/chandra"]


def _model_box(page: Any) -> Any:
    return page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").filter(has_text="Model")


def _on_the_server(page: Any, base_url: str) -> None:
    """The sidebar shows the server engine, its base URL and the second model; no key."""
    bar = page.get_by_test_id("stSidebar")
    expect(bar.get_by_role("radio", name=SERVER)).to_be_checked()
    expect(bar.get_by_label("Base URL")).to_have_value(base_url)
    expect(bar.get_by_role("combobox", name="Model")).to_have_value(MODELS[1])
    expect(bar.get_by_label("API key")).to_have_value("")
    app_state.idle(page)


def test_the_server_picked_comes_back_on_reload_and_in_a_link(
    fake_app_url: str, page: Any, browser: Any, shots: Path
) -> None:
    with FakeOpenAIServer(["text"], models=MODELS) as server:
        app_state.open_viewer(page, fake_app_url)
        bar = page.get_by_test_id("stSidebar")
        bar.get_by_text(SERVER).click()
        url_box = bar.get_by_label("Base URL")
        url_box.fill(server.base_url)
        url_box.press("Enter")
        app_state.idle(page)
        key_box = bar.get_by_label("API key")
        key_box.fill("sekrit-key")
        key_box.press("Enter")
        app_state.idle(page)
        _model_box(page).click()
        page.get_by_role("option", name=MODELS[1], exact=True).click()
        app_state.idle(page)
        expect(page).to_have_url(re.compile(r"[?&]engine=vllm-server(&|$)"))

        page.get_by_test_id("stSidebarNav").get_by_text("Runs", exact=True).click()
        expect(page.get_by_role("heading", name="Runs")).to_be_visible()
        expect(page).to_have_url(re.compile(r"/runs\?.*engine=vllm-server"))
        page.reload()
        app_state.connected(page)
        _on_the_server(page, server.base_url)
        page.screenshot(path=str(shots / "engine-after-reload.png"))
        link = page.url
        assert "sekrit" not in link

        other = browser.new_context(viewport={"width": 1500, "height": 1100})
        try:  # another browser opening the shared link: a session with nothing typed
            shared = other.new_page()
            shared.goto(link)
            app_state.connected(shared)
            _on_the_server(shared, server.base_url)
        finally:
            other.close()
