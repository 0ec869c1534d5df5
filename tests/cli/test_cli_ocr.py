"""`python -m workbench ocr`: the file contract, bad inputs, the server engine, kill and resume.

Real documents, the real embedded CPU engine, a real HTTP server and real subprocesses.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
CHANDRA2 = (DATA / "model_outputs" / "chandra2_2305.03393v1-pg9.html").read_text()


def run_cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        **kw,  # type: ignore[call-overload]
    )


@pytest.mark.slow
def test_cpu_ocr_writes_the_contract_and_reports_bad_inputs(tmp_path: Path) -> None:
    bad = tmp_path / "notes.pdf"
    bad.write_text("this is not a pdf")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    out = tmp_path / "out"
    proc = run_cli(
        "ocr",
        str(DATA / "sf424_page2.pdf"),
        str(bad),
        str(empty),
        "--out",
        str(out),
        "--dpi",
        "150",
    )
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 2
    assert any("notes.pdf" in e and "not a PDF or image" in e for e in errors)
    assert any("empty.png" in e and "empty" in e for e in errors)

    folder = out / "sf424_page2"
    page = json.loads((folder / "page-0001.json").read_text())
    png = Image.open(folder / "page-0001.png")
    assert (page["page"], page["width"], page["height"]) == (1, *png.size)
    assert page["engine"] == "cpu" and page["coordinate_space"] == "page_px"
    assert len(page["regions"]) >= 2
    for region in page["regions"]:
        x0, y0, x1, y1 = region["bbox"]
        assert 0 <= x0 < x1 <= png.width and 0 <= y0 < y1 <= png.height
        assert region["label"] and region["native_label"]
    assert "Applicant" in page["markdown"] or "APPLICANT" in page["markdown"].upper()
    assert (folder / "page-0001.md").read_text() == page["markdown"]
    assert page["markdown"].strip() in (folder / "document.md").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "partial" and len(manifest["pages"]) == 1


def test_a_page_of_unread_handwriting_is_said_so(tmp_path: Path) -> None:
    """A handwritten letter the CPU engine cannot transcribe: the warning says why its
    confidence is low (the page's note), not only the number."""
    proc = run_cli("ocr", str(DATA / "signatures" / "letter_fitzhugh_lee_p1.pdf"),
                   "--out", str(tmp_path / "out"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [warning] = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert "low confidence (0.00): unread writing" in warning


def test_server_engine_writes_raw_output_and_parses_boxes(tmp_path: Path) -> None:
    pdf = pdfium.PdfDocument.new()
    for _ in range(3):
        pdf.new_page(612, 792)
    doc = tmp_path / "three.pdf"
    pdf.save(doc)
    out = tmp_path / "out"
    with FakeOpenAIServer([CHANDRA2] * 3, models=["datalab-to/chandra-ocr-2"]) as server:
        code = main(
            [
                "ocr",
                str(doc),
                "--out",
                str(out),
                "--engine",
                "vllm-server",
                "--base-url",
                server.base_url,
                "--quiet",
            ]
        )
        assert server.completions == 3
    assert code == 0
    for n in (1, 2, 3):
        stem = out / "three" / f"page-{n:04d}"
        assert stem.with_suffix(".raw.txt").read_text() == CHANDRA2
        page = json.loads(stem.with_suffix(".json").read_text())
        assert page["model"] == "datalab-to/chandra-ocr-2"
        located = [r for r in page["regions"] if r["bbox"]]
        assert located and all(r["bbox"][2] <= page["width"] for r in located)


def test_server_down_is_an_actionable_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    img = tmp_path / "p.png"
    Image.new("RGB", (50, 50), "white").save(img)
    code = main(
        [
            "ocr",
            str(img),
            "--out",
            str(tmp_path / "o"),
            "--engine",
            "vllm-server",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--quiet",
        ]
    )
    assert code != 0
    err = capsys.readouterr().err
    assert "cannot reach http://127.0.0.1:9/v1" in err and "Traceback" not in err


def _six_page_pdf(path: Path) -> None:
    """Six real pages: the SF-424 page and the Census table, three times over."""
    out = pdfium.PdfDocument.new()
    for _ in range(3):
        for name in ("sf424_page2.pdf", "census_12s0324.pdf"):
            out.import_pages(pdfium.PdfDocument(DATA / name))
    out.save(path)


@pytest.mark.slow
def test_killed_run_resumes_without_redoing_or_losing_pages(tmp_path: Path) -> None:
    doc = tmp_path / "six.pdf"
    _six_page_pdf(doc)
    out = tmp_path / "run"
    args = [
        sys.executable,
        "-m",
        "workbench",
        "ocr",
        str(doc),
        "--out",
        str(out),
        "--run-name",
        "nightly",
        "--dpi",
        "100",
    ]
    proc = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    folder = out / "six"
    deadline = time.monotonic() + 300
    while not (folder / "page-0002.json").exists():
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        assert time.monotonic() < deadline, "the CLI never finished page 2"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # no clean-up code runs: a real crash
    proc.wait()
    finished = sorted(p.name for p in folder.glob("page-*.json"))
    assert 2 <= len(finished) < 6, "the run must have been killed mid-way"
    kept = {name: (folder / name).stat().st_mtime_ns for name in finished}
    for name in finished:  # every finished page is whole
        assert json.loads((folder / name).read_text())["regions"]

    resumed = run_cli("ocr", str(doc), "--out", str(out), "--run-name", "nightly", "--dpi", "100")
    assert resumed.returncode == 0, resumed.stderr
    assert f"{len(finished)} page(s) already done, skipped" in resumed.stderr
    assert sorted(p.name for p in folder.glob("page-*.json")) == [
        f"page-{n:04d}.json" for n in range(1, 7)
    ]
    for name, mtime in kept.items():  # finished pages were not rewritten
        assert (folder / name).stat().st_mtime_ns == mtime
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "done" and manifest["name"] == "nightly"
    assert sorted(e["page"] for e in manifest["pages"]) == [1, 2, 3, 4, 5, 6]
    assert not list(out.rglob("*.tmp"))

    other = run_cli("ocr", str(doc), "--out", str(out), "--run-name", "other")
    assert other.returncode == 2 and "holds the run 'nightly'" in other.stderr


def test_parse_command_prints_page_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "page.raw.txt"
    raw.write_text(CHANDRA2)
    assert (
        main(
            [
                "parse",
                "--model",
                "datalab-to/chandra-ocr-2",
                "--raw",
                str(raw),
                "--width",
                "2000",
                "--height",
                "1000",
            ]
        )
        == 0
    )
    page = json.loads(capsys.readouterr().out)
    assert (page["width"], page["height"]) == (2000, 1000)
    assert page["regions"] and page["markdown"]
    assert all(r["bbox"] is None or r["bbox"][2] <= 2000 for r in page["regions"])
    assert (
        main(["parse", "--model", "nope/none", "--raw", str(raw), "--width", "1", "--height", "1"])
        == 2
    )


def test_unknown_served_model_is_a_clean_error(tmp_path: Path) -> None:
    img = tmp_path / "p.png"
    buf = io.BytesIO()
    Image.new("RGB", (50, 50), "white").save(buf, "PNG")
    img.write_bytes(buf.getvalue())
    with FakeOpenAIServer(models=["mystery/model"]) as server:
        code = main(
            [
                "ocr",
                str(img),
                "--out",
                str(tmp_path / "o"),
                "--engine",
                "vllm-server",
                "--base-url",
                server.base_url,
                "--quiet",
            ]
        )
    assert code == 2
