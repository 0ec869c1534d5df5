"""The server engine learns which vLLM it talks to (issue 21): ``GET /version``, or the stream's
own behaviour, and stops sending ``stream_interval`` to a vLLM that ignores it (0.26: one
token an event whatever was asked). Against the fake server over real HTTP, streaming as vLLM
does, answering as 0.26 (``ignore_interval``) or 0.33."""

from __future__ import annotations

from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from workbench.engines.base import PageRequest
from workbench.engines.server.engine import VllmServerEngine
from workbench.engines.server.info import honours_interval, parse_version, server_root
from workbench.schema import Sampling

TEXT = "".join(f"w{i:03d}" for i in range(100))  # 100 tokens of 4 characters, no loop
SHORT = "w001w002"  # 2 tokens: too short to tell anything


def _page(i: int) -> PageRequest:
    image = Image.new("RGB", (100 + i, 60), "white")
    return PageRequest(key=f"doc.pdf#{i}", image=image, sampling=Sampling(max_tokens=500))


def _run(server: FakeOpenAIServer, pages: int) -> tuple[VllmServerEngine, list]:
    engine = VllmServerEngine(server.base_url, concurrency=1)
    try:
        outs = list(engine.run([_page(i) for i in range(pages)]))
    finally:
        engine.close()
    assert all(o.ok and o.tokens in (100, 2) for o in outs), [o.error for o in outs]
    return engine, outs


def _server(version: str | None, ignore: bool, texts: list[str] | None = None) -> FakeOpenAIServer:
    queue = [Reply(t, chunk_chars=4) for t in texts or []]
    server = FakeOpenAIServer(queue, respond=lambda body: Reply(TEXT, chunk_chars=4))
    server.vllm_streaming, server.version, server.ignore_interval = True, version, ignore
    return server


def test_vllm_026_by_its_version_is_never_sent_the_field_it_ignores() -> None:
    with _server("0.26.0", ignore=True) as server:
        engine, outs = _run(server, 3)
    assert all(o.raw == TEXT for o in outs)
    assert engine.server.version == "0.26.0" and engine.server.interval_ignored is True
    assert all("stream_interval" not in b for b in server.requests)
    # the running token count is still asked for: progress reads tokens, not events
    assert all(b["stream_options"]["continuous_usage_stats"] for b in server.requests)
    assert engine.server.describe() == "vLLM 0.26.0, stream_interval ignored"


def test_vllm_033_by_its_version_gets_16_tokens_an_event() -> None:
    with _server("0.33.0", ignore=False) as server:
        engine, _ = _run(server, 3)
    assert engine.server.interval_ignored is False
    assert all(b["stream_interval"] == 16 for b in server.requests)
    assert server.events == [7, 7, 7]


def test_an_unknown_server_that_ignores_the_field_is_found_out_by_its_stream() -> None:
    # no /version (a proxy in front of vLLM 0.26): the first long answer gives it away
    with _server(None, ignore=True, texts=[SHORT]) as server:
        engine, _ = _run(server, 4)
    assert engine.server.version is None and engine.server.interval_ignored is True
    sent = ["stream_interval" in b for b in server.requests]
    assert sent == [True, True, False, False]  # a 2-token answer told nothing; 100 did
    assert server.events == [2, 100, 100, 100]


def test_an_unknown_server_that_honours_the_field_keeps_it() -> None:
    with _server(None, ignore=False) as server:
        engine, _ = _run(server, 3)
    assert engine.server.interval_ignored is False
    assert all("stream_interval" in b for b in server.requests)
    assert server.events == [7, 7, 7]


def test_versions_and_roots() -> None:
    assert parse_version("0.26.0") == (0, 26) and parse_version("0.33.1rc2+cu130") == (0, 33)
    assert parse_version("dev") is None and parse_version(None) is None
    assert honours_interval("0.26.0") is False and honours_interval("0.33.0") is True
    assert honours_interval("0.30.2") is None and honours_interval(None) is None
    assert server_root("http://h:8000/v1") == "http://h:8000"
    assert server_root("https://h/proxy/v1/") == "https://h/proxy"
