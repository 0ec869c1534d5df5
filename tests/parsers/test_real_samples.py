"""Real outputs of the OCR models (../shared/vlm-samples, SOURCES.md there) through the parsers.

Two checks a page, whatever the format:

* **no text lost**: every word of the model's text (markup, markers and boxes removed) is in
  the parsed regions, as many times as the model wrote it;
* **boxes on their blocks**: every region's box is the box the model wrote in front of *that*
  block's text, converted to page pixels (no box shifted onto a neighbour, none invented).

The samples are other projects' data: read from ``../shared`` beside the repository, never
copied in; the test skips where they are absent.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from workbench.models import get_spec
from workbench.parsers import ParseContext, get_parser
from workbench.parsers.dots import smart_resize
from workbench.schema import Label, Region

SAMPLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "vlm-samples"
pytestmark = pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/vlm-samples is absent")

_TAG = re.compile(r"<[^>]*>")
_IMG_ALT = re.compile(r'<img[^>]*\balt="([^"]*)"[^>]*>')  # Chandra: the figure's description
_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> Counter[str]:
    text = html.unescape(_TAG.sub(" ", _IMG_ALT.sub(r" Image: \1 ", text)))
    return Counter(w.casefold() for w in _WORD.findall(text))


def region_words(regions: list[Region]) -> Counter[str]:
    total: Counter[str] = Counter()
    for region in regions:
        total += words(region.text)
    return total


def assert_no_text_lost(expected: Counter[str], regions: list[Region]) -> None:
    missing = expected - region_words(regions)
    assert not missing, f"words lost: {sorted(missing)[:20]}"


def expected_box(box: list[float], scale_x: float, scale_y: float, w: int, h: int) -> list[float]:
    return [box[0] * w / scale_x, box[1] * h / scale_y, box[2] * w / scale_x, box[3] * h / scale_y]


def assert_box(region: Region, box: list[float]) -> None:
    assert region.bbox is not None, f"{region.id} lost its box"
    got = [region.bbox.x0, region.bbox.y0, region.bbox.x1, region.bbox.y1]
    assert got == pytest.approx(box, abs=1.0), f"{region.id} ({region.text[:40]!r})"


def _head(text: str, n: int = 4) -> list[str]:
    return list(_word_list(text))[:n]


def _word_list(text: str) -> list[str]:
    text = html.unescape(_TAG.sub(" ", _IMG_ALT.sub(r" Image: \1 ", text)))
    return [w.casefold() for w in _WORD.findall(text)]


class Blocks:
    """The parsed regions, matched to the model's blocks in reading order (two blocks may
    start with the same words: each region is used once)."""

    def __init__(self, regions: list[Region]) -> None:
        self.regions = regions
        self.used: set[str] = set()

    def starting(self, text: str) -> Region:
        head = _head(text)
        for region in self.regions:
            if region.id not in self.used and _word_list(region.text)[: len(head)] == head:
                self.used.add(region.id)
                return region
        raise AssertionError(f"no region starts with {head}")


def read(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


CHANDRA = {
    "chandra2_docling_2305.03393v1-pg9.html": (1224, 1584),
    "chandra2_docling_picture_classification.html": (1224, 1584),
    "chandra2_docling_multi_page.html": (1191, 1684),
}
_DIV = re.compile(
    r'<div data-bbox="([\d ]+)" data-label="([^"]+)">(.*?)</div>\s*(?=<div data-bbox|\Z)', re.S
)


@pytest.mark.parametrize("name", CHANDRA)
def test_chandra2_samples(name: str) -> None:
    raw = read(name)
    w, h = CHANDRA[name]
    page = get_parser(get_spec("datalab-to/chandra-ocr-2").parser)(raw, ParseContext(w, h))
    divs = _DIV.findall(raw)
    assert len(divs) == len(page.regions) >= 5
    expected: Counter[str] = Counter()
    blocks = Blocks(page.regions)
    for box, _label, body in divs:
        expected += words(body)
        if not words(body):
            continue
        region = blocks.starting(body)
        assert_box(region, expected_box([float(v) for v in box.split()], 1000, 1000, w, h))
    assert_no_text_lost(expected, page.regions)


DOTS = {"dots_docling_multi_page.json": (1191, 1684), "dots_docling_2206.01062.json": (1224, 1584)}


@pytest.mark.parametrize("name", DOTS)
def test_dots_samples(name: str) -> None:
    raw = read(name)
    w, h = DOTS[name]
    page = get_parser("dots_ocr")(raw, ParseContext(w, h))
    items = json.loads(raw.rstrip() + "]")  # both samples lack only the closing bracket
    assert not page.truncated  # complete: the model stopped after its last block
    in_h, in_w = smart_resize(h, w)
    expected: Counter[str] = Counter()
    blocks = Blocks(page.regions)
    for item in items:
        text = item.get("text") or ""
        expected += words(text)
        if words(text):
            region = blocks.starting(text)
            assert_box(region, expected_box(item["bbox"], in_w, in_h, w, h))
    assert_no_text_lost(expected, page.regions)


_DET = re.compile(r"<\|ref\|>(.*?)<\|/ref\|>\s*<\|det\|>(.*?)<\|/det\|>", re.S)


@pytest.mark.parametrize(
    "name", ["deepseek_docling_2305.03393v1-pg9.md", "deepseek_docling_2206.01062_title.md"]
)
def test_deepseek_samples(name: str) -> None:
    raw = read(name)
    w, h = 1224, 1584
    page = get_parser("deepseek_ocr")(raw, ParseContext(w, h))
    marks = list(_DET.finditer(raw))
    lead = raw[: marks[0].start()]
    blocks = Blocks(page.regions)
    expected = words(_DET.sub(" ", raw))
    assert_no_text_lost(expected, page.regions)
    if words(lead):  # text before the first marker is kept, unlocated (upstream keeps it)
        region = blocks.starting(lead)
        assert region.bbox is None
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(raw)
        text = raw[m.end() : end]
        if m.group(1) == "table_caption" and "<table" in text:
            text = text[: text.index("<table")]  # the table goes back to its empty marker
        if not words(text):
            continue
        box = json.loads(m.group(2))[0]
        assert_box(blocks.starting(text), expected_box(box, 999, 999, w, h))
    tables = [r for r in page.regions if r.label is Label.TABLE]
    for table in tables:  # the quirk: its box is the empty table marker's
        box = next(json.loads(m.group(2))[0] for m in marks if m.group(1) == "table")
        assert_box(table, expected_box(box, 999, 999, w, h))


def test_lighton3_readme_sample() -> None:
    raw = read("lighton3_readme_grounding.md")
    w, h = 1000, 1294
    page = get_parser("lighton_grounding")(raw, ParseContext(w, h))
    marker = re.compile(r"!\[(\w+)\]\((\d+),(\d+),(\d+),(\d+)\)")
    blocks = Blocks(page.regions)
    assert_no_text_lost(words(marker.sub(" ", raw)), page.regions)
    for m in marker.finditer(raw):
        line = raw[m.end() :].splitlines()[0]
        box = expected_box([float(m.group(k)) for k in (2, 3, 4, 5)], 1000, 1000, w, h)
        assert_box(blocks.starting(line), box)
    numbers = [r for r in page.regions if r.native_label == "page_number"]
    assert numbers and numbers[0].label is Label.PAGE_NUMBER


@pytest.mark.parametrize(
    "name",
    [
        "olmocr_untable.md",
        "olmocr_edgar.md",
        "olmocr2_modelcard_output.md",
        "olmocr_rotation_mock.md",
    ],
)
def test_olmocr_samples(name: str) -> None:
    raw = read(name)
    page = get_parser("olmocr")(raw, ParseContext(1000, 1294))
    body = re.sub(r"\A\s*---.*?\n---[ \t]*\n", "", raw, count=1, flags=re.S)
    assert_no_text_lost(words(body), page.regions)
    if name == "olmocr_untable.md":  # <br/> in a header cell: two words, not "areaContinent"
        text = " ".join(r.text for r in page.regions)
        assert "areaContinent" not in text and "area Continent" in text
