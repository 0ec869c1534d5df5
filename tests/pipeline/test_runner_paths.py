"""The one run writer (issue 8): the CLI, the Viewer, Batch and Compare's "start the missing
run" write byte-identical run folders for the same real PDF and engine, figure crops included.

The engine is deterministic and reports fixed timing (``seconds=0``), so every file of the
document folder is compared byte for byte, with no field left out. Manifests differ only in
run identity, timestamps and ``settings.source`` (who started the run), by design; the test
drops exactly those keys and compares the rest. Real pages (two PDFs from tests/data joined
with PDFium), the real CLI entry point, the real Viewer in AppTest (its background worker),
the real Batch and Compare functions, the real run store.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.ui.settle import settle
from workbench.cli import main
from workbench.engines.base import EngineOutput, PageRequest
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.batch import run_batch
from workbench.pipeline.request import RunRequest
from workbench.runs.store import RunReader, RunStore
from workbench.schema import BBox, Label, Region
from workbench.ui.compare.view import rerun_document

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
DOC = "two.pdf"
IDENTITY = {"id", "name", "created", "updated", "finished"}


class FigureEngine:
    """Deterministic layout with two figures per page (one reaching past the page edge, so
    the crop is clamped), fixed timing. Named "fake" so the app gives it the CPU spec."""

    name = "fake"
    model = "figure-fake-1"
    batch_size = 8
    spec = CPU_SPEC

    def __init__(self) -> None:
        self.calls = 0

    def describe(self) -> dict[str, str]:
        return {"engine": self.name, "model": self.model}

    def close(self) -> None:
        pass

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        for req in requests:
            self.calls += 1
            w, h = req.image.size
            n = req.key.rsplit("#", 1)[-1]

            layout = [  # label, box as fractions of the page, text
                (Label.TITLE, (0.1, 0.05, 0.9, 0.1), f"Page {n}"),
                (Label.FIGURE, (0.2, 0.2, 0.8, 0.5), ""),
                (Label.TEXT, (0.1, 0.55, 0.9, 0.7), f"Text of page {n}."),
                (Label.FIGURE, (0.7, 0.85, 1.1, 1.2), "A caption"),
            ]
            regions = [
                Region(
                    id=f"r{i}",
                    label=label,
                    native_label=str(label),
                    bbox=BBox(x0=x0 * w, y0=y0 * h, x1=x1 * w, y1=y1 * h),
                    text=text,
                    order=i,
                )
                for i, (label, (x0, y0, x1, y1), text) in enumerate(layout)
            ]
            yield EngineOutput(key=req.key, regions=regions, raw=f"figures of page {n}")


@pytest.fixture(scope="module")
def pdf_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Two real pages: the Huckleberry Finn scan (an illustration) and a LaTeX page."""
    out = pdfium.PdfDocument.new()
    out.import_pages(pdfium.PdfDocument(DATA / "scan_huckfinn_c03-29.pdf"), [0])
    out.import_pages(pdfium.PdfDocument(DATA / "pdflatex_outline.pdf"), [1])
    path = tmp_path_factory.mktemp("pdf") / DOC
    out.save(path)
    return path.read_bytes()


def folder_files(run_dir: Path) -> dict[str, bytes]:
    [doc_dir] = [p for p in run_dir.iterdir() if p.is_dir()]
    return {p.name: p.read_bytes() for p in sorted(doc_dir.iterdir())}


def manifest(run_dir: Path) -> dict[str, object]:
    data = json.loads((run_dir / "manifest.json").read_text())
    for key in IDENTITY:
        data.pop(key)
    data["settings"].pop("source")
    return data


