from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

from workbench.errors import StoreError
from workbench.runs.folder import RunWriter
from workbench.runs.store import RunReader, RunStore, new_run_id
from workbench.schema import (
    Attempt,
    BBox,
    DocumentInfo,
    Label,
    PageResult,
    Region,
    RunInfo,
    RunStatus,
)


def make_page(doc: str, n: int, raw: str = "raw out") -> PageResult:
    return PageResult(
        document=doc,
        page=n,
        width=200,
        height=100,
        engine="fake",
        model="fake-1",
        regions=[
            Region(
                id=f"r{n}",
                label=Label.TEXT,
                native_label="Text",
                bbox=BBox(x0=10, y0=10, x1=110, y1=40),
                text=f"Page {n} text",
            )
        ],
        markdown=f"Page {n} text",
        raw=raw,
        seconds=1.5,
        tokens=40 + n,
        attempts=[Attempt(tokens=20), Attempt(tokens=20 + n)],
    )


def image(n: int = 0) -> Image.Image:
    return Image.new("RGB", (200, 100), (n * 40 % 256, 255, 255))


def info(name: str = "demo", run_id: str = "") -> RunInfo:
    doc = DocumentInfo(name="scan.pdf", sha256="0" * 64, kind="pdf", pages=5)
    return RunInfo(id=run_id, name=name, engine="fake", model="fake-1", documents=[doc])


def test_round_trip(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    writer = store.create(info())
    for n in (1, 2, 3):
        writer.write_page(make_page("scan.pdf", n, raw="" if n == 2 else "raw"), image(n))
    writer.finish(RunStatus.DONE)

    reader = store.open(writer.info.id)
    assert reader.info.status is RunStatus.DONE
    assert reader.documents == ["scan.pdf"]
    pages = reader.pages("scan.pdf")
    assert [p.page for p in pages] == [1, 2, 3]
    assert pages[0] == make_page("scan.pdf", 1, raw="raw")
    assert reader.image("scan.pdf", 3).getpixel((0, 0)) == (120, 255, 255)
    folder = writer.path / "scan"
    assert (folder / "page-0001.raw.txt").read_text() == "raw"
    assert not (folder / "page-0002.raw.txt").exists()  # empty raw output: no file
    assert (folder / "page-0002.md").read_text() == "Page 2 text"
    assert reader.markdown("scan.pdf") == (
        "<!-- page 1 -->\n\nPage 1 text\n\n<!-- page 2 -->\n\nPage 2 text\n\n"
        "<!-- page 3 -->\n\nPage 3 text\n"
    )
    entries = reader.info.pages
    assert [(e.page, e.tokens, e.retries) for e in entries] == [(1, 41, 1), (2, 42, 1), (3, 43, 1)]
    assert json.loads((writer.path / "manifest.json").read_text())["status"] == "done"


def test_duplicate_stems_get_distinct_folders(tmp_path: Path) -> None:
    writer = RunStore(tmp_path).create(info())
    writer.write_page(make_page("a.pdf", 1), image())
    writer.write_page(make_page("a.png", 1), image())
    writer.write_page(make_page("../evil name.pdf", 1), image())
    assert writer.info.folders == {
        "scan.pdf": "scan",  # the run's document: its folder exists from the start
        "a.pdf": "a",
        "a.png": "a-2",
        "../evil name.pdf": "evil_name",
    }
    reader = RunReader(writer.path)
    assert reader.page("a.png", 1).document == "a.png"


def test_killed_writer_leaves_exactly_the_finished_pages(tmp_path: Path) -> None:
    # A real process dies hard (os._exit) while renaming page 3's .json into place.
    run_dir = tmp_path / "out"
    script = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_store import make_page, image, info
        import workbench.runs.folder as rf
        real = os.replace
        def dying_replace(src, dst):
            if str(dst).endswith("page-0003.json"):
                os._exit(9)
            real(src, dst)
        os.replace = dying_replace
        writer = rf.RunWriter.create({str(run_dir)!r}, info())
        for n in range(1, 6):
            writer.write_page(make_page("scan.pdf", n), image(n))
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path.cwd(), check=False)
    assert proc.returncode == 9
    folder = run_dir / "scan"
    assert list(folder.glob(".page-0003.json.*.tmp")), "the crash should leave a tmp file"
    assert (folder / "page-0003.png").exists() and not (folder / "page-0003.json").exists()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "running"
    # the manifest's page entries may lag the page files (saved at most every 0.5 s)
    assert [e["page"] for e in manifest["pages"]] in ([], [1], [1, 2])

    resumed = RunWriter.open(run_dir, info())
    assert resumed.done_pages("scan.pdf") == {1, 2}
    saved = json.loads((run_dir / "manifest.json").read_text())  # rebuilt from the page files
    assert [e["page"] for e in saved["pages"]] == [1, 2]
    assert not list(folder.glob(".*.tmp"))  # stale tmp files are swept on resume
    assert [p.page for p in RunReader(run_dir).pages("scan.pdf")] == [1, 2]


