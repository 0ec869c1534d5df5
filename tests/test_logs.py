"""stderr holds the workbench's own lines: libraries' INFO logging off unless ``--verbose``,
no pypdfium2 "still open" lines at exit. Real CLI, real CPU engine, a real PDF page."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "tests" / "data" / "pdflatex_outline.pdf"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_cli_stderr_is_only_the_workbench_own_lines(tmp_path: Path) -> None:
    quiet = run("-m", "workbench", "ocr", str(PDF), "--pages", "1", "--out", str(tmp_path / "q"))
    assert quiet.returncode == 0, quiet.stderr
    own = re.compile(
        r"engine cpu .* ready in [\d.]+ s"
        r"|pdflatex_outline\.pdf: page 1 \(1/1\) ok [\d.]+s .*"
        rf"|{re.escape(str(tmp_path / 'q'))}: run done, 1 page\(s\) written, .*"
    )
    lines = quiet.stderr.splitlines()
    assert len(lines) == 3 and all(own.fullmatch(line) for line in lines), quiet.stderr
    assert (tmp_path / "q" / "pdflatex_outline" / "page-0001.md").read_text().strip()

    # --verbose (after the command here) brings rapid_layout's INFO lines back
    loud = run(
        "-m", "workbench", "ocr", str(PDF), "--pages", "1", "--out", str(tmp_path / "l"), "-v"
    )
    assert loud.returncode == 0, loud.stderr
    assert "[INFO]" in loud.stderr and "layout_cdla.onnx" in loud.stderr
    # the engine's ready line and the progress line
    assert sum(bool(own.fullmatch(x)) for x in loud.stderr.splitlines()) == 2


def test_documents_left_open_are_closed_quietly_at_exit(tmp_path: Path) -> None:
    """The app keeps documents open in a cache for its whole life. When a finalizer hook was
    registered before pypdfium2 was imported (Streamlit does), pypdfium2's own exit handler ran
    first and printed "still open" for each one; the workbench closes them before that."""
    script = tmp_path / "leave_open.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import weakref

            class Early: ...
            early = Early()
            weakref.finalize(early, print)  # registers weakref's exit hook before pypdfium2's

            from workbench.documents import open_document
            data = open({str(PDF)!r}, "rb").read()
            KEPT = [open_document(f"{{i}}.pdf", data) for i in range(3)]
            assert KEPT[2].page(1, dpi=36).image.width > 0
            """
        )
    )
    result = run(str(script))
    assert result.returncode == 0, result.stderr
    assert "still open" not in result.stderr and result.stderr == "", result.stderr


def test_worker_processes_importing_the_app_stay_quiet() -> None:
    """Page-preparing workers (forkserver/spawn) import the app's main file as ``__mp_main__``:
    it must neither draw the app nor load the UI, whose Streamlit caches would warn in the
    app's log ("No runtime found", "missing ScriptRunContext")."""
    code = (
        "import runpy, sys; runpy.run_path('workbench/Home.py', run_name='__mp_main__'); "
        "print(sorted(m for m in sys.modules if m == 'streamlit' or m.startswith('workbench.ui')))"
    )
    result = run("-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout.strip() == "[]", (result.stdout, result.stderr)
