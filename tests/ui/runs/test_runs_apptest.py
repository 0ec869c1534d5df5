"""The Runs page in AppTest, plus the pure pieces behind it (editor round trip, batch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.runs_seed import DOC, PAGE_SIZE, document_bytes, seed
from workbench.engines.factory import CpuOptions
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.batch import progress_text, run_batch
from workbench.pipeline.request import RunRequest
from workbench.runs.store import RunStore
from workbench.schema import BBox, Label, Region, RunStatus
from workbench.settings import Settings
from workbench.ui.editor import canvas_boxes, regions_from_boxes
from workbench.ui.engines import EngineChoice
from workbench.ui.exports_view import builders

ROOT = Path(__file__).resolve().parents[3]


def runs_app(store: Path) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "runs.py"), default_timeout=60)
    at.session_state["runs_store_dir"] = str(store)
    at.session_state["engine_override"] = FakeEngine()
    return at


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, str, str]:
    a, b = seed(tmp_path)
    assert b is not None
    return tmp_path, a, b


def test_lists_runs_and_shows_viewer(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    at = runs_app(store).run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["run"]) == {a, b}
    row = table.set_index("run").loc[a]
    assert (row["engine · model"], row["pages"]) == ("fake · fake-layout-1", 2)
    assert list(row["status"]) == ["done"] and row["document"] == DOC  # a list: a badge
    # The viewer shows the picked run's page 1 and its Markdown (sanitised, not raw HTML).
    captions = " ".join(c.value for c in at.caption)
    assert f"{DOC} · page 1 · 800×1000 page_px" in captions
    assert any("Page 1 title" in m.value for m in at.markdown)
    # Run B calls the table a figure: its placeholder link becomes text, not a broken image.
    at.selectbox(key="runs_pick").set_value(b).run()
    page_md = next(m.value for m in at.markdown if "Page 1 title" in m.value)
    assert "*[Figure r4]*" in page_md and "](page-0001-r4.png)" not in page_md


def test_page_navigation_and_run_switch(seeded: tuple[Path, str, str]) -> None:
    store, a, _ = seeded
    at = runs_app(store).run()
    at.selectbox(key="runs_pick").set_value(a).run()
    at.number_input(key="open_page").set_value(2).run()
    assert not at.exception
    assert at.session_state["open_run_id"] == a
    assert any("page 2 · 800×1000" in c.value for c in at.caption)
    assert any("Page 2 title" in m.value for m in at.markdown)


def test_delete_asks_then_removes(seeded: tuple[Path, str, str]) -> None:
    store, a, b = seeded
    at = runs_app(store).run()
    at.selectbox(key="runs_pick").set_value(a).run()
    at.button(key="runs_delete").click().run()
    assert any("cannot be undone" in w.value for w in at.warning)
    assert (store / a).exists()  # nothing deleted before the confirmation
    at.button(key="runs_delete_yes").click().run()
    assert not at.exception
    assert not (store / a).exists()
    assert [r.id for r in RunStore(store).list()] == [b]
    assert set(at.dataframe[0].value["run"]) == {b}


def test_batch_of_uploads_makes_one_run(tmp_path: Path) -> None:
    at = runs_app(tmp_path).run()
    assert any("No runs" in i.value for i in at.info)
    at.file_uploader(key="batch_files").set_value(
        [
            ("one.tiff", document_bytes(2), "image/tiff"),
            ("two.tiff", document_bytes(1), "image/tiff"),
            ("junk.pdf", b"not a pdf at all", "application/pdf"),
        ]
    ).run()
    at.text_input(key="batch_name").set_value("nightly").run()
    at.button(key="batch_start").click().run()
    at.session_state["batch_job"].thread.join(timeout=60)  # the batch runs in its thread
    at.run()
    assert not at.exception
    runs = RunStore(tmp_path).list()
    assert len(runs) == 1
    run = runs[0]
    # partial: one input could not be read (the one status rule of pipeline/runner.py)
    assert (run.pages, run.status, run.engine) == (3, "partial", "fake")
    assert sorted(run.documents) == ["one.tiff", "two.tiff"]
    assert "junk.pdf" in at.session_state["batch_last"].skipped[0]
    assert set(at.dataframe[0].value["run"]) == {run.id}


def test_batch_records_the_dpi_of_the_sidebars_cpu_settings(tmp_path: Path) -> None:
    # the sidebar's CPU engine settings, as the sidebar keeps them (issue 32: Batch picked its
    # DPI by the model's rule and never saw this one; the Viewer and the CLI did)
    at = runs_app(tmp_path)
    at.session_state["engine_choice"] = EngineChoice("cpu", CpuOptions(dpi=150))
    at.run()
    at.file_uploader(key="batch_files").set_value(
        [("one.tiff", document_bytes(1), "image/tiff")]
    ).run()
    at.button(key="batch_start").click().run()
    at.session_state["batch_job"].thread.join(timeout=60)
    at.run()
    assert not at.exception
    (run,) = RunStore(tmp_path).list()
    assert RunStore(tmp_path).open(run.id).info.settings["dpi"] == 150.0


def test_batch_from_folder_cancelled_keeps_pages(tmp_path: Path) -> None:
    # two different documents (identical bytes would be one document: known by content)
    files = [("a.tiff", document_bytes(2)), ("b.tiff", document_bytes(3))]
    engine = FakeEngine()
    store = RunStore(tmp_path / "store")
    seen: list[str] = []
    out = run_batch(
        files,
        engine,
        CPU_SPEC,
        store,
        "cut",
        RunRequest(),
        progress=lambda d, t, s: seen.append(progress_text(d, t, s)),
        cancelled=lambda: engine.calls >= 3,
    )
    assert (out.done, out.total, out.status) == (3, 5, "cancelled")
    reader = store.open(out.run_id)
    assert reader.info.status is RunStatus.CANCELLED
    assert reader.page_numbers("a.tiff") == [1, 2] and reader.page_numbers("b.tiff") == [1]
    assert seen[0].startswith("1/5 pages ·") and "pages/s" in seen[0]


def test_canvas_round_trip_is_exact_and_edits_map_back() -> None:
    start = [
        Region(
            id="r0", label=Label.TITLE, native_label="t", bbox=BBox(x0=80, y0=80, x1=720, y1=140)
        ),
        Region(
            id="r1", label=Label.TABLE, native_label="t", bbox=BBox(x0=80, y0=650, x1=720, y1=850)
        ),
        Region(id="r2", label=Label.TEXT, native_label="t", bbox=None, text="floating"),
    ]
    width = 437  # an awkward canvas width: scale 0.54625
    scale = width / PAGE_SIZE[0]
    height = round(PAGE_SIZE[1] * scale)
    fx, fy = PAGE_SIZE[0] / width, PAGE_SIZE[1] / height
    boxes = canvas_boxes(start, 1 / fx, 1 / fy)
    assert [b["label"] for b in boxes] == ["#1 title", "#2 table"]
    same = regions_from_boxes(start, boxes, fx, fy, PAGE_SIZE)
    assert same == start  # untouched boxes come back identical, unlocated kept
    moved = dict(boxes[1], left=boxes[1]["left"] + 50 / fx, label="#2 figure")
    drawn = {"label": "signature", "left": 100.0, "top": 300.0, "width": 50.0, "height": 20.0}
    edited = regions_from_boxes(start, [moved, drawn], fx, fy, PAGE_SIZE)  # title deleted
    assert [r.id for r in edited] == ["r1", "u1", "r2"]
    assert edited[0].label is Label.FIGURE and edited[0].text == start[1].text
    assert edited[0].bbox is not None and edited[0].bbox.as_list() == pytest.approx(
        [130, 650, 770, 850], abs=0.1
    )
    new = edited[1]
    assert new.label is Label.SIGNATURE and new.bbox is not None
    assert new.bbox.as_list() == pytest.approx([100 * fx, 300 * fy, 150 * fx, 320 * fy], abs=0.06)


def test_corrections_layer_exports(seeded: tuple[Path, str, str]) -> None:
    store_dir, a, _ = seeded
    store = RunStore(store_dir)
    reader = store.open(a)
    fixed = [
        *reader.page(DOC, 1).regions[:2],
        Region(
            id="u1",
            label=Label.SIGNATURE,
            native_label="hand",
            bbox=BBox(x0=500, y0=900, x1=700, y1=960),
        ),
    ]
    reader.save_corrections(DOC, 1, fixed)
    coco = json.loads(builders(reader, "This page", DOC, 1, False)["COCO"][0]())
    assert coco["images"][0]["regions_source"] == "corrected"
    assert [500, 900, 200, 60] in [ann["bbox"] for ann in coco["annotations"]]
    model = json.loads(builders(reader, "This page", DOC, 1, True)["COCO"][0]())
    assert model["images"][0]["regions_source"] == "model"
    both = json.loads(builders(reader, "Whole run", None, None, False)["JSON"][0]())
    assert len(both["pages"]) == 2 and both["corrections"][0]["regions"][2]["id"] == "u1"
    assert "page_px" in both["info"]["coordinate_space"]
    assert len(reader.page(DOC, 1).regions) == 7  # the model's own output is untouched


def test_a_cancelled_run_says_how_to_resume(tmp_path: Path) -> None:
    """Issue 24.1: the Runs page offers a way on for a stopped Viewer run."""
    from workbench.documents import open_document
    from workbench.pipeline.process import process
    from workbench.schema import RunInfo

    store = RunStore(tmp_path)
    doc = open_document(DOC, document_bytes(3), Settings())
    info = RunInfo(
        id="", name="memo", engine="fake", model="fake-layout-1",
        documents=[doc.info()], settings={"source": "viewer"},
    )  # fmt: skip
    writer = store.create(info)
    for item in process(FakeEngine(), CPU_SPEC, list(doc.pages())[:2]):
        writer.write_page(item.result, item.image)
    writer.finish(RunStatus.CANCELLED)
    at = runs_app(tmp_path).run()
    assert not at.exception
    [note] = [i.value for i in at.info if "Stopped with" in i.value]
    assert "2 of 3 page(s) saved" in note and f"drop {DOC} in the Viewer" in note
    assert at.button(key="runs_resume")


def test_a_stopped_run_does_not_count_its_cancelled_page_as_saved(tmp_path: Path) -> None:
    """A walkthrough: Stop cut page 2 short (written "error: cancelled by the user") and the
    Runs page said "Stopped with 1 of 2 page(s) saved" while no page was read."""
    from workbench.documents import open_document
    from workbench.pipeline.process import process
    from workbench.schema import PageStatus, RunInfo

    store = RunStore(tmp_path)
    doc = open_document(DOC, document_bytes(3), Settings())
    info = RunInfo(
        id="", name="memo", engine="fake", model="fake-layout-1",
        documents=[doc.info()], settings={"source": "viewer"},
    )  # fmt: skip
    writer = store.create(info)
    for item in process(FakeEngine(), CPU_SPEC, list(doc.pages())[:2]):
        result = item.result
        if result.page == 2:
            result = result.model_copy(
                update={"status": PageStatus.ERROR, "error": "cancelled by the user"}
            )
        writer.write_page(result, item.image)
    writer.finish(RunStatus.CANCELLED)
    at = runs_app(tmp_path).run()
    assert not at.exception
    [note] = [i.value for i in at.info if "Stopped with" in i.value]
    assert "1 of 3 page(s) saved (1 failed or cancelled)" in note, note