def test_truncated_json_is_not_a_finished_page(tmp_path: Path) -> None:
    writer = RunStore(tmp_path).create(info())
    writer.write_page(make_page("scan.pdf", 1), image())
    (writer.path / "scan" / "page-0002.json").write_text('{"document": "scan.pdf", "pa')
    assert writer.done_pages("scan.pdf") == {1}
    assert [p.page for p in RunReader(writer.path).pages("scan.pdf")] == [1]


def test_resume_skips_and_never_rewrites_done_pages(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    writer = store.create(info())
    for n in (1, 2):
        writer.write_page(make_page("scan.pdf", n), image(n))
    first = (writer.path / "scan" / "page-0001.json").stat().st_mtime_ns
    resumed = store.resume(writer.info.id)
    todo = [n for n in range(1, 5) if n not in resumed.done_pages("scan.pdf")]
    assert todo == [3, 4]
    with pytest.raises(StoreError, match="already finished"):
        resumed.write_page(make_page("scan.pdf", 1), image())
    for n in todo:
        resumed.write_page(make_page("scan.pdf", n), image(n))
    resumed.finish(RunStatus.DONE)
    assert (writer.path / "scan" / "page-0001.json").stat().st_mtime_ns == first
    reader = store.open(writer.info.id)
    assert [e.page for e in reader.info.pages] == [1, 2, 3, 4]
    assert reader.info.id == writer.info.id


def test_resume_rebuilds_a_corrupt_manifest_from_page_files(tmp_path: Path) -> None:
    writer = RunWriter.create(tmp_path / "out", info(run_id="x"))
    writer.write_page(make_page("scan.pdf", 1), image())
    (tmp_path / "out" / "manifest.json").write_text("{not json")
    resumed = RunWriter.open(tmp_path / "out", info(run_id="x"))
    assert resumed.done_pages("scan.pdf") == {1}
    assert [e.page for e in RunReader(tmp_path / "out").info.pages] == [1]


def test_corrections_sit_beside_the_model_output(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    writer = store.create(info())
    writer.write_page(make_page("scan.pdf", 1), image())
    writer.finish()
    model_json = writer.path / "scan" / "page-0001.json"
    before = model_json.read_bytes()
    fixed = [
        Region(id="c1", label=Label.TABLE, native_label="user", bbox=BBox(x0=0, y0=0, x1=50, y1=50))
    ]
    path = store.save_corrections(writer.info.id, "scan.pdf", 1, fixed)
    assert path.name == "page-0001.corrected.json"
    assert model_json.read_bytes() == before
    stored = store.open(writer.info.id).stored("scan.pdf", 1)
    assert stored.corrected == fixed
    assert stored.result.regions[0].label is Label.TEXT
    assert stored.regions == fixed
    assert store.load_corrections(writer.info.id, "scan.pdf", 1) == fixed
    assert store.open(writer.info.id).stored("scan.pdf", 1).image_file == "scan/page-0001.png"
    # a corrected file never counts as a page
    assert store.list()[0].pages == 1
    with pytest.raises(StoreError, match="no finished page"):
        store.save_corrections(writer.info.id, "scan.pdf", 2, fixed)


def test_list_tolerates_corrupt_manifest_and_missing_pages(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    good = store.create(info("good", run_id="20260101-000000-good"))
    good.write_page(make_page("scan.pdf", 1), image())
    good.write_page(make_page("scan.pdf", 2), image())
    good.finish()
    bad = store.create(info("bad", run_id="20260102-000000-bad"))
    bad.write_page(make_page("scan.pdf", 1), image())
    (bad.path / "manifest.json").write_text("garbage")
    (good.path / "scan" / "page-0002.json").unlink()
    (tmp_path / "stray-folder").mkdir()

    rows = {r.id: r for r in store.list()}
    assert rows["20260102-000000-bad"].status == "corrupt"
    assert rows["20260102-000000-bad"].pages == 1
    assert rows["stray-folder"].status == "corrupt"
    ok = rows["20260101-000000-good"]
    assert (ok.status, ok.pages, ok.seconds_per_page) == ("done", 1, 1.5)
    assert ok.problem is not None and "missing" in ok.problem
    assert [r.id for r in store.find_by_name("good")] == ["20260101-000000-good"]
    with pytest.raises(StoreError, match="unreadable"):
        store.open("20260102-000000-bad")


def test_delete(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    writer = store.create(info())
    writer.finish()
    store.delete(writer.info.id)
    assert store.list() == []
    with pytest.raises(StoreError):
        store.delete(writer.info.id)
    with pytest.raises(StoreError, match="not a valid run id"):
        store.delete("../etc")


def test_run_ids_sort_by_time() -> None:
    early = new_run_id("Chandra 2 / scan", datetime(2026, 1, 5, 12, 1, 2, tzinfo=UTC))
    late = new_run_id("a", datetime(2026, 1, 5, 12, 1, 3, tzinfo=UTC))
    assert early.startswith("20260105-120102-chandra-2-scan-")
    assert sorted([late, early]) == [early, late]


def test_default_root_comes_from_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(tmp_path / "runs"))
    assert RunStore().root == tmp_path / "runs"


def test_page_files_include_figure_crops(tmp_path: Path) -> None:
    writer = RunStore(tmp_path).create(info())
    writer.write_page(make_page("scan.pdf", 1), image())
    writer.write_page(make_page("scan.pdf", 10), image())
    (writer.path / "scan" / "page-0001-r3.png").write_bytes(b"png")
    names = [p.name for p in RunReader(writer.path).files("scan.pdf", 1)]
    assert names == [
        "page-0001-r3.png",
        "page-0001.json",
        "page-0001.md",
        "page-0001.png",
        "page-0001.raw.txt",
    ]


def test_stale_figure_crops_go_when_a_page_is_written_again(tmp_path: Path) -> None:
    """A rewritten page (or one a crash cut short after its image) loses crops it no longer
    has; a new page's neighbours' crops are never touched."""
    writer = RunStore(tmp_path).create(info())
    folder = writer.path / "scan"
    writer.write_page(make_page("scan.pdf", 1), image())
    (folder / "page-0001-r7.png").write_bytes(b"old crop")  # from an earlier answer
    (folder / "page-0002.png").write_bytes(b"image")  # a crash after page 2's image...
    (folder / "page-0002-r2.png").write_bytes(b"old crop")  # ...and its crop, before its .json
    (folder / "page-0003-r1.png").write_bytes(b"crop")  # another page's crop
    writer.write_page(make_page("scan.pdf", 1), image(), overwrite=True)
    writer.write_page(make_page("scan.pdf", 2), image())
    writer.write_page(make_page("scan.pdf", 4), image())
    assert not (folder / "page-0001-r7.png").exists()
    assert not (folder / "page-0002-r2.png").exists()
    assert (folder / "page-0003-r1.png").exists()


def test_a_page_cut_short_is_written_whole_in_place_and_a_rewrite_is_atomic(
    tmp_path: Path,
) -> None:
    """A new page's files are written in place (no reader looks before its .json lands): what
    a crash left is replaced whole, with the umask's mode. A page written again is replaced
    atomically: a reader that opened its image before still reads the old one whole."""
    writer = RunStore(tmp_path).create(info())
    folder = writer.path / "scan"
    writer.write_page(make_page("scan.pdf", 1), image())
    (folder / "page-0002.png").write_bytes(b"half an image" * 1000)  # a crash before the .json
    (folder / "page-0002.md").write_text("half the text " * 100)
    old = os.umask(0o027)
    try:
        writer.write_page(make_page("scan.pdf", 2), image(), png=b"the page's png")
        writer.write_page(make_page("scan.pdf", 3), image(), png=b"page three")
    finally:
        os.umask(old)
    assert (folder / "page-0002.png").read_bytes() == b"the page's png"
    assert (folder / "page-0002.md").read_text() == make_page("scan.pdf", 2).markdown
    assert stat.S_IMODE((folder / "page-0003.png").stat().st_mode) == 0o640
    assert RunReader(writer.path).page("scan.pdf", 2) is not None

    with (folder / "page-0002.png").open("rb") as reader:
        writer.write_page(make_page("scan.pdf", 2), image(), overwrite=True, png=b"new" * 9)
        assert reader.read() == b"the page's png"  # the old file, whole: replaced, not rewritten
    assert (folder / "page-0002.png").read_bytes() == b"new" * 9
