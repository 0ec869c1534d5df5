"""The run writer's contract (workbench/pipeline/runner.py): the one status rule, resume
(failed pages again, finished pages never rewritten), cancellation, figure crops, file modes.

Real run folders, real page images; the FakeEngine (deterministic regions) from tests/fakes,
one subclass failing chosen pages."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from PIL import Image

from tests.fakes.fake_engine import FakeEngine
from workbench.documents import open_document
from workbench.errors import PlanError
from workbench.models.registry import CPU_SPEC
from workbench.pipeline.request import run_info
from workbench.pipeline.runner import RunJob, final_status, run_documents
from workbench.runs.files import atomic_write
from workbench.runs.folder import RunReader
from workbench.schema import PageImage, RunStatus
from workbench.settings import Settings


def tiff(pages: int) -> bytes:
    frames = [Image.new("RGB", (300, 400), (255, 255 - 40 * n, 255)) for n in range(pages)]
    buf = io.BytesIO()
    frames[0].save(buf, format="TIFF", save_all=True, append_images=frames[1:])
    return buf.getvalue()


def start(tmp_path: Path, engine: FakeEngine, name: str = "run") -> tuple[RunJob, object]:
    doc = open_document("scan.tiff", tiff(3), Settings())
    info = run_info(engine, CPU_SPEC, name=name, documents=[doc.info()], dpi=200, source="test")
    return RunJob.start(tmp_path / name, engine, CPU_SPEC, info), doc


def images(doc: object, pages: list[int]) -> list[PageImage]:
    return [doc.page(n) for n in pages]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("interrupted", "missing", "failed_pages", "failed_inputs", "status"),
    [
        (False, 0, 0, 0, RunStatus.DONE),
        (False, 0, 1, 0, RunStatus.PARTIAL),
        (False, 0, 0, 1, RunStatus.PARTIAL),
        (False, 2, 1, 0, RunStatus.CANCELLED),
        (True, 0, 0, 0, RunStatus.CANCELLED),
    ],
)
def test_one_status_rule(
    interrupted: bool, missing: int, failed_pages: int, failed_inputs: int, status: RunStatus
) -> None:
    assert (
        final_status(
            interrupted=interrupted,
            missing=missing,
            failed_pages=failed_pages,
            failed_inputs=failed_inputs,
        )
        is status
    )


def test_failed_pages_are_done_again_finished_pages_never_rewritten(tmp_path: Path) -> None:
    failing = FakeEngine(fail_keys=["scan.tiff#2"])
    job, doc = start(tmp_path, failing)
    name = job.add(doc.info())  # type: ignore[attr-defined]
    list(job.pages(name, images(doc, [1, 2, 3]), total=3))
    assert job.finish() is RunStatus.PARTIAL
    assert [(p.page, p.status.value) for p in job.outcome.failed] == [(2, "error")]
    kept = (job.path / "scan" / "page-0001.json").stat().st_mtime_ns

    again, doc = start(tmp_path, FakeEngine())
    plan = again.plan(doc)  # type: ignore[arg-type]
    assert plan.todo == [2] and plan.already_done == 2
    outcome = run_documents(again, [plan])
    assert outcome.status is RunStatus.DONE and outcome.written == 1
    assert (job.path / "scan" / "page-0001.json").stat().st_mtime_ns == kept
    assert RunReader(job.path).page("scan.tiff", 2).status.value == "ok"


def test_cancelled_between_pages_marks_the_run_cancelled(tmp_path: Path) -> None:
    engine = FakeEngine()
    job, doc = start(tmp_path, engine)
    plan = job.plan(doc)  # type: ignore[arg-type]
    outcome = run_documents(job, [plan], cancelled=lambda: engine.calls >= 1)
    assert outcome.status is RunStatus.CANCELLED
    assert 1 <= outcome.written < 3
    assert RunReader(job.path).info.status is RunStatus.CANCELLED


def test_an_exception_mid_run_marks_it_cancelled_and_goes_on(tmp_path: Path) -> None:
    job, doc = start(tmp_path, FakeEngine())
    name = job.add(doc.info())  # type: ignore[attr-defined]

    def boom(done: int, total: int, result: object) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_documents(job, [job.plan(doc)], on_page=boom)  # type: ignore[arg-type]
    assert RunReader(job.path).info.status is RunStatus.CANCELLED
    assert RunReader(job.path).page_numbers(name) == [1]  # the page was on disk first


def test_a_finished_page_sent_again_is_yielded_not_rewritten(tmp_path: Path) -> None:
    job, doc = start(tmp_path, FakeEngine())
    name = job.add(doc.info())  # type: ignore[attr-defined]
    list(job.pages(name, images(doc, [2]), total=1))
    first = (job.path / "scan" / "page-0002.json").stat().st_mtime_ns
    items = list(job.pages(name, images(doc, [2, 1]), total=2))  # the Viewer's own order
    assert [i.result.page for i in items] == [2, 1]
    assert (job.path / "scan" / "page-0002.json").stat().st_mtime_ns == first
    assert job.finish() is RunStatus.DONE


def test_files_get_the_umask_not_0600(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        atomic_write(tmp_path / "a.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o640
    atomic_write(tmp_path / "b.txt", "y")
    assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o666 & ~old


def test_batch_folder_names_what_it_leaves_out_in_one_line(tmp_path: Path) -> None:
    from workbench.pipeline.batch import folder_files, unsupported_note

    (tmp_path / "scan.tiff").write_bytes(tiff(1))
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "odd\nname.gif").write_bytes(b"GIF89a")
    (tmp_path / "sub").mkdir()
    assert [name for name, _ in folder_files(str(tmp_path))] == ["scan.tiff"]
    note = unsupported_note(str(tmp_path))
    assert note is not None and "\n" not in note
    assert note.startswith("3 unsupported file(s) in ")
    assert note.endswith(": notes.txt, odd\\nname.gif, sub/")  # escaped, one line
    (tmp_path / "notes.txt").unlink()
    (tmp_path / "odd\nname.gif").unlink()
    (tmp_path / "sub").rmdir()
    assert unsupported_note(str(tmp_path)) is None


def test_a_run_resumed_with_other_settings_is_refused_before_any_page(tmp_path):
    """One run folder, one configuration (the CLI's --out and the Ray path both start here):
    another DPI or engine setting is refused with the difference named; a setting that does
    not shape the output (a server's address) is not."""
    engine = FakeEngine()
    job, doc = start(tmp_path, engine)
    run_documents(job, [job.plan(doc, [1])])
    run_dir = tmp_path / "run"
    pages_before = sorted(p.name for p in run_dir.rglob("page-*"))
    other = run_info(engine, CPU_SPEC, name="run", documents=[doc.info()], dpi=300, source="test")
    with pytest.raises(PlanError, match=r"dpi 200.0 → 300.0.*another --out"):
        RunJob.start(run_dir, engine, CPU_SPEC, other)
    moved = run_info(engine, CPU_SPEC, name="run", documents=[doc.info()], dpi=200, source="ui")
    moved.settings["base_url"] = "http://elsewhere:8000/v1"
    RunJob.start(run_dir, engine, CPU_SPEC, moved)  # resumes
    assert sorted(p.name for p in run_dir.rglob("page-*")) == pages_before
