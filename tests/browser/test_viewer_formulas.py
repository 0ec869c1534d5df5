"""Formulas the CPU engine typesets from a PDF's text layer render in the Viewer: the real
app, headless Chromium, the real engine on tests/data/born_digital_formulas.pdf (display
formulas with scripts, a fraction over its rule, a sum with limits). KaTeX must draw each
one: a TeX string KaTeX cannot parse shows as a red ``.katex-error`` instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = Path(__file__).resolve().parents[2] / "tests" / "data" / "born_digital_formulas.pdf"


def test_text_layer_formulas_render_with_katex(app_url: str, page: Any, shots: Path) -> None:
    app_state.open_viewer(page, app_url)
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([PAGE])
    expect(page.locator(".wb-box").first).to_be_visible(timeout=180_000)
    rendered = page.locator('[class*="st-key-wbblk-0-"]')
    expect(rendered.locator(".katex").first).to_be_visible(timeout=30_000)
    assert rendered.locator(".katex-display").count() >= 3  # the page's display formulas
    assert rendered.locator(".katex .mfrac").count() >= 1  # the fraction is a fraction
    assert rendered.locator(".katex-error").count() == 0
    page.screenshot(path=str(shots / "viewer-formulas.png"), full_page=True)
