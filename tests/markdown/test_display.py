"""markdown/display: whatever the model answers, the page drawn is bounded; the result is not."""

from __future__ import annotations

import functools
import json

import pytest

from workbench.markdown.assemble import assemble_page
from workbench.markdown.display import MAX_CHARS, MAX_REGIONS, bound_page, bound_text
from workbench.parsers import ParseContext, get_parser
from workbench.schema import Label, PageResult, Region

HUGE = {
    "one giant table": "| cell | cell |\n" * 330_000,  # about 5 MB, one table region
    "many paragraphs": "A paragraph of text here.\n\n" * 60_000,  # 1.6 MB, 60 000 regions
}


@functools.cache
def _page(raw: str) -> PageResult:
    regions = get_parser("lighton_plain")(raw, ParseContext(1000, 1400)).regions
    return PageResult(
        document="d.pdf",
        page=1,
        width=1000,
        height=1400,
        engine="vllm-server",
        model="m",
        raw=raw,
        markdown=assemble_page(regions, 1),
        regions=regions,
    )


@pytest.mark.parametrize("shape", list(HUGE))
def test_a_5_mb_answer_is_bounded_for_display_and_kept_whole(shape: str) -> None:
    result = _page(HUGE[shape])
    before = result.model_dump_json()
    shown = bound_page(result)
    page = shown.result
    assert len(page.raw) <= MAX_CHARS and len(page.markdown) <= MAX_CHARS
    assert len(page.regions) <= MAX_REGIONS
    assert sum(len(r.text) for r in page.regions) <= MAX_CHARS
    assert len(json.dumps(page.model_dump(mode="json"))) < 4 * MAX_CHARS + 200 * MAX_REGIONS
    assert shown.note is not None and "The downloads have the full text." in shown.note
    assert f"of {len(result.raw):,} characters" in shown.note
    assert result.model_dump_json() == before  # the stored result keeps every character
    # Cut between table rows / paragraphs, never inside one.
    assert page.raw.endswith("|") or page.raw.endswith("\n") or page.raw.endswith(".")


def test_a_normal_page_is_shown_as_is() -> None:
    result = _page("# Title\n\nSome text.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    shown = bound_page(result)
    assert shown.result is result and shown.note is None


def test_many_regions_note_counts_them() -> None:
    result = _page(HUGE["many paragraphs"])
    note = bound_page(result).note or ""
    assert f"{MAX_REGIONS:,} of {len(result.regions):,} regions" in note


def test_bound_text_cuts_at_a_line_end_near_the_limit() -> None:
    text = "x" * 90 + "\n" + "y" * 50
    assert bound_text(text, 100) == "x" * 90
    assert bound_text("z" * 300, 100) == "z" * 100  # no line end near: cut at the limit
    assert bound_text("short", 100) == "short"


def test_a_dense_real_page_is_shown_whole() -> None:
    """Real answers for one dense page (tens of thousands of characters, up to two hundred
    regions) are not cut: only runaway output is."""
    text = "| a | b |\n" * 2_500  # 25,000 characters, as a dense table page
    regions = [
        Region(id=f"r{i}", order=i, label=Label.TEXT, native_label="text", text=f"line {i} " * 8)
        for i in range(180)
    ]
    result = PageResult(
        document="d.pdf", page=1, width=1000, height=1400, engine="e", model="m",
        raw=text, markdown=text, regions=regions,
    )  # fmt: skip
    shown = bound_page(result)
    assert shown.note is None and shown.result is result
