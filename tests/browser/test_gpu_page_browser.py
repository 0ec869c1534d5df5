"""The GPU page in Chromium at 1100×800 (issue 20 item 5): the sidebar's profile is the one
planned, on its card; switching it moves the card, the memory and the command together; the
settings' reasons wrap inside the page (nothing cut off, no sideways scrolling); the
out-of-memory help finds a pasted error. Screenshots are saved for a person to look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser.app_state import pick_profile

pytestmark = pytest.mark.browser


def test_gpu_page_one_profile_card_and_readable_reasons_at_1100(
    app_url: str, page: Any, shots: Path
) -> None:
    page.set_viewport_size({"width": 1100, "height": 800})
    page.goto(app_url + "/gpu")
    expect(page.get_by_text("Profile: ", exact=False).first).to_be_visible()
    expect(page.get_by_text("Plan with profile")).to_have_count(0)
    pick_profile(page, "L4 (24 GB, Ada)")
    expect(page.get_by_text("Profile: L4 (24 GB, Ada)")).to_be_visible()
    expect(page.get_by_text("Memory plan", exact=True)).to_be_visible()
    memory = page.locator(".st-key-gpu_total_gib input")
    expect(memory).to_have_value("22.03")  # an L4's total as CUDA reports it
    page.get_by_text("Memory plan", exact=True).scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "gpu-l4-plan-1100.png"))
    serve = page.get_by_test_id("stCode").filter(has_text="vllm serve")
    expect(serve).to_contain_text("--kv-cache-dtype fp8")
    table = page.get_by_test_id("stTable")
    expect(table).to_be_visible()
    # the reasons wrap: the table is no wider than its box and no cell cuts its text off
    widths = table.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1] + 1, widths
    clipped = table.locator("td").evaluate_all(
        "(cells) => cells.filter(c => c.scrollWidth > c.clientWidth + 1).length"
    )
    assert clipped == 0
    table.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "gpu-l4-settings-1100.png"))

    pick_profile(page, "H100 / H200 (80-141 GB, Hopper)")
    expect(memory).to_have_value("79.11")
    expect(serve).to_contain_text("--kv-cache-dtype auto")
    paste = page.locator(".st-key-gpu_oom_paste textarea")
    paste.fill("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.34 GiB "
               "in pixtral.py scaled_dot_product_attention")  # fmt: skip
    paste.press("Control+Enter")
    answer = page.get_by_text("Most likely: Out of memory in the vision encoder")
    expect(answer).to_be_visible()
    answer.scroll_into_view_if_needed()
    page.screenshot(path=str(shots / "gpu-oom-help-1100.png"))
    assert page.get_by_test_id("stException").count() == 0
