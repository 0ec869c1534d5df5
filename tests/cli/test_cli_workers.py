"""`python -m workbench ocr --workers N`: the CPU engine's pages in N worker processes write
the same page files as one worker (only measured ``seconds`` differ); bad values are usage
errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main

ROOT = Path(__file__).resolve().parents[2]
PDF = ROOT / "tests" / "data" / "pdflatex_outline.pdf"


def without_seconds(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_seconds(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [without_seconds(v) for v in value]
    return value


def page_files(folder: Path) -> dict[str, Any]:
    files: dict[str, Any] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".json":
            files[path.name] = without_seconds(json.loads(path.read_text("utf-8")))
        else:
            files[path.name] = path.read_bytes()
    return files


def ocr(out: Path, workers: int) -> subprocess.CompletedProcess[str]:
    args = ["ocr", str(PDF), "--pages", "1-2", "--out", str(out), "--workers", str(workers)]
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_two_workers_write_the_same_page_files_as_one(tmp_path: Path) -> None:
    one = ocr(tmp_path / "one", 1)
    two = ocr(tmp_path / "two", 2)
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    first = page_files(tmp_path / "one" / "pdflatex_outline")
    second = page_files(tmp_path / "two" / "pdflatex_outline")
    assert {"page-0001.json", "page-0002.json", "page-0001.png", "page-0002.md"} <= set(first)
    assert first["page-0002.json"]["markdown"].strip()  # a real page was read
    assert second == first


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--workers", "0"], "--workers must be 1 or more"),
        (["--workers", "2", "--engine", "vllm-server"], "--engine cpu only"),
    ],
)
def test_bad_workers_are_one_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    status = main(["ocr", str(PDF), "--out", str(tmp_path / "out"), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err
    assert not list((tmp_path / "out").glob("*/page-*.json"))
