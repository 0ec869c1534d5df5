"""The Compare page in AppTest: two runs of one document, synchronised, measured."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs_seed import DOC, seed
from workbench.evaluate.compare import align_regions
from workbench.evaluate.metrics import plain_text
from workbench.runs.store import RunStore
from workbench.ui.compare.metrics import diff_block
from workbench.ui.overlay.element import selection_key

ROOT = Path(__file__).resolve().parents[3]


def compare_app(store: Path, a: str | None = None, b: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "compare.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(store)
    at.session_state["engine_override"] = FakeEngine()
    if a:
        at.session_state["compare_run_a"] = a
    if b:
        at.session_state["compare_run_b"] = b
    return at


def overlays(at: AppTest) -> list[dict]:
    """The payloads of the page overlays drawn (components-v2 elements: JSON data)."""
    return [
        json.loads(el.proto.json)
        for el in at.get("bidi_component")
        if el.proto.component_name == "workbench_page_overlay"
    ]


def image_captions(at: AppTest) -> list[str]:
    """Each overlay's image description: "<side>: <document> — page <n>"."""
    return [o["alt"] for o in overlays(at)]


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, str, str]:
    a, b = seed(tmp_path)
    assert b is not None
    return tmp_path, a, b


def test_two_runs_side_by_side_with_disagreements_and_metrics(
    seeded: tuple[Path, str, str],
) -> None:
    store, a, b = seeded
    at = compare_app(store, a, b).run()
    assert not at.exception
    assert image_captions(at) == [f"A: {DOC} — page 1", f"B: {DOC} — page 1"]
    # Both sides are the interactive overlay, and the disagreements are outlined on it:
    # dashed for a region on one side only, solid for a region with another label.
    side_a, side_b = overlays(at)
    marked_a = {r["label"]: r["mark"] for r in side_a["regions"] if r["mark"]}
    marked_b = {r["label"]: r["mark"] for r in side_b["regions"] if r["mark"]}
    assert marked_a["formula"]["style"] == "dashed" and marked_a["formula"]["note"] == "only in A"
    assert marked_a["table"]["style"] == "solid" and set(marked_a) == {"formula", "table"}
    assert set(marked_b) == {"figure"} and marked_b["figure"]["style"] == "solid"
    assert marked_a["formula"]["color"] != marked_a["table"]["color"]
    assert sum(r["mark"] is None for r in side_a["regions"]) == 5
    # B drops the formula and calls the table a figure: both are listed as disagreements.
    dis = at.dataframe[0].value
    assert set(dis["what"]) == {"only in A", "label differs"}
    assert "r5 formula" in set(dis["A"]) and "r4 figure" in set(dis["B"])
    iou = dict(zip(dis["what"], dis["IoU"], strict=True))
    assert iou["only in A"] == "—" and re.fullmatch(r"[01]\.\d\d", iou["label differs"])
    assert any("Disagreements on page 1: 2" in h.value for h in at.subheader)
    # The per-page metrics table has both pages, both sides' seconds and a similarity < 1.
    per_page = next(d.value for d in at.dataframe if "similarity" in d.value.columns)
    assert list(per_page["page"]) == [1, 2]
    assert per_page["A regions"].tolist() == ["7", "7"]
    assert per_page["B regions"].tolist() == ["6", "6"]
    # Shown as a reader reads them: a percentage, "—" for none (never 0.97523… or "None").
    sims = [float(v.rstrip("%")) for v in per_page["similarity"]]
    assert all(50 < v < 100 for v in sims) and all(v.endswith("%") for v in per_page["similarity"])
    assert per_page["A CER"].tolist() == ["—", "—"]  # no reference yet
    assert all(re.fullmatch(r"\d+\.\d\d", v) for v in per_page["A s/page"])
    doc_table = next(d.value for d in at.dataframe if "metric" in d.value.columns)
    cells = [str(v) for v in doc_table[["A", "A↔B", "B"]].to_numpy().ravel()]
    assert "None" not in cells and not [c for c in cells if re.fullmatch(r"\d\.\d{5,}", c)]