def run_cli(tmp_path: Path, pdf: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(RunRequest, "open", lambda self, **_: (FigureEngine(), CPU_SPEC))
    out = tmp_path / "cli"
    assert main(["ocr", str(pdf), "--out", str(out), "--quiet"]) == 0
    return out


def run_viewer(tmp_path: Path, pdf: bytes, monkeypatch: pytest.MonkeyPatch) -> Path:
    store = tmp_path / "viewer-store"
    monkeypatch.setenv("WORKBENCH_STORE_DIR", str(store))
    engine = FigureEngine()
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    at.session_state["engine_override"] = engine
    at.run()
    # The background worker processes the pages (page on screen first); settle waits for it.
    settle(at.file_uploader(key="wb_uploads").set_value([(DOC, pdf, "application/pdf")]).run())
    assert not at.exception, at.exception
    assert engine.calls == 2  # page 1 (on screen) first, then page 2
    labels = [d.proto.label for d in at.get("download_button")]
    assert "Page Markdown + figures" in labels  # the page's crops ride along (a ZIP)
    assert "Document Markdown (2 p.) + figures" in labels
    [run] = RunStore(store).list()
    return run.path


def run_batch_path(tmp_path: Path, pdf: bytes) -> Path:
    store = RunStore(tmp_path / "batch-store")
    out = run_batch([(DOC, pdf)], FigureEngine(), CPU_SPEC, store, "batch", RunRequest())
    assert out.status == "done" and out.done == 2
    return store.path(out.run_id)


def run_compare(tmp_path: Path, source: Path) -> Path:
    store = RunStore(tmp_path / "compare-store")
    run_id = rerun_document(RunReader(source), DOC, (FigureEngine(), CPU_SPEC), store)
    return store.path(run_id)


@pytest.mark.slow  # the Viewer runs in AppTest
def test_cli_viewer_batch_and_compare_write_the_same_folder(
    tmp_path: Path, pdf_bytes: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = tmp_path / DOC
    pdf.write_bytes(pdf_bytes)
    cli = run_cli(tmp_path, pdf, monkeypatch)
    paths = {
        "cli": cli,
        "viewer": run_viewer(tmp_path, pdf_bytes, monkeypatch),
        "batch": run_batch_path(tmp_path, pdf_bytes),
        "compare": run_compare(tmp_path, cli),
    }
    files = {who: folder_files(p) for who, p in paths.items()}
    names = sorted(files["cli"])
    assert names == [
        "document.json",
        "document.md",
        "page-0001-r1.png",
        "page-0001-r3.png",
        "page-0001.json",
        "page-0001.md",
        "page-0001.png",
        "page-0001.raw.txt",
        "page-0002-r1.png",
        "page-0002-r3.png",
        "page-0002.json",
        "page-0002.md",
        "page-0002.png",
        "page-0002.raw.txt",
    ]
    for who in ("viewer", "batch", "compare"):
        assert sorted(files[who]) == names, who
        for name in names:
            assert files[who][name] == files["cli"][name], f"{who}: {name} differs"
    heads = {who: manifest(p) for who, p in paths.items()}
    for who in ("viewer", "batch", "compare"):
        assert heads[who] == heads["cli"], who
    assert heads["cli"]["status"] == "done"

    # Every figure the Markdown links is there, and is the box cut from the page image.
    page = Image.open(io.BytesIO(files["cli"]["page-0001.png"]))
    for md_name in ("page-0001.md", "page-0002.md", "document.md"):
        md = files["cli"][md_name].decode()
        for link in re.findall(r"\]\((page-\d{4}-r\d+\.png)\)", md):
            assert link in files["cli"], f"{md_name} links a missing {link}"
    w, h = page.size
    crop = Image.open(io.BytesIO(files["cli"]["page-0001-r1.png"]))
    assert crop.size == (int(0.8 * w) - int(0.2 * w), int(0.5 * h) - int(0.2 * h))
    assert (
        crop.tobytes()
        == page.crop((int(0.2 * w), int(0.2 * h), int(0.8 * w), int(0.5 * h))).tobytes()
    )
    edge = Image.open(io.BytesIO(files["cli"]["page-0001-r3.png"]))
    assert edge.size == (w - int(0.7 * w), h - int(0.85 * h))  # clamped to the page


def test_viewer_markdown_download_has_its_figures_or_no_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.ui.viewer import downloads as viewer_downloads

    md = "# Page 1\n\n![Figure r1](page-0001-r1.png)\n\nText.\n"
    crop = tmp_path / "page-0001-r1.png"
    Image.new("RGB", (4, 3), "red").save(crop)
    monkeypatch.setattr(
        viewer_downloads.viewer_runs, "figure_files", lambda sha, ekey, pages: {crop.name: crop}
    )
    data, name, mime = viewer_downloads.with_figures("two-page-0001", md, "sha", "k", [1])
    assert (name, mime) == ("two-page-0001.zip", "application/zip")
    with zipfile.ZipFile(io.BytesIO(data)) as zf:  # type: ignore[arg-type]
        assert sorted(zf.namelist()) == ["page-0001-r1.png", "two-page-0001.md"]
        assert zf.read("two-page-0001.md").decode() == md
        assert zf.read("page-0001-r1.png") == crop.read_bytes()

    monkeypatch.setattr(viewer_downloads.viewer_runs, "figure_files", lambda *a: {})
    data, name, _ = viewer_downloads.with_figures("two-page-0001", md, "sha", "k", [1])
    assert name == "two-page-0001.md" and data == "# Page 1\n\nText.\n"  # no dead link
    plain = "# Page 1\n\nText.\n"
    assert viewer_downloads.with_figures("p", plain, "sha", "k", [1])[:2] == (plain, "p.md")


def _timeless(data: bytes) -> object:
    """A page JSON with its timing (a measurement, not a result) left out."""
    page = json.loads(data)
    page.pop("seconds")
    for attempt in page["attempts"]:
        attempt.pop("seconds")
    return page


@pytest.mark.slow
def test_real_cpu_engine_cli_and_batch_agree_on_a_page_with_a_figure(tmp_path: Path) -> None:
    """The real CLI (a subprocess) and Batch, both with the real CPU engine, on the scan with
    an illustration: the same files, figure crops included; only timing differs."""
    import subprocess
    import sys

    from workbench.engines.factory import CpuOptions, build_engine

    pdf = DATA / "scan_huckfinn_c03-29.pdf"
    out = tmp_path / "cli"
    proc = subprocess.run(
        [sys.executable, "-m", "workbench", "ocr", str(pdf), "--out", str(out), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    store = RunStore(tmp_path / "store")
    engine = build_engine(CpuOptions())
    try:
        files = [(pdf.name, pdf.read_bytes())]
        batch = run_batch(files, engine, CPU_SPEC, store, "b", RunRequest())
    finally:
        engine.close()
    cli, app = folder_files(out), folder_files(store.path(batch.run_id))
    assert sorted(cli) == sorted(app)
    figures = re.findall(r"\]\((page-0001-r\d+\.png)\)", cli["page-0001.md"].decode())
    assert figures, "the CPU engine found no figure on the illustrated page"
    assert all(name in cli for name in figures)
    for name in cli:
        if name.endswith(".json") and name != "document.json":
            assert _timeless(cli[name]) == _timeless(app[name]), name
        else:
            assert cli[name] == app[name], name
