"""A download reaches a browser that fetches it late (workbench/ui/download_grace.py).

The browser's answer to its click (the built file's URL) is held for 7 s, as a loaded machine
or a slow connection holds it; meanwhile the sidebar's GPU panel reruns every 2 s, and the end
of each run sweeps unreferenced files: Streamlit alone deletes a clicked download on the
second, and the download is "canceled". Real app, instant FakeEngine, Chromium; the app's
websocket goes through Playwright, which holds that one answer and passes every other message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser import app_state

pytestmark = pytest.mark.browser

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
HOLD_MS = 7000


def _is_answer(message: str | bytes) -> bool:
    if not isinstance(message, bytes):
        return False
    try:
        return ForwardMsg.FromString(message).WhichOneof("type") == "backend_operation_response"
    except Exception:  # not one ForwardMsg: pass it on
        return False


def test_a_download_fetched_late_still_arrives_under_its_name(fake_app_url: str, page: Any) -> None:
    routes: list[Any] = []
    held: list[bytes] = []

    def through(ws: Any) -> None:
        server = ws.connect_to_server()
        routes.append(ws)

        def from_server(message: str | bytes) -> None:
            if _is_answer(message):
                held.append(message)  # type: ignore[arg-type]
            else:
                ws.send(message)

        server.on_message(from_server)

    page.route_web_socket("**/_stcore/stream", through)
    page.set_viewport_size({"width": 1400, "height": 1000})
    app_state.open_viewer(page, fake_app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [DATA / "census_12s0324.pdf"]
    )
    button = page.get_by_role("button", name="Page Markdown")
    expect(button).to_be_visible(timeout=120_000)
    app_state.idle(page)
    with page.expect_download(timeout=60_000) as download:
        button.click()
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(100)
        assert held, "no answer to the click came over the websocket"
        page.wait_for_timeout(HOLD_MS)  # three GPU-panel reruns end meanwhile
        for message in held:
            routes[-1].send(message)
    assert download.value.failure() is None
    assert download.value.suggested_filename == "census_12s0324-page-0001.md"
    assert Path(download.value.path()).read_text().strip()
    assert page.js_errors == []