def test_next_on_one_side_moves_both(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    at = compare_app(store, a, b).run()
    at.button(key="cmp_next_A").click().run()
    assert not at.exception
    assert at.session_state["cmp_page"] == 2
    assert image_captions(at) == [f"A: {DOC} — page 2", f"B: {DOC} — page 2"]
    assert any("Text diff, page 2" in h.value for h in at.subheader)
    at.button(key="cmp_prev_B").click().run()
    assert image_captions(at) == [f"A: {DOC} — page 1", f"B: {DOC} — page 1"]
    at.selectbox(key="cmp_page").set_value(2).run()
    assert image_captions(at) == [f"A: {DOC} — page 2", f"B: {DOC} — page 2"]


def test_pasted_reference_gives_cer(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    at = compare_app(store, a, b).run()
    truth = plain_text(RunStore(store).open(a).page(DOC, 1).markdown)  # A is right by design
    assert "Left column of page 1." in truth
    at.text_area(key=f"cmp_ref_{DOC}_1").set_value(truth).run()
    assert not at.exception
    per_page = next(d.value for d in at.dataframe if "similarity" in d.value.columns)
    first = per_page.set_index("page").loc[1]
    assert first["A CER"] == "0.000" and float(first["B CER"]) > 0  # B: "Leftmost", no formula
    assert per_page.set_index("page").loc[2, "A CER"] == "—"


def test_start_missing_run_b(tmp_path: Path) -> None:
    a, _ = seed(tmp_path, both=False)
    at = compare_app(tmp_path, a).run()
    assert any("No other run holds" in i.value for i in at.info)
    at.button(key="cmp_start_b").click().run()
    assert not at.exception
    runs = RunStore(tmp_path).list()
    assert len(runs) == 2
    new = next(r for r in runs if r.id != a)
    assert new.pages == 2 and new.status == "done"
    assert at.session_state["compare_run_b"] == new.id
    assert image_captions(at) == [f"A: {DOC} — page 1", f"B: {DOC} — page 1"]
    # Same engine on the same stored pixels: full agreement.
    assert any("Disagreements on page 1: 0" in h.value for h in at.subheader)


def test_diff_escapes_model_text() -> None:
    block, counts = diff_block(
        "safe <script>alert(1)</script> words", 'safe <img src=x onerror="alert(2)"> words'
    )
    body = block.split('<div class="wb-diff">', 1)[1]
    assert "<script" not in body and "<img" not in body  # model text stays text
    assert "&lt;script&gt;" in body and "&lt;img src=x onerror" in body
    assert "<del>" in body and "<ins>" in body
    assert counts["equal"] == 2


def test_alignment_of_seeded_runs(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    s = RunStore(store)
    left, right = s.open(a).page(DOC, 1), s.open(b).page(DOC, 1)
    al = align_regions(left, right)
    assert [r.label.value for r in al.left_only] == ["formula"]
    assert [(m.left.label.value, m.right.label.value) for m in al.label_mismatches] == [
        ("table", "figure")
    ]


def test_selection_labels_and_zoom_follow_on_both_sides(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    at = compare_app(store, a, b).run()
    side_a, side_b = overlays(at)
    table = next(r["id"] for r in side_a["regions"] if r["label"] == "table")
    figure = next(r["id"] for r in side_b["regions"] if r["label"] == "figure")
    # A click on A's table (the overlay stores the pick) selects B's matched figure too.
    at.session_state[selection_key("cmp_ov_A")] = table
    at.run()
    assert [o["selected"] for o in overlays(at)] == [table, figure]
    # And the other way round: clearing on B clears A.
    at.session_state[selection_key("cmp_ov_B")] = None
    at.run()
    assert [o["selected"] for o in overlays(at)] == [None, None]
    # One label switch and one zoom drive both sides.
    labels = next(w for w in at.get("button_group") if str(w.key).startswith("cmp_labels_"))
    labels.set_value([v for v in labels.value if v != "text"]).run()
    zoom = next(w for w in at.get("button_group") if w.key == "cmp_zoom")
    zoom.set_value("2×").run()
    assert not at.exception
    for o in overlays(at):
        assert "text" not in o["visible"] and "header" in o["visible"]
        assert o["zoom"] == 2.0
    assert [o["selected"] for o in overlays(at)] == [None, None]


class BoxlessEngine(FakeEngine):
    """The fake layout's text without boxes: a model that gives Markdown only."""

    name = "fake-md"
    model = "markdown-only"

    def run(self, requests):  # type: ignore[no-untyped-def]
        for out in super().run(requests):
            if out.regions is not None:
                out.regions = [r.model_copy(update={"bbox": None}) for r in out.regions]
            yield out


def test_a_model_without_boxes_is_said_so_not_scored(tmp_path: Path) -> None:
    """Issue 24.4: "layout agreement 0 %, 5 disagreements" for a model with no boxes."""
    from tests.ui.runs_seed import make_run

    a, _ = seed(tmp_path, both=False)
    b = make_run(RunStore(tmp_path), BoxlessEngine(), "memo md")
    at = compare_app(tmp_path, a, b).run()
    assert not at.exception
    between = " ".join(h.body for h in at.get("html") if "wb-between" in h.body)
    assert "B has no layout boxes: layout not compared" in between, between
    assert "layout agreement" not in between
    assert not [h.value for h in at.subheader if h.value.startswith("Disagreements")]
    assert any("no layout to compare" in i.value for i in at.info)
