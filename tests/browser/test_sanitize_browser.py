"""Hostile model output, rendered: the app on the vLLM-server engine against a real
OpenAI-compatible HTTP server (tests/fakes/openai_server.py) that replays attacks, in Chromium.

Two routes to the page: Chandra-style ``<div data-bbox data-label>`` HTML (its parser turns
the HTML into Markdown) and olmOCR Markdown (its parser keeps inline HTML verbatim, so only
the UI's nh3 pass stands between the model and the DOM). For both, the viewer's rendered
Markdown and the Runs page (the viewer saves every processing as a run) must show the table
and the formula while no script runs: ``document.title`` is never set to the attackers'
value (every set is recorded by a hook installed before the app's own scripts), and no
iframe, form, style element or ``javascript:`` link from the model exists in the DOM.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from tests.browser.conftest import _serve
from tests.fakes.openai_server import FakeOpenAIServer, Reply

pytest.importorskip("playwright")
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

CHANDRA, OLMOCR = "datalab-to/chandra-ocr-2", "allenai/olmOCR-2-7B-1025"
ATTACKS = (
    "<iframe srcdoc=\"<script>parent.document.title='PWNED'</script>\"></iframe>"
    "<img src=x onerror=\"document.title='PWNED2'\">"
    '<a href="javascript:alert(1)">click me</a>'
    "<style>h2{color:green}</style>"
    '<form action=http://evil><input name=q value="evil-field"><button>Go</button></form>'
)
TABLE = "<table><tr><th>Item</th><th>Value</th></tr><tr><td>alpha</td><td>42</td></tr></table>"
CHANDRA_OUT = (
    '<div data-bbox="50 40 950 90" data-label="Section-Header"><h2>Quarterly report</h2></div>'
    f'<div data-bbox="50 100 950 200" data-label="Text"><p>Energy grows as $x^2$ '
    f"and <math>y^2</math> here.</p>{ATTACKS}</div>"
    f'<div data-bbox="50 300 950 600" data-label="Table">{TABLE}</div>'
)
OLMOCR_OUT = (
    "---\nprimary_language: en\nis_rotation_valid: true\nrotation_correction: 0\n"
    "is_table: false\nis_diagram: false\n---\n"
    f"## Quarterly report\n\nEnergy grows as $y^2$ here.\n\n{ATTACKS}\n\n{TABLE}\n"
)
HOOK = """
window.__titles = [];
const desc = Object.getOwnPropertyDescriptor(Document.prototype, 'title');
Object.defineProperty(Document.prototype, 'title', {
  configurable: true,
  get() { return desc.get.call(this); },
  set(v) { try { window.top.__titles.push(String(v)); } catch (e) {} desc.set.call(this, v); },
});
"""


def _reply(body: dict[str, Any]) -> Reply:
    return Reply(CHANDRA_OUT if body.get("model") == CHANDRA else OLMOCR_OUT)


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("store")
    with FakeOpenAIServer(respond=_reply, models=[CHANDRA, OLMOCR]) as server:
        env = {"WORKBENCH_BASE_URL": server.base_url, "WORKBENCH_STORE_DIR": str(store)}
        yield from _serve(tmp_path_factory, env)


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    image = Image.new("RGB", (800, 1000), "white")
    ImageDraw.Draw(image).rectangle((50, 300, 750, 600), outline="black", width=3)
    path = tmp_path_factory.mktemp("scan") / "report.png"
    image.save(path)
    return path


def assert_inert(page: Any) -> None:
    """Nothing the model sent is live in the DOM, and no script set the title."""
    titles = page.evaluate("window.__titles")
    assert not [t for t in titles if "PWNED" in t], titles
    assert "PWNED" not in page.title()
    assert page.locator("iframe[srcdoc]").count() == 0
    assert page.locator("form").count() == 0
    assert page.locator('input[name="q"]').count() == 0
    assert page.locator('a[href^="javascript:" i]').count() == 0
    assert page.locator("img[onerror]").count() == 0
    assert page.locator('img[src="x"]').count() == 0  # model <img> tags are dropped
    styles = page.evaluate(
        "[...document.querySelectorAll('style')].map(s => s.textContent).join(' ')"
    )
    assert "color:green" not in styles.replace(" ", "")
    # The app's own h2 headings keep their colour (a model <style> would make them green).
    green = page.evaluate(
        "[...document.querySelectorAll('h2')].filter("
        "h => getComputedStyle(h).color === 'rgb(0, 128, 0)').length"
    )
    assert green == 0


@pytest.mark.parametrize("model", [CHANDRA, OLMOCR])
def test_hostile_output_renders_inert(
    hostile_app: str, browser: Any, scan: Path, shots: Path, model: str
) -> None:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.add_init_script(HOOK)
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(hostile_app + "/viewer")
        page.get_by_text("vLLM server (OpenAI API)").click()
        sidebar = page.get_by_test_id("stSidebar")
        picker = sidebar.get_by_role("combobox", name="Model")
        expect(picker).to_have_value(CHANDRA)  # the models the fake server lists
        if model != CHANDRA:
            picker.click()
            page.get_by_role("option", name=model, exact=True).click()
            expect(picker).to_have_value(model)
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([scan])

        blocks = page.locator('[class*="st-key-wbblk-0-"]')
        table = blocks.locator("table").first
        expect(table).to_be_visible(timeout=60_000)
        assert table.locator("td").all_inner_texts()[-2:] == ["alpha", "42"]
        expect(blocks.locator(".katex").first).to_be_visible()  # the formula, typeset
        expect(blocks.filter(has_text="Quarterly report").first).to_be_visible()
        page.wait_for_timeout(1000)  # let any injected script have its chance
        assert_inert(page)
        slug = "chandra" if model == CHANDRA else "olmocr"
        page.screenshot(path=str(shots / f"hostile-{slug}-viewer.png"), full_page=True)

        # The same run, kept in the store, through the Runs page's Markdown.
        page.goto(hostile_app + "/runs")
        runs_md = page.locator(".st-key-runs_md")
        # Under load the Runs page draws the page image before its Markdown; wait as for the
        # viewer's first page (the 5 s default is a time, not the app's state).
        expect(runs_md.locator("table")).to_be_visible(timeout=60_000)
        expect(runs_md.locator("td").filter(has_text="alpha")).to_have_count(1)
        page.wait_for_timeout(1000)
        assert_inert(page)
        page.screenshot(path=str(shots / f"hostile-{slug}-runs.png"), full_page=True)
        assert dialogs == []
        assert page.get_by_test_id("stException").count() == 0
    finally:
        ctx.close()
