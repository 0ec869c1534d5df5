"""`python -m workbench ocr --engine cpu` with the engine's settings (issue 12: text layer
mode, table detection, handwriting threshold), and a run folder that refuses to mix two
configurations. Real CLI subprocesses, the real CPU engine, a real born-digital form page
(tests/data/sf424_page2.pdf, see SOURCES.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "tests" / "data" / "sf424_page2.pdf"
pytestmark = pytest.mark.slow  # four CLI subprocesses with the CPU engine


def ocr(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "workbench", "ocr", str(PAGE), "--out", str(out), "--quiet"]
    return subprocess.run([*cmd, *extra], capture_output=True, text=True, cwd=ROOT, timeout=300)


def page_json(out: Path) -> dict:
    return json.loads((out / PAGE.stem / "page-0001.json").read_text())


def test_settings_are_applied_recorded_and_a_run_never_mixes_two(tmp_path):
    layer, scan = tmp_path / "layer", tmp_path / "scan"
    done = ocr(layer, "--text-layer", "only", "--no-tables", "--handwriting-threshold", "45")
    assert done.returncode == 0, done.stderr
    settings = json.loads((layer / "manifest.json").read_text())["settings"]
    assert settings["text_layer"] == "only"
    assert settings["detect_tables"] == "false"
    assert settings["handwriting_threshold"] == "45.0"
    sources = {r.get("source") for r in page_json(layer)["regions"] if r.get("text")}
    assert sources == {"text_layer"}

    before = (layer / PAGE.stem / "page-0001.md").read_bytes()
    again = ocr(layer, "--text-layer", "never")
    assert again.returncode == 2
    assert "text_layer only → never" in again.stderr
    assert "choose another --out" in again.stderr
    assert (layer / PAGE.stem / "page-0001.md").read_bytes() == before

    same = ocr(layer, "--text-layer", "only", "--no-tables", "--handwriting-threshold", "45")
    assert same.returncode == 0, same.stderr
    assert "nothing left to do" in same.stderr

    done = ocr(scan, "--text-layer", "never")
    assert done.returncode == 0, done.stderr
    sources = {r.get("source") for r in page_json(scan)["regions"] if r.get("text")}
    assert "text_layer" not in sources and sources


def test_cpu_settings_are_refused_for_other_engines_and_out_of_range(tmp_path):
    other = ocr(tmp_path / "a", "--engine", "vllm-server", "--no-tables")
    assert other.returncode == 2 and "--no-tables applies to --engine cpu only" in other.stderr
    wild = ocr(tmp_path / "b", "--handwriting-threshold", "140")
    assert wild.returncode == 2 and "must be 0-100" in wild.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
