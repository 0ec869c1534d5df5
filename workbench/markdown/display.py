"""Model output bounded for display: drawing a page costs the same whatever the model returned.

A looping model can answer megabytes; drawn whole (a Markdown block per region, the Markdown,
the regions JSON and the raw output as code) a 5 MB answer stalled the browser tab 80-100 s.
:func:`bound_page` gives the page as it should be *shown*:

* every text (Markdown, raw output, each region's text) at most :data:`MAX_CHARS` characters,
  cut at a line end where one is near, so a table is cut between rows;
* at most :data:`MAX_REGIONS` regions, whose texts together hold at most :data:`MAX_CHARS`
  characters (a 5 MB answer of short paragraphs is 190 000 regions);
* a one-line note saying what was cut and that the downloads hold the full text.

Only the copy for display is cut: results, run folders and downloads keep every character.
Pure functions, no Streamlit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workbench.schema import PageResult, Region

#: A dense real page is tens of thousands of characters (an olmOCR answer for one table page in
#: ../shared/vlm-samples is 21,764; a CPU engine's JSON trace of a Census table page 26,038) and
#: up to a couple of hundred regions: those are shown whole; a looping answer is cut. Higher
#: bounds cost the 5 MB page's neighbours (tests/browser/test_huge_answer.py, this machine: the
#: next page 2.7 s at 20 000/150, 4.1 s at 30 000/200, 10.5 s at 100 000/600).
MAX_CHARS = 30_000
MAX_REGIONS = 200
_LINE_SLACK = 0.8  # cut at the last line end in the final 20 % of the allowance, if any


def bound_text(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` unchanged if it fits in ``limit`` characters, else its beginning ending at a
    line end where one falls in the last fifth of the allowance."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", int(limit * _LINE_SLACK), limit)
    return text[: cut if cut > 0 else limit]


@dataclass(frozen=True)
class DisplayPage:
    result: PageResult  # the page to draw (texts and regions bounded)
    note: str | None  # what was cut, or None when nothing was


def bound_regions(
    regions: Sequence[Region], max_regions: int = MAX_REGIONS, max_chars: int = MAX_CHARS
) -> list[Region]:
    """The first regions in reading order that fit ``max_regions`` and ``max_chars`` of text
    in all; the last one shown may have its text cut."""
    shown: list[Region] = []
    left = max_chars
    for region in sorted(regions, key=lambda r: r.order):
        if len(shown) >= max_regions or (left <= 0 and region.text):
            break
        text = bound_text(region.text, left) if len(region.text) > left else region.text
        shown.append(region if text is region.text else region.model_copy(update={"text": text}))
        left -= len(text)
    return shown


def bound_page(result: PageResult) -> DisplayPage:
    """The page for display, bounded as the module says, and the note to show with it."""
    markdown, raw = bound_text(result.markdown), bound_text(result.raw)
    regions = bound_regions(result.regions)
    cut_regions = len(regions) < len(result.regions) or sum(len(r.text) for r in regions) < sum(
        len(r.text) for r in result.regions
    )
    if markdown is result.markdown and raw is result.raw and not cut_regions:
        return DisplayPage(result, None)
    parts = []
    longest = max(len(result.markdown), len(result.raw))
    if markdown is not result.markdown or raw is not result.raw:
        parts.append(f"the first {MAX_CHARS:,} of {longest:,} characters")
    if cut_regions:
        parts.append(f"{len(regions):,} of {len(result.regions):,} regions")
    note = (
        f"This page's output is too long to show whole: showing {' and '.join(parts)}. "
        "The downloads have the full text."
    )
    page = result.model_copy(update={"markdown": markdown, "raw": raw, "regions": regions})
    return DisplayPage(page, note)
