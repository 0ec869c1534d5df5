"""Runs, GPU, About and sidebar polish (issue 13), in Chromium at 1400×1000 and 1100×900:

* Runs: the most useful columns first (document, status, engine · model, …), status drawn
  as a coloured badge, and at 1400 px the table needs no sideways scrolling;
* GPU: at 8 GiB the plan does not fit and no ``vllm serve`` command is offered; at 24 GiB
  the KV-cache sentence multiplies out (usable blocks × block size = tokens);
* About: the vLLM server row says what was checked (``GET …/models``) and "no" when nothing
  answers there;
* Sidebar: once a page has been processed, Compare's sidebar describes the loaded engine,
  also after Compare started a missing run with the CPU engine.

Screenshots are saved (``shots``) for a person to look at.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state
from tests.browser.app_state import pick_profile
from tests.browser.test_compare_browser import use_store
from tests.ui.runs_seed import seed

pytestmark = pytest.mark.browser

SIZES = [(1400, 1000), (1100, 900)]
DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def _size(page: Any, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_runs_table_columns_badges_and_width(
    app_url: str, page: Any, tmp_path: Path, shots: Path, size: tuple[int, int]
) -> None:
    _size(page, size)
    store = tmp_path / "store"
    seed(store, pages=2)
    page.goto(app_url + "/runs")
    use_store(page, store)
    table = page.get_by_test_id("stDataFrame").first
    headers = table.locator("th[role=columnheader]")
    expect(headers.first).to_have_text("document")
    names = headers.all_inner_texts()
    assert names[:3] == ["document", "status", "engine · model"], names
    assert "problem" not in names  # hidden while no run has one
    cells = table.locator("td[role=gridcell][aria-colindex='2']")
    expect(cells).to_have_count(2)  # the grid draws its rows after its headers (busy machine)
    assert cells.all_inner_texts() == ["done", "done"]
    scroll = table.locator(".dvn-scroller").evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    if size[0] >= 1400:
        assert scroll[0] <= scroll[1] + 1, scroll  # every column shows, none cut off
    # The run viewer's controls are whole at both sizes: all five zoom choices inside their
    # column, the "Compare with…" label uncut.
    three = page.get_by_role("radio", name="3×")
    expect(three).to_be_visible()
    box = three.bounding_box()
    col = page.get_by_test_id("stColumn").filter(has=three).last.bounding_box()
    assert box["x"] + box["width"] <= col["x"] + col["width"] + 1, (box, col)
    label = page.get_by_role("button", name="Compare with…").locator("p")
    assert label.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"polish-runs-table-{size[0]}.png"))
    assert page.get_by_test_id("stException").count() == 0


def _plan(page: Any, gib: str) -> None:
    field = page.locator(".st-key-gpu_total_gib input")
    app_state.idle(page)  # no rerun in flight that would put the field back
    field.fill(gib)
    field.press("Enter")
    expect(field).to_have_value(re.compile(rf"^{gib}(\.0+)?$"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_gpu_plan_no_fit_has_no_command_and_numbers_multiply_out(
    app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    _size(page, size)
    page.goto(app_url + "/gpu")
    pick_profile(page, "Generic 24 GB card (safe settings)")  # no GPU here: a card's profile
    expect(page.get_by_text("Memory plan", exact=True)).to_be_visible()
    _plan(page, "8")
    no_fit = page.get_by_test_id("stAlertContentError").get_by_text("Does not fit.")
    expect(no_fit).to_be_visible()
    no_command = page.get_by_text("this plan does not fit")
    expect(no_command).to_be_visible()
    expect(page.get_by_test_id("stCode").filter(has_text="vllm serve")).to_have_count(0)
    expect(page.get_by_test_id("stCode").filter(has_text="vllm.LLM")).to_have_count(0)
    no_command.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"polish-gpu-8gib-{size[0]}.png"))

    _plan(page, "24")
    fits = page.get_by_text(re.compile(r"^Fits: "))
    expect(fits).to_be_visible()
    numbers = re.search(
        r"([\d,]+) usable blocks × (\d+) tokens = ([\d,]+) tokens", fits.inner_text()
    )
    assert numbers, fits.inner_text()
    blocks, size_tokens, tokens = (int(g.replace(",", "")) for g in numbers.groups())
    assert blocks * size_tokens == tokens
    expect(page.get_by_test_id("stCode").filter(has_text="vllm serve")).to_have_count(1)
    fits.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / f"polish-gpu-24gib-{size[0]}.png"))
    assert page.get_by_test_id("stException").count() == 0


def test_about_says_what_was_checked_and_sidebar_describes_loaded_engine(
    app_url: str, page: Any, shots: Path
) -> None:
    _size(page, SIZES[0])
    page.goto(app_url + "/about")
    table = page.get_by_test_id("stDataFrame").first
    row = table.locator("tr", has_text="vLLM server")  # the grid's accessible (hidden) table
    expect(row).to_have_count(1)
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == "no", cells  # nothing serves at the default base URL here
    assert re.search(r"GET https?://\S+/models: ", cells[2]), cells
    page.screenshot(path=str(shots / "polish-about.png"))

    # Process one page in the Viewer, then open Compare: the sidebar describes the engine.
    page.goto(app_url + "/viewer")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
        [DATA / "census_12s0324.pdf"]
    )
    expect(page.locator(".wb-box").first).to_be_visible(timeout=180_000)
    page.get_by_role("link", name="Compare").click()
    expect(page.get_by_role("heading", name="Compare runs")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("model:")
    expect(sidebar).not_to_contain_text("Not loaded yet")
    # Compare's "start the missing run" with the CPU engine uses the sidebar's settings: the
    # same engine, so the sidebar still describes it afterwards (a second, differently keyed
    # CPU engine used to replace it and leave "not loaded" in the sidebar).
    start = page.get_by_role("button", name="Start run B")
    expect(page.get_by_text("Start the missing run")).to_be_visible()
    if not start.is_visible():  # open already while no other run holds the document
        page.get_by_text("Start the missing run").click()
    start.click()
    expect(page.get_by_role("combobox", name="Run B (same document)")).to_be_visible(
        timeout=180_000
    )
    expect(sidebar).to_contain_text("model:")
    expect(sidebar).not_to_contain_text("Not loaded yet")
    # Two CPU runs of one document: the pickers' whole labels show, and they differ.
    pickers = [page.get_by_role("combobox", name=n) for n in ("Run A", "Run B (same document)")]
    labels = [p.input_value() for p in pickers]
    assert labels[0] != labels[1], labels
    for picker in pickers:
        assert picker.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), labels
    page.screenshot(path=str(shots / "polish-sidebar-compare.png"))
