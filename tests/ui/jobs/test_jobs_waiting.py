"""A page that waits on a real server is shown with its elapsed time and can be cancelled,
retried, stopped and resumed (issue 10.3), through the Viewer's worker (:class:`Board`).

The server is the real fake OpenAI server over HTTP; the engine is the real
:class:`VllmServerEngine`. Page 2 of a blank 3-page PDF is the only landscape page and its
completion is accepted and never answered ("stall"), so it stays in flight until cancelled.
"""

from __future__ import annotations

import hashlib
import io
import time
from collections.abc import Callable, Iterator
from typing import Any

import pypdfium2 as pdfium
import pytest

from tests.fakes.openai_server import DEFAULT_TEXT, FakeOpenAIServer, Reply, request_image
from workbench.documents import open_document
from workbench.engines.server.engine import VllmServerEngine
from workbench.models.registry import get_spec
from workbench.settings import Settings
from workbench.ui.jobs.records import Ask, DocAsk
from workbench.ui.jobs.worker import Board
from workbench.ui.results import ResultCache

SPEC = get_spec("lightonai/LightOnOCR-2-1B")
EKEY = "server-test"


def _pdf() -> bytes:
    pdf = pdfium.PdfDocument.new()
    for number in (1, 2, 3):
        pdf.new_page(*((792, 612) if number == 2 else (612, 792)))
    buf = io.BytesIO()
    pdf.save(buf)
    return buf.getvalue()


def _respond(body: dict[str, Any]) -> str | Reply:
    image = request_image(body)
    if image is not None and image.width > image.height:
        return Reply(DEFAULT_TEXT, fault="stall")
    return DEFAULT_TEXT


@pytest.fixture
def setup() -> Iterator[tuple[Board, Ask, DocAsk]]:
    data = _pdf()
    doc = open_document("hung.pdf", data, Settings())
    d = DocAsk(hashlib.sha256(data).hexdigest(), "hung.pdf", doc, (1, 2, 3))
    with FakeOpenAIServer(respond=_respond, delay=0.0) as server:
        engine = VllmServerEngine(server.base_url, idle_timeout=600, backoff=0.01)
        board = Board(ResultCache())
        ask = Ask(engine, SPEC, EKEY, 72.0, (d,), (d.sha256, 2), None)
        try:
            yield board, ask, d
        finally:
            board.stop("s")
            board.close()
            engine.close()


def _until(what: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_hung_page_is_listed_as_waiting_then_cancelled_and_retried(
    setup: tuple[Board, Ask, DocAsk],
) -> None:
    board, ask, d = setup
    board.ask("s", ask)
    _until(lambda: bool(board.progress("s").waiting))
    time.sleep(1.2)
    p = board.progress("s")
    [w] = p.waiting
    assert (w.name, w.sha256, w.page, w.tokens, w.attempt) == ("hung.pdf", d.sha256, 2, 0, 1)
    assert w.elapsed >= 1.0  # the time it has waited, growing
    _until(lambda: board.progress("s").done == 2)  # pages 1 and 3 are not held back by page 2
    assert board.progress("s").pending == 1

    board.cancel_page("s", d.sha256, 2)
    _until(lambda: board.progress("s").pending == 0, timeout=10)
    cache = board._cache
    failed = cache.get(d.sha256, 2, EKEY)
    assert failed is not None and failed.error == "cancelled by the user"
    assert board.progress("s").waiting == ()

    board.retry_page("s", d.sha256, 2, EKEY)  # sent again: it hangs again, and is listed again
    assert not cache.has(d.sha256, 2, EKEY)
    _until(lambda: [w.page for w in board.progress("s").waiting] == [2])
    assert board.progress("s").pending == 1


def test_stop_ends_the_pages_in_flight_and_resume_takes_them_up(
    setup: tuple[Board, Ask, DocAsk],
) -> None:
    board, ask, _ = setup
    board.ask("s", ask)
    _until(lambda: bool(board.progress("s").waiting))
    board.stop("s")
    _until(lambda: not board.progress("s").waiting, timeout=10)  # the call ended at once
    assert board.wait_idle(10)
    p = board.progress("s")
    assert p.stopped and p.pending == 0 and p.left >= 1
    board.resume("s")
    _until(lambda: board.progress("s").done == 3 or bool(board.progress("s").waiting))
    assert not board.progress("s").stopped
    _until(lambda: [w.page for w in board.progress("s").waiting] == [2])
