"""The sidebar's vLLM telemetry chart fits the sidebar at 1100 px (Chromium, the real app, the
fake vLLM server with ``/metrics``): every legend entry is inside the sidebar ("waiting" was
drawn past its edge, so one of the three lines had no name), and an idle engine's axis reads
0, not "0.000000"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.fake_server_app import serve_with_fake_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART_TEXTS = """() => [...document.querySelectorAll(
    '[data-testid="stSidebar"] [data-testid="stVegaLiteChart"] text')].map(
    t => [t.textContent, t.getBoundingClientRect().right])"""


@pytest.fixture(scope="module")
def metrics_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serve_with_fake_server(tmp_path_factory, ["--vllm-metrics"])


def test_the_telemetry_chart_and_its_legend_fit_the_sidebar(
    metrics_app_url: str, page: Any, shots: Path
) -> None:
    page.set_viewport_size({"width": 1100, "height": 800})
    app_state.open_viewer(page, metrics_app_url)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("vLLM server (OpenAI API)").click()
    chart = sidebar.get_by_test_id("stVegaLiteChart").last
    expect(chart).to_be_visible()  # two readings, 2 s apart
    expect(chart.locator("text", has_text="waiting")).to_have_count(1)
    chart.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "telemetry-chart-1100.png"))
    edge = sidebar.bounding_box()["x"] + sidebar.bounding_box()["width"]
    texts = dict(page.evaluate(CHART_TEXTS))
    for name in ("KV cache %", "running", "waiting"):
        assert texts[name] <= edge, (name, texts[name], edge)
    assert "0.000000" not in texts, texts
    assert page.js_errors == []
