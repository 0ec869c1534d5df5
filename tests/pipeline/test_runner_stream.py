"""Pages of many documents in flight at once (issue 21): :meth:`RunJob.stream` and
:func:`run_documents` feed one engine across documents, through the real server engine
against the fake OpenAI server, real one-page PDFs from tests/data.

* a folder of one-page documents keeps the server at ``--concurrency`` (it was one request
  at a time: documents went one after another);
* a chunked engine (in-process vLLM's way) gets batches that span documents;
* every page is written once, each document's pages sent in their order, the folder the same
  as the one-document-at-a-time path writes;
* pages prepared ahead are bounded across documents, and stopping early leaves no temporary
  file behind.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.fakes.fake_engine import FakeEngine
from tests.fakes.openai_server import FakeOpenAIServer
from workbench.documents import Document, open_document
from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.server.engine import VllmServerEngine
from workbench.errors import DocumentError
from workbench.models.registry import CPU_SPEC, get_spec
from workbench.pipeline import feed
from workbench.pipeline.feed import prepare_pages
from workbench.pipeline.request import run_info
from workbench.pipeline.runner import RunJob, run_documents
from workbench.schema import PageImage, RunStatus
from workbench.settings import Settings

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = "lightonai/LightOnOCR-2-1B"
ONE_PAGE = ["census_12s0324.pdf", "financial_statement.pdf", "sf424_page2.pdf",
            "va210966_p1.pdf", "scan_two_columns.pdf", "group_header_table.pdf"]  # fmt: skip


def documents(names: Sequence[str]) -> list[Document]:
    return [open_document(n, (DATA / n).read_bytes(), Settings()) for n in names]


def job_for(tmp_path: Path, engine: Any, spec: Any, docs: list[Document]) -> RunJob:
    info = run_info(
        engine, spec, name="run", documents=[d.info() for d in docs], dpi=72, source="test"
    )
    return RunJob.start(tmp_path / "run", engine, spec, info)


def test_one_page_documents_keep_the_server_at_its_concurrency(tmp_path: Path) -> None:
    docs = documents([*ONE_PAGE, "dd0293_p1-2.pdf"])
    with FakeOpenAIServer(models=[MODEL], delay=0.4) as server:
        engine = VllmServerEngine(server.base_url, concurrency=6)
        try:
            job = job_for(tmp_path, engine, get_spec(MODEL), docs)
            plans = [job.plan(d) for d in docs]
            seen: list[tuple[int, int]] = []
            outcome = run_documents(job, plans, on_page=lambda i, n, _r: seen.append((i, n)))
        finally:
            engine.close()
    assert outcome.status is RunStatus.DONE and outcome.written == 8
    # one document at a time, the server never saw more than 2 (the two-page document)
    assert server.max_in_flight == 6
    assert seen == [(i, 8) for i in range(1, 9)]  # progress over all documents, in order
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert sorted((p["document"], p["page"]) for p in manifest["pages"]) == sorted(
        [(n, 1) for n in ONE_PAGE] + [("dd0293_p1-2.pdf", 1), ("dd0293_p1-2.pdf", 2)]
    )
    for doc in docs:
        doc.close()


class BatchRecorder(FakeEngine):
    """A chunked engine (no ``streams``): records the keys of each ``run`` call."""

    batch_size = 4

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[list[str]] = []

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        self.batches.append([r.key for r in requests])
        return super().run(requests)


def test_chunked_engine_gets_batches_across_documents(tmp_path: Path) -> None:
    names = ["census_12s0324.pdf", "dd0293_p1-2.pdf", "financial_statement.pdf",
             "sf424_page2.pdf", "va210966_p1.pdf"]  # fmt: skip
    docs = documents(names)
    engine = BatchRecorder()
    job = job_for(tmp_path, engine, CPU_SPEC, docs)
    outcome = run_documents(job, [job.plan(d) for d in docs])
    assert outcome.status is RunStatus.DONE and outcome.written == 6
    assert engine.batches == [
        ["census_12s0324.pdf#1", "dd0293_p1-2.pdf#1", "dd0293_p1-2.pdf#2",
         "financial_statement.pdf#1"],
        ["sf424_page2.pdf#1", "va210966_p1.pdf#1"],
    ]  # fmt: skip


def test_stream_writes_what_one_document_at_a_time_writes(tmp_path: Path) -> None:
    docs = documents(["dd0293_p1-2.pdf", "census_12s0324.pdf"])
    stream_job = job_for(tmp_path / "a", FakeEngine(), CPU_SPEC, docs)
    list(stream_job.stream([stream_job.plan(d) for d in docs]))
    stream_job.finish()
    doc_job = job_for(tmp_path / "b", FakeEngine(), CPU_SPEC, docs)
    for doc in docs:
        list(doc_job.document(doc))
    doc_job.finish()
    a, b = tmp_path / "a" / "run", tmp_path / "b" / "run"
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.suffix in (".png", ".md"))
    assert len(files) >= 6
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.suffix in (".png", ".md"))
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)


def test_resume_leaves_finished_pages_out_of_the_stream(tmp_path: Path) -> None:
    docs = documents(["dd0293_p1-2.pdf", "census_12s0324.pdf"])
    job = job_for(tmp_path, FakeEngine(fail_keys=["dd0293_p1-2.pdf#2"]), CPU_SPEC, docs)
    assert run_documents(job, [job.plan(d) for d in docs]).status is RunStatus.PARTIAL
    engine = BatchRecorder()
    again = job_for(tmp_path, engine, CPU_SPEC, docs)
    outcome = run_documents(again, [again.plan(d) for d in docs])
    assert engine.batches == [["dd0293_p1-2.pdf#2"]]
    assert outcome.status is RunStatus.DONE and outcome.written == 1


def test_cancel_stops_the_stream_and_marks_the_run(tmp_path: Path) -> None:
    docs = documents(ONE_PAGE)
    job = job_for(tmp_path, FakeEngine(), CPU_SPEC, docs)
    written: list[int] = []
    outcome = run_documents(
        job,
        [job.plan(d) for d in docs],
        on_page=lambda i, _n, _r: written.append(i),
        cancelled=lambda: len(written) >= 2,
    )
    assert outcome.status is RunStatus.CANCELLED
    assert outcome.written == 2 and written == [1, 2]


class CountingPool:
    """A one-thread stand-in for the render pool that records the most pages submitted and
    not yet consumed (a future counts until its result is taken)."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(1)
        self.outstanding = 0
        self.most = 0
        self.lock = threading.Lock()

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        with self.lock:
            self.outstanding += 1
            self.most = max(self.most, self.outstanding)
        future = self.pool.submit(fn, *args)
        original = future.result

        def result(timeout: float | None = None) -> Any:
            with self.lock:
                self.outstanding -= 1
            return original(timeout)

        future.result = result  # type: ignore[method-assign]
        return future


