"""Viewer polish (issue 13), in Chromium at 1400×1000 and 1100×900 on a real PDF page read by
the app's engine: the page fills its column at "Fit width" and the window at "Fit height";
"All label tags" never puts a tag on a box or on another tag; the stats line is one line;
a running footer selected while headers & footers are hidden shows its text, marked hidden,
level with its box. Screenshots are saved (``shots``) for a person to look at.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from tests.browser.conftest import _serve
from tests.fakes.fake_engine import FakeEngine
from workbench.engines.base import EngineOutput, PageRequest
from workbench.ui import state

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
CENSUS = DATA / "census_12s0324.pdf"  # one page: title, table, notes, a running footer
OCR_TIMEOUT = 180_000  # the first page includes loading the CPU engine
SIZES = [(1400, 1000), (1100, 900)]

_RECTS = """(ov) => {
  const r = (e) => { const b = e.getBoundingClientRect();
    return {x: b.left, y: b.top, w: b.width, h: b.height, text: e.textContent}; };
  return {
    boxes: Array.from(ov.querySelectorAll('.wb-box')).map(r),
    tags: Array.from(ov.querySelectorAll('.wb-tag.placed')).map(r),
    all: ov.querySelectorAll('.wb-tag').length,
  };
}"""


def _hit(a: dict[str, float], b: dict[str, float], slack: float = 0.5) -> bool:
    return (
        a["x"] + slack < b["x"] + b["w"]
        and b["x"] + slack < a["x"] + a["w"]
        and a["y"] + slack < b["y"] + b["h"]
        and b["y"] + slack < a["y"] + a["h"]
    )


def _open_census(page: Any, app_url: str, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(app_url + "/viewer")
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_be_visible()
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([CENSUS])
    expect(page.locator(".wb-box").first).to_be_visible(timeout=OCR_TIMEOUT)
    expect(page.locator(".wb-ov img")).to_have_js_property("complete", True)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_fit_width_fills_the_column_and_fit_height_the_window(
    app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    _open_census(page, app_url, size)
    overlay = page.get_by_test_id("wb-overlay").first
    expect(overlay).to_have_attribute("data-fit", "width")
    column = page.locator("[data-testid='stColumn']", has=overlay).last
    content = page.get_by_test_id("stMainBlockContainer").evaluate(
        "(e) => { const s = getComputedStyle(e);"
        " return e.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight); }"
    )
    ov_box, col_box = overlay.bounding_box(), column.bounding_box()
    # The page is as wide as its column (border aside), and that column is the wider one.
    assert ov_box["width"] >= col_box["width"] - 4, (ov_box, col_box)
    assert ov_box["width"] >= 0.55 * content, (ov_box, content)
    page.screenshot(path=str(shots / f"polish-viewer-fit-width-{size[0]}.png"))

    page.get_by_role("radio", name="Fit height").click()
    expect(overlay).to_have_attribute("data-fit", "height")
    for _ in range(50):  # the new width applies once the component has redrawn
        ov_box = overlay.bounding_box()
        if ov_box["height"] < size[1]:
            break
        page.wait_for_timeout(200)
    assert ov_box["height"] <= size[1], ov_box  # the whole page fits in the window
    assert ov_box["width"] < col_box["width"]  # ... so it is narrower than the column
    page.screenshot(path=str(shots / f"polish-viewer-fit-height-{size[0]}.png"))
    assert page.js_errors == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_all_label_tags_cover_no_box_and_no_tag(
    app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    _open_census(page, app_url, size)
    page.get_by_text("All label tags").click()
    overlay = page.get_by_test_id("wb-overlay").first
    expect(overlay.locator(".wb-tag.placed").first).to_be_visible()
    found = overlay.evaluate(_RECTS)
    tags, boxes = found["tags"], found["boxes"]
    assert len(tags) >= found["all"] // 2, found  # most tags found a free spot
    for i, tag in enumerate(tags):
        for box in boxes:
            assert not _hit(tag, box), (tag, box)
        for other in tags[i + 1 :]:
            assert not _hit(tag, other), (tag, other)
    # The tags that found no free spot are counted under the page.
    left = found["all"] - len(tags)
    note = page.locator(".wb-tagnote").first
    if left:
        expect(note).to_have_text(f"{left} tag(s) on hover only (no free spot)")
    else:
        expect(note).to_have_text("")
    page.screenshot(path=str(shots / f"polish-viewer-all-tags-{size[0]}.png"))
    assert page.js_errors == []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_stats_line_is_one_line_with_confidence(
    app_url: str, page: Any, size: tuple[int, int]
) -> None:
    _open_census(page, app_url, size)
    stats = page.get_by_test_id("wb-stats")
    expect(stats).to_contain_text("census_12s0324.pdf")
    expect(stats).to_contain_text("page 1 of 1")
    heights = stats.evaluate(
        "(el) => [el.getBoundingClientRect().height,"
        " parseFloat(getComputedStyle(el).lineHeight), el.scrollWidth, el.clientWidth]"
    )
    assert heights[0] <= 1.5 * heights[1], heights  # one line, never two
    # The engine rates its text: the page shows its confidence, as a badge.
    expect(stats.locator(".b", has_text=re.compile(r"confidence \d+%"))).to_have_count(1)
    # A short file name is never cut: the engine part gives way first.
    assert stats.locator(".f").evaluate("(e) => e.scrollWidth <= e.clientWidth")
    if size[0] >= 1400:  # at 1400 px nothing needs shortening
        assert stats.locator(".e").evaluate("(e) => e.scrollWidth <= e.clientWidth")
    # The full engine and model are in the tooltip of the shortened engine part.
    assert "·" in (stats.locator(".e").get_attribute("title") or "")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_selected_hidden_footer_shows_its_text_marked_hidden(
    app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    _open_census(page, app_url, size)
    furniture = page.locator(f".st-key-{state.VIEWER_FURNITURE.key} input")
    expect(furniture).not_to_be_checked()  # hidden by default
    footer = page.locator('.wb-box[data-label="footer"]').first
    rid = footer.get_attribute("data-region")
    block = page.locator(f".st-key-wbblk-0-{rid}")
    expect(block).to_have_count(0)  # not in the Markdown while hidden...
    footer.click()
    expect(block).to_be_visible()  # ... until it is selected
    expect(block).to_contain_text("hidden")
    expect(block).to_contain_text("headers & footers are off")
    text = (footer.get_attribute("title") or "").splitlines()[-1]  # the box's own text
    assert text.strip(), footer.get_attribute("title")
    expect(block).to_contain_text(text[:20].strip())
    # The Markdown column scrolled so the footer's text is level with its box (or as near
    # as its scroll box allows), and in view.
    page.wait_for_timeout(600)  # smooth scrolling settles
    box_top = footer.bounding_box()["y"]
    block_box = block.bounding_box()
    assert block_box["y"] + block_box["height"] > 0 and block_box["y"] < size[1]
    assert abs(block_box["y"] - box_top) < max(200, size[1] // 4), (block_box, box_top)
    page.screenshot(path=str(shots / f"polish-viewer-hidden-footer-{size[0]}.png"))
    assert page.js_errors == []


class LowConfidenceEngine(FakeEngine):
    """The fake layout, with the text confidences an engine gives a page it read badly:
    the left column 31 %, the rest 45 % (page mean under the 60 % threshold)."""

    name = "fake-unsure"

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for out in super().run(requests):
            if out.regions is not None:
                out.regions = [
                    r.model_copy(update={"confidence": 0.31 if r.text.startswith("Left") else 0.45})
                    for r in out.regions
                ]
            yield out


def low_confidence_engine(choice: Any = None) -> LowConfidenceEngine:
    """The app's engine hook (``WORKBENCH_ENGINE_FACTORY``) for :func:`unsure_app_url`."""
    return LowConfidenceEngine()


