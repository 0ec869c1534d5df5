"""The development set of issue 23 (benchmarks/devset) and its scorer (benchmarks/heldout.py):
the manifest's schema, the scorer's page score on hand-made inputs, and one end-to-end run on
a built page when the cache is there (``python benchmarks/devset/build.py``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from benchmarks import heldout

ROOT = Path(__file__).resolve().parents[2]
DEVSET = ROOT / "benchmarks" / "devset"
MANIFEST = json.loads((DEVSET / "manifest.json").read_text())
ISSUE_23_CLASSES = {
    "born-digital", "tables", "math", "multi-column", "headings", "scanned", "receipts",
}  # fmt: skip
SHA = re.compile(r"^[0-9a-f]{64}$")


def test_manifest_has_forty_pages_covering_every_class() -> None:
    pages = MANIFEST["pages"]
    assert len(pages) >= 40
    assert len({p["id"] for p in pages}) == len(pages)
    assert set(MANIFEST["classes"]) == ISSUE_23_CLASSES
    present = {c for p in pages for c in p["classes"]}
    assert present == ISSUE_23_CLASSES
    for cls in ISSUE_23_CLASSES:  # enough pages of each class for a mean to mean something
        assert sum(cls in p["classes"] for p in pages) >= 3, cls


def test_every_page_names_licence_source_truth_and_a_checkable_recipe() -> None:
    sources = MANIFEST["sources"]
    for src in sources.values():
        assert SHA.match(src["sha256"]) and src["licence"] and src["url"].startswith("https://")
    ids = {p["id"] for p in MANIFEST["pages"]}
    for page in MANIFEST["pages"]:
        assert page["licence"] and page["origin"], page["id"]
        assert set(page["classes"]) <= ISSUE_23_CLASSES, page["id"]
        assert (DEVSET / page["truth"]).read_text().strip(), page["id"]
        recipe = page["recipe"]
        kind = recipe["kind"]
        assert kind in {"pandoc", "latex", "sdist-pdf", "sdist-image", "raster"}, page["id"]
        if page["source"] != "ours":
            assert page["source"] in sources, page["id"]
        if kind in {"sdist-pdf", "sdist-image", "pandoc"}:
            assert SHA.match(page["member_sha256"]), page["id"]
        if kind == "latex":
            assert (DEVSET / recipe["tex"]).exists(), page["id"]
        if kind == "raster":
            assert recipe["base"] in ids and 150 <= recipe["dpi"] <= 200, page["id"]
            assert 1 <= abs(recipe["skew"]) <= 3 and isinstance(recipe["seed"], int), page["id"]
            assert "scanned" in page["classes"], page["id"]
        if "built_sha256" in page:
            assert SHA.match(page["built_sha256"]), page["id"]


def test_no_page_comes_from_the_tuned_on_test_data() -> None:
    tuned = {p.name for p in (ROOT / "tests" / "data").glob("*.pdf")}
    for page in MANIFEST["pages"]:
        assert not any(name in page["origin"] for name in tuned), page["id"]
        assert "tests/data" not in page["origin"], page["id"]


TRUTH = "# Results\n\nThe cars were tested.\n\n| Car | mpg |\n|---|---|\n| Fiat 128 | 32.4 |\n"
PAGE = {"id": "tiny", "classes": ["born-digital", "tables", "headings"]}


def test_page_score_is_100_for_the_truth_itself_and_falls_for_flat_text() -> None:
    same = heldout.score_page(PAGE, "x", heldout.Output(TRUTH, 0.1), TRUTH)
    assert same.score == pytest.approx(100.0)
    assert same.teds == 1.0 and same.headings == [1, 1, 1] and same.control == 0
    flat = heldout.score_page(
        PAGE,
        "x",
        heldout.Output("Results\nThe cars were tested.\nCar mpg\nFiat 128 32.4", 0.1),
        TRUTH,
    )
    assert flat.similarity == pytest.approx(1.0)  # every character is there...
    assert flat.teds == 0.0 and flat.heading_f1 == 0.0  # ...but no table and no heading
    assert flat.score < 65


def test_a_page_whose_words_all_repeat_is_not_scored_zero_for_order() -> None:
    """Lorem ipsum repeats every word: no order can be read from it, and the exact text once
    scored 66.7 (order counted 0). A text whose words are out of order still loses order."""
    lorem = "Lorem ipsum dolor sit amet. " * 4
    page = {"id": "lorem", "classes": ["born-digital"]}
    same = heldout.score_page(page, "x", heldout.Output(lorem, 0.1), lorem)
    assert same.order is None and same.score == pytest.approx(100.0)
    text = "alpha beta gamma delta epsilon zeta"
    turned = heldout.score_page(page, "x", heldout.Output(" ".join(text.split()[::-1]), 0), text)
    assert turned.order == 0.0 and turned.score < 100


def test_page_score_counts_control_characters_and_folds_quotes() -> None:
    s = heldout.score_page(PAGE, "x", heldout.Output(TRUTH.replace("were", "\x00were"), 0.1), TRUTH)
    assert s.control == 1
    curly = heldout.score_page(
        {"id": "q", "classes": ["born-digital"]},
        "x",
        heldout.Output("it\u2019s \u201cok\u201d", 0),
        'it\'s "ok"',
    )
    assert curly.similarity == 1.0


def test_summary_tables_have_every_engine_and_class() -> None:
    scores = [
        heldout.score_page(PAGE, e, heldout.Output(TRUTH if e == "workbench" else "", 0.5), TRUTH)
        for e in ("workbench", "textlayer")
    ]
    text = heldout.summary(
        scores, ["workbench", "textlayer"], ["born-digital", "tables", "headings"]
    )
    assert "| all pages, mean | 100.0 (1) | 0.0 (1) |" in text
    assert "| table structure (TEDS) | 100.0 | 0.0 |" in text
    assert "| tiny | born-digital, tables, headings | 100.0 | 0.0 |" in text


CACHED = DEVSET / "cache" / "pages" / "receipt-hardware.pdf"


@pytest.mark.skipif(
    not CACHED.exists(), reason="devset cache not built (benchmarks/devset/build.py)"
)
def test_scorer_runs_end_to_end_on_one_built_page(tmp_path, monkeypatch, capsys) -> None:
    out = tmp_path / "scores.json"
    argv = ["heldout.py", "--ids", "receipt-hardware", "--only", "textlayer", "--json", str(out)]
    monkeypatch.setattr(sys, "argv", argv)
    assert heldout.main() == 0
    printed = capsys.readouterr().out
    assert "| receipts |" in printed and "receipt-hardware" in printed
    [row] = json.loads(out.read_text())["scores"]
    assert (
        row["engine"] == "textlayer" and row["similarity"] > 0.95
    )  # born-digital: the layer is right
    capsys.readouterr()
    monkeypatch.setattr(
        sys, "argv", ["heldout.py", "--ids", "receipt-hardware", "--from-json", str(out)]
    )
    assert heldout.main() == 0  # the saved output re-scored, no engine run
    assert capsys.readouterr().out == printed


def _build_module():
    """benchmarks/devset/build.py, loaded by path (a pip package is also called ``build``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("devset_build", DEVSET / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scans_and_taken_pages_are_the_same_bytes_each_build() -> None:
    from PIL import Image, ImageDraw

    build = _build_module()
    page = Image.new("L", (400, 300), 255)
    ImageDraw.Draw(page).text((40, 40), "Same pixels, same bytes", fill=0)
    pdf = build.image_pdf(page, 100)
    assert build.one_page(pdf, 1) == build.one_page(pdf, 1)  # PDFium's fresh /ID zeroed
    scan = build.rasterise(pdf, 150, 2.0, 0.003, seed=7)
    assert scan == build.rasterise(pdf, 150, 2.0, 0.003, seed=7)
    assert scan != build.rasterise(pdf, 150, 2.0, 0.003, seed=8)
    assert build.page_count(scan) == 1
