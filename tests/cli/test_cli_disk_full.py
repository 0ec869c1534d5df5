"""A full disk under the CLI's --out (issue 31.2), on a real tmpfs the test mounts (root only;
elsewhere the tests skip, saying so): one ``error:`` line naming the folder, what is free and
what is needed, exit 4, no traceback, a manifest that parses and lists only pages on disk,
and the same command resumes once there is room."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]


def _mount(path: Path, size: str, *, remount: bool = False) -> subprocess.CompletedProcess[str]:
    opts = f"remount,size={size}" if remount else f"size={size}"
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(path)],
                          capture_output=True, text=True)  # fmt: skip


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (run as root to test a full disk)")
    made = _mount(disk, "1m")
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def noisy_tiff(path: Path, pages: int) -> Path:
    """Pages of noise: their PNGs do not compress, so a few fill a 1 MB disk."""
    rng = np.random.default_rng(31)
    frames = [Image.fromarray(rng.integers(0, 255, (300, 240, 3), dtype=np.uint8))
              for _ in range(pages)]  # fmt: skip
    frames[0].save(path, save_all=True, append_images=frames[1:])
    return path


def ocr(doc: Path, out: Path, url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", "ocr", str(doc), "--out", str(out), "--engine",
         "vllm-server", "--base-url", url, "--spec", "lightonai/LightOnOCR-2-1B", "--quiet",
         "--concurrency", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def consistent(out: Path) -> dict[str, object]:
    """The manifest parses and lists no page whose .json is not on disk."""
    manifest = json.loads((out / "manifest.json").read_text())
    for entry in manifest["pages"]:
        folder = manifest["folders"][entry["document"]]
        assert (out / folder / f"page-{entry['page']:04d}.json").is_file(), entry
    return manifest


def test_a_disk_that_fills_mid_run_is_one_line_and_the_run_resumes(
    small_disk: Path, tmp_path: Path
) -> None:
    doc = noisy_tiff(tmp_path / "noise.tif", 12)
    out = small_disk / "out"
    with FakeOpenAIServer() as server:
        full = ocr(doc, out, server.base_url)
        assert full.returncode == 4, full.stderr
        lines = [line for line in full.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: no space left on the disk of")
        assert str(out) in lines[0] and "needed for the" in lines[0] and "MB" in lines[0]
        assert "Traceback" not in full.stderr
        manifest = consistent(out)
        assert manifest["status"] == "cancelled"
        kept = len(manifest["pages"])
        assert 0 < kept < 12
        assert _mount(small_disk, "64m", remount=True).returncode == 0  # room again
        before = server.completions
        again = ocr(doc, out, server.base_url)
        assert again.returncode == 0, again.stderr
        assert server.completions - before == 12 - kept  # the kept pages are not done again
    manifest = consistent(out)
    assert manifest["status"] == "done" and len(manifest["pages"]) == 12


def test_no_room_at_all_is_one_line_not_a_traceback(small_disk: Path, tmp_path: Path) -> None:
    filler = small_disk / "filler"
    with filler.open("wb") as fh, pytest.raises(OSError):
        while True:
            fh.write(b"\0" * 65536)
            fh.flush()
    doc = noisy_tiff(tmp_path / "noise.tif", 2)
    with FakeOpenAIServer() as server:
        full = ocr(doc, small_disk / "out", server.base_url)
        assert server.completions == 0
    lines = [line for line in full.stderr.splitlines() if line.strip()]
    assert full.returncode == 4, full.stderr
    assert len(lines) == 1 and "no space left on the disk of" in lines[0], full.stderr
    assert str(small_disk / "out") in lines[0] and "Traceback" not in full.stderr
