"""Waits on the app's own state, never on a fixed time.

Streamlit marks its root element with the connection state and the script state
(``data-test-connection-state``, ``data-test-script-state``: ``initial``, ``running``,
``notRunning``, ``rerunRequested``...). A test waits for the state it needs; the bound
(``STATE_TIMEOUT_MS`` in conftest) only decides when it gives up.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

APP = '[data-testid="stApp"]'


def connected(page: Any) -> None:
    """The browser holds a live session with the server."""
    expect(page.locator(f'{APP}[data-test-connection-state="CONNECTED"]')).to_have_count(1)


def idle(page: Any) -> None:
    """No script run in progress or requested: what is on screen is the app's answer."""
    connected(page)
    expect(page.locator(f'{APP}[data-test-script-state="notRunning"]')).to_have_count(1)
    expect(page.get_by_test_id("stStatusWidgetRunningIcon")).to_have_count(0)


def open_viewer(page: Any, app_url: str) -> None:
    """The Viewer, loaded and ready for files."""
    page.goto(app_url + "/viewer")
    connected(page)
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_be_visible()


def pick_profile(page: Any, label: str) -> None:
    """Choose the sidebar's tuning profile (with no GPU it starts on the CPU one)."""
    box = (
        page.get_by_test_id("stSidebar")
        .get_by_test_id("stSelectbox")
        .filter(has_text="Tuning profile")
    )
    box.click()
    # The dropdown draws only the options near the current one (a virtual list): typing
    # narrows it to the wanted one wherever the list was scrolled.
    page.keyboard.type(label)
    page.get_by_role("option", name=label, exact=True).click()
    # The pick reruns the page with the profile's values; a field filled before that rerun
    # ends is put back to the profile's (a busy CI machine: GPU memory 8 read back 22.04).
    expect(box.get_by_role("combobox")).to_have_value(label)
    idle(page)
