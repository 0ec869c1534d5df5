"""The Viewer's worker on the shared in-process vLLM engine (the real
:class:`~workbench.engines.vllm_local.VllmLocalEngine` on :mod:`tests.fakes.fake_vllm`):
sessions are in the engine at once, so a one-page scan is not queued behind another session's
long PDF, and a long PDF's pages show as they finish."""

from __future__ import annotations

import hashlib
import sys
import time
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.fakes import fake_vllm as fv
from tests.fakes.fake_vllm import FakeLLM
from workbench.documents import open_document
from workbench.engines.vllm_local import VllmLocalEngine
from workbench.models.registry import get_spec
from workbench.settings import Settings
from workbench.ui.jobs.records import Ask, DocAsk
from workbench.ui.jobs.worker import Board
from workbench.ui.results import ResultCache

DATA = Path(__file__).resolve().parents[3] / "tests" / "data"
SPEC = get_spec(fv.MODEL)


def _pdf(tmp_path: Path, name: str, pages: int) -> DocAsk:
    """``pages`` copies of the first page of a real PDF from tests/data."""
    source = pdfium.PdfDocument(str(DATA / "pdflatex_outline.pdf"))
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.import_pages(source, [0])
    path = tmp_path / name
    pdf.save(str(path))
    data = path.read_bytes()
    doc = open_document(name, data, Settings())
    return DocAsk(hashlib.sha256(data).hexdigest(), name, doc, tuple(range(1, pages + 1)))


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> VllmLocalEngine:
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setattr(FakeLLM, "tokens", 20)
    monkeypatch.setattr(FakeLLM, "step_s", 0.01)  # 0.2 s a page, 4 pages at once
    engine = VllmLocalEngine(fv.MODEL, {"max_num_seqs": 4})
    yield engine
    engine.close()


def _ask(engine: VllmLocalEngine, d: DocAsk) -> Ask:
    return Ask(engine, SPEC, "vllm-shared", 72.0, (d,), (d.sha256, 1), None)


def test_a_second_sessions_page_is_not_queued_behind_a_long_pdf(
    engine: VllmLocalEngine, tmp_path: Path
) -> None:
    long, short = _pdf(tmp_path, "long.pdf", 40), _pdf(tmp_path, "scan.pdf", 1)
    board = Board(ResultCache())
    try:
        board.ask("s1", _ask(engine, long))
        deadline = time.monotonic() + 60
        while board.progress("s1").done < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        first = board.progress("s1")
        assert 1 <= first.done < 40  # the first page shows while the others are in the engine
        board.ask("s2", _ask(engine, short))
        while board.progress("s2").done < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert board.progress("s2").done == 1
        long_done = board.progress("s1").done
        assert long_done < 40 - 8  # s2's page was not behind s1's remaining pages
        assert board.wait_idle(60)
        assert board.progress("s1").done == 40
    finally:
        board.close()