def test_pages_ahead_are_bounded_across_documents_and_files_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pool = CountingPool()
    monkeypatch.setattr(feed, "worker_pool", lambda _workers: pool)
    made: list[str] = []
    real_mkstemp = feed.tempfile.mkstemp

    def mkstemp(**kwargs: Any) -> tuple[int, str]:
        fd, path = real_mkstemp(**kwargs)
        made.append(path)
        return fd, path

    monkeypatch.setattr(feed.tempfile, "mkstemp", mkstemp)
    docs = documents(ONE_PAGE)
    items = [(d, f"n{i}", [1]) for i, d in enumerate(docs)]
    stream = feed.prepare_plans(items, CPU_SPEC, 50, ahead=3, workers=2)
    first = next(stream)
    assert first.document == "n0" and pool.most == 3  # three documents rendering, no more
    assert len(made) == 4  # the first taken, the fourth document's page went in its place
    second = next(stream)
    assert second.document == "n1" and not Path(made[0]).exists()  # consumed: removed
    stream.close()  # stopped early: nothing left behind
    assert not any(Path(p).exists() for p in made)
    same = next(prepare_pages(docs[0], [1], CPU_SPEC, 50, workers=0))
    assert first.png == same.png  # the same bytes as one document's own preparation
    pool.pool.shutdown()


def test_the_batch_page_keeps_the_server_at_its_concurrency(tmp_path: Path) -> None:
    from workbench.pipeline.batch import run_batch
    from workbench.pipeline.request import RunRequest
    from workbench.runs.store import RunStore

    files = [(n, (DATA / n).read_bytes()) for n in ONE_PAGE[:4]]
    with FakeOpenAIServer(models=[MODEL], delay=0.4) as server:
        engine = VllmServerEngine(server.base_url, concurrency=4)
        try:
            store = RunStore(tmp_path / "store")
            out = run_batch(files, engine, get_spec(MODEL), store, "b", RunRequest())
        finally:
            engine.close()
    assert out.status == "done" and out.done == out.total == 4
    assert server.max_in_flight == 4  # one document at a time, it was 1


@pytest.mark.parametrize("workers", [0, 2])
def test_a_page_that_cannot_be_rendered_takes_its_place_and_the_stream_goes_on(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """``unreadable``: what the hook returns stands in the bad page's place (issue 25's
    UnreadablePage); without the hook the error is raised at that page's turn."""
    pool = CountingPool()
    monkeypatch.setattr(feed, "worker_pool", lambda _workers: pool)
    real_work, real_render = feed.work, feed.render

    def work(job: Any) -> Any:
        if job.name == "sf424_page2.pdf":
            return feed.Refused(job.name, "page 1 cannot be rendered (damaged)")
        return real_work(job)

    def render(doc: Document, index: int, *args: Any) -> Any:
        if doc.name == "sf424_page2.pdf":
            raise DocumentError(doc.name, "page 1 cannot be rendered (damaged)")
        return real_render(doc, index, *args)

    monkeypatch.setattr(feed, "work", work)
    monkeypatch.setattr(feed, "render", render)
    docs = documents(["census_12s0324.pdf", "sf424_page2.pdf", "va210966_p1.pdf"])
    items = [(d, f"n{i}", [1]) for i, d in enumerate(docs)]
    placed: list[tuple[str, int, str]] = []

    def unreadable(name: str, index: int, exc: Exception) -> PageImage:
        placed.append((name, index, str(exc)))
        return PageImage(name, index, Image.new("RGB", (1, 1)))

    pages = list(feed.prepare_plans(items, CPU_SPEC, 50, workers=workers, unreadable=unreadable))
    assert [p.document for p in pages] == ["n0", "n1", "n2"]
    assert pages[1].size == (1, 1) and pages[2].png is not None
    assert placed == [
        ("sf424_page2.pdf", 1, "sf424_page2.pdf: page 1 cannot be rendered (damaged)")
    ]
    with pytest.raises(DocumentError, match="damaged"):
        list(feed.prepare_plans(items, CPU_SPEC, 50, workers=workers))
    pool.pool.shutdown()
