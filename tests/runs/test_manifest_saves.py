"""The manifest is saved at most every RunWriter.MANIFEST_EVERY seconds while pages are written,
always on finish/close and at interpreter exit; a stale one is rebuilt from the page files."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_store import image, info, make_page

from workbench.runs.folder import RunWriter
from workbench.runs.store import RunReader, RunStore


def listed(run_dir: Path) -> list[int]:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    return [e["page"] for e in manifest["pages"]]


def test_pages_written_quickly_do_not_rewrite_the_manifest_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunWriter, "MANIFEST_EVERY", 3600.0)
    writer = RunWriter.create(tmp_path / "out", info())
    for n in (1, 2, 3):
        writer.write_page(make_page("scan.pdf", n), image(n))
    assert listed(writer.path) == []  # not due yet: the page files are the truth
    assert RunReader(writer.path).page_numbers("scan.pdf") == [1, 2, 3]
    assert RunStore(tmp_path).list()[0].pages == 3  # counted from the files
    assert [e.page for e in writer.info.pages] == [1, 2, 3]  # the writer's own view is whole
    writer.finish_document("scan.pdf")
    assert listed(writer.path) == [1, 2, 3]


def test_an_interval_of_zero_saves_after_every_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunWriter, "MANIFEST_EVERY", 0.0)
    with RunWriter.create(tmp_path / "out", info()) as writer:
        for n in (2, 1):  # out of order: entries stay sorted
            writer.write_page(make_page("scan.pdf", n), image(n))
            assert n in listed(writer.path)
    assert listed(writer.path) == [1, 2]


def test_a_page_done_again_replaces_its_entry(tmp_path: Path) -> None:
    with RunWriter.create(tmp_path / "out", info()) as writer:
        writer.write_page(make_page("scan.pdf", 1), image())
        writer.write_page(make_page("scan.pdf", 1, raw="again"), image(), overwrite=True)
    assert listed(writer.path) == [1]


def test_a_writer_left_open_saves_at_interpreter_exit(tmp_path: Path) -> None:
    run_dir = tmp_path / "out"
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from test_store import make_page, image, info
        from workbench.runs.folder import RunWriter
        RunWriter.MANIFEST_EVERY = 3600.0
        writer = RunWriter.create({str(run_dir)!r}, info())
        for n in range(1, 4):
            writer.write_page(make_page("scan.pdf", n), image(n))
        """
    )
    subprocess.run([sys.executable, "-c", script], cwd=Path.cwd(), check=True)
    assert listed(run_dir) == [1, 2, 3]


def test_a_stale_manifest_is_rebuilt_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RunWriter, "MANIFEST_EVERY", 3600.0)
    writer = RunWriter.create(tmp_path / "out", info())
    for n in (1, 2):
        writer.write_page(make_page("scan.pdf", n), image(n))
    stale = (writer.path / "manifest.json").read_bytes()  # as a killed writer leaves it
    writer.close()
    (writer.path / "manifest.json").write_bytes(stale)
    resumed = RunWriter.open(writer.path, info())
    assert listed(writer.path) == [1, 2]
    assert resumed.finished_pages("scan.pdf") == {1, 2}
