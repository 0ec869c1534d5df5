"""The vLLM telemetry panel (issue 36) in the real app and Chromium: the app runs the real
server engine against the fake OpenAI server run as a script with ``--vllm-metrics`` (vLLM's
``/metrics``, moving with the completions in flight). The sidebar's line shows pages running
while a document is read and none once it is done, with the chart of its history; the GPU page
shows the same numbers beside the plan."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.fake_server_app import MODEL, pdf_file, serve_with_fake_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LONG_MS = 120_000


@pytest.fixture(scope="module")
def telemetry_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # Each page takes 5 s on the server: the 2 s poll of the panel sees it running.
    yield from serve_with_fake_server(tmp_path_factory, ["--vllm-metrics", "--delay", "5"])


def test_the_sidebar_shows_vllms_numbers_move_while_pages_run(
    telemetry_app_url: str, page: Any, tmp_path: Path, shots: Path
) -> None:
    app_state.open_viewer(page, telemetry_app_url)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("vLLM server (OpenAI API)").click()
    expect(page.get_by_role("combobox", name="Model")).to_have_value(MODEL)
    expect(sidebar.get_by_text(re.compile(r"vLLM KV cache 0% · 0 running"))).to_be_visible()
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [pdf_file(tmp_path / "telemetry.pdf", 6)]
    )
    running = sidebar.get_by_text(re.compile(r"vLLM KV cache [1-9]\d*% · [1-9]\d* running"))
    expect(running).to_be_visible(timeout=LONG_MS)
    page.screenshot(path=str(shots / "telemetry-running.png"))
    idle = sidebar.get_by_text(re.compile(r"vLLM KV cache 0% · 0 running · 0 waiting"))
    expect(idle).to_be_visible(timeout=LONG_MS)
    expect(sidebar.get_by_text(re.compile(r"tok/s out"))).to_be_visible()
    expect(sidebar.get_by_test_id("stVegaLiteChart").last).to_be_visible()  # the history
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=re.compile("GPU")).click()
    app_state.connected(page)  # the same session: the sidebar's engine is still the server
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text("vLLM engine", exact=True)).to_be_visible(timeout=LONG_MS)
    metric = main.get_by_test_id("stMetric").filter(has_text="Preemptions")
    expect(metric).to_be_visible(timeout=LONG_MS)
    expect(metric).to_contain_text("0")
    plan = main.get_by_test_id("stDataFrame").filter(has_text="pages in flight")
    expect(plan).to_have_count(1)  # the plan beside vLLM's numbers (its cells are drawn)
    page.screenshot(path=str(shots / "telemetry-gpu-page.png"))
    assert page.js_errors == []
