"""`python -m workbench ocr` as a run writer (issue 10 items 1, 2, 9-12): resume with nothing
left, same-named inputs, exit codes for unclean pages, file modes, skipped files, names.

Real subprocesses of the CLI against a real local OpenAI-compatible HTTP server (the test's
FakeOpenAIServer) answering with a real Chandra 2 output; documents are real PDFs and PNGs
generated here.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from PIL import Image, ImageDraw

from tests.fakes.openai_server import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
CHANDRA2 = (ROOT / "tests/data/model_outputs/chandra2_2305.03393v1-pg9.html").read_text()
MODEL = "datalab-to/chandra-ocr-2"
pytestmark = pytest.mark.slow  # about 15 CLI subprocesses, 5-8 s each on 2 cores


def make_pdf(path: Path, pages: int, size: tuple[float, float] = (612, 792)) -> Path:
    """A real PDF with ``pages`` blank pages of ``size`` points (size tells documents apart)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(*size)
    pdf.save(path)
    return path


def make_png(path: Path, text: str = "scan") -> Path:
    image = Image.new("RGB", (400, 300), "white")
    ImageDraw.Draw(image).text((20, 20), text, fill="black")
    image.save(path)
    return path


def ocr(
    server: FakeOpenAIServer, *args: str, umask: int | None = None
) -> subprocess.CompletedProcess[str]:
    def set_umask() -> None:
        if umask is not None:
            os.umask(umask)

    engine = ["--engine", "vllm-server", "--base-url", server.base_url, "--quiet"]
    return subprocess.run(
        [sys.executable, "-m", "workbench", "ocr", *args, *engine],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=set_umask,
    )


@pytest.fixture
def server() -> FakeOpenAIServer:
    with FakeOpenAIServer(respond=lambda body: CHANDRA2, models=[MODEL]) as srv:
        yield srv


def test_rerun_with_nothing_left_does_nothing_and_exits_0(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    doc = make_pdf(tmp_path / "two.pdf", 2)
    out = tmp_path / "out"
    first = ocr(server, str(doc), "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert server.completions == 2
    page = out / "two" / "page-0001.json"
    mtime = page.stat().st_mtime_ns
    manifest = (out / "manifest.json").read_bytes()

    again = ocr(server, str(doc), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "nothing left to do" in again.stderr and "error" not in again.stderr
    assert server.completions == 2  # no page went to the engine again
    assert page.stat().st_mtime_ns == mtime
    assert (out / "manifest.json").read_bytes() == manifest  # not even the manifest rewritten


def test_same_file_name_in_two_folders_is_two_documents(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    a = make_pdf(tmp_path / "a" / "doc.pdf", 1)
    b = make_pdf(tmp_path / "b" / "doc.pdf", 2, size=(500, 700))  # another document
    out = tmp_path / "out"
    proc = ocr(server, str(a), str(b), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert server.completions == 3
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["folders"] == {"doc.pdf": "doc", "doc-2.pdf": "doc-2"}
    shas = {d["name"]: d["sha256"] for d in manifest["documents"]}
    assert shas["doc.pdf"] != shas["doc-2.pdf"]
    assert sorted(p.name for p in (out / "doc-2").glob("page-*.json")) == [
        "page-0001.json",
        "page-0002.json",
    ]
    assert "another document in this run has that name" in proc.stderr
    identity = json.loads((out / "doc-2" / "document.json").read_text())
    assert identity["sha256"] == shas["doc-2.pdf"]

    # Resume knows both by content; a third, different doc.pdf is not "already done".
    again = ocr(server, str(b), str(a), "--out", str(out))
    assert again.returncode == 0 and "nothing left to do" in again.stderr
    c = make_pdf(tmp_path / "c" / "doc.pdf", 1, size=(300, 300))
    third = ocr(server, str(c), "--out", str(out))
    assert third.returncode == 0, third.stderr
    assert server.completions == 4
    assert (out / "doc-3" / "page-0001.json").exists()


def test_truncated_pages_warn_and_exit_3_failed_pages_exit_1(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    doc = make_pdf(tmp_path / "cut.pdf", 1)
    server.respond = lambda body: Reply(CHANDRA2, finish_reason="length")
    proc = ocr(server, str(doc), "--out", str(tmp_path / "o1"))
    assert proc.returncode == 3, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "cut.pdf page 1 is truncated" in warnings[0]
    page = json.loads((tmp_path / "o1" / "cut" / "page-0001.json").read_text())
    assert page["status"] == "truncated"

    with FakeOpenAIServer(respond=lambda body: CHANDRA2, models=[MODEL]) as failing:
        failing.fail_next(20, 500)  # every try of the page fails
        bad = ocr(failing, str(doc), "--out", str(tmp_path / "o2"))
    assert bad.returncode == 1, bad.stderr
    assert any(line.startswith("error: cut.pdf page 1:") for line in bad.stderr.splitlines())
    assert json.loads((tmp_path / "o2" / "manifest.json").read_text())["status"] == "partial"

    # The failed page is tried again on the next run (it is not "finished").
    server.respond = lambda body: CHANDRA2
    retry = ocr(server, str(doc), "--out", str(tmp_path / "o2"))
    assert retry.returncode == 0, retry.stderr
    page = json.loads((tmp_path / "o2" / "cut" / "page-0001.json").read_text())
    assert page["status"] == "ok"
    assert json.loads((tmp_path / "o2" / "manifest.json").read_text())["status"] == "done"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640)])
def test_output_files_follow_the_umask(
    tmp_path: Path, server: FakeOpenAIServer, umask: int, mode: int
) -> None:
    doc = make_pdf(tmp_path / "m.pdf", 1)
    out = tmp_path / "out"
    proc = ocr(server, str(doc), "--out", str(out), umask=umask)
    assert proc.returncode == 0, proc.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 6
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == mode, path


def test_folder_input_lists_skipped_files_in_one_line(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    make_png(folder / "scan.png")
    (folder / "notes.txt").write_text("not a document")
    Image.new("RGB", (10, 10)).save(folder / "anim.gif")
    (folder / "sub").mkdir()
    proc = ocr(server, str(folder), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "unsupported" in line]
    assert lines == [f"warning: {folder}: skipped 3 unsupported file(s): anim.gif, notes.txt, sub/"]
    assert (tmp_path / "out" / "scan" / "page-0001.json").exists()


def test_a_name_with_a_newline_is_one_escaped_line(
    tmp_path: Path, server: FakeOpenAIServer
) -> None:
    bad = tmp_path / "bad\nname.pdf"
    bad.write_text("not a pdf")
    good = make_pdf(tmp_path / "good.pdf", 1)
    proc = ocr(server, str(bad), str(good), "--out", str(tmp_path / "out"))
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "bad\\nname.pdf" in errors[0]
    assert not any(line.startswith("name.pdf") for line in proc.stderr.splitlines())