@pytest.fixture(scope="module")
def unsure_app_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    hook = f"{__name__}:low_confidence_engine"
    yield from _serve(tmp_path_factory, {"WORKBENCH_ENGINE_FACTORY": hook})


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_low_confidence_page_and_regions_are_flagged(
    unsure_app_url: str, page: Any, shots: Path, size: tuple[int, int]
) -> None:
    _open_census(page, unsure_app_url, size)
    stats = page.get_by_test_id("wb-stats")
    badge = stats.locator(".b.bad", has_text=re.compile(r"low confidence \d+%"))
    expect(badge).to_have_count(1)
    # Every rated box under the threshold is marked (dashed, "?"), with its confidence in
    # the tooltip, and the legend says what the mark means.
    unsure = page.locator(".wb-box.lowconf")
    assert unsure.count() == page.locator(".wb-box").count() > 0
    expect(unsure.first).to_have_css("border-top-style", "dashed")
    tips = [unsure.nth(i).get_attribute("title") or "" for i in range(unsure.count())]
    assert any("text confidence 31% — LOW" in t for t in tips), tips
    expect(page.locator(".wb-legend").first).to_contain_text("low text confidence")
    page.screenshot(path=str(shots / f"polish-viewer-low-confidence-{size[0]}.png"))
    assert page.js_errors == []
