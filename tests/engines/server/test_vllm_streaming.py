"""The server engine asks vLLM for 16 tokens an event with the running token count, falls back
to a plain OpenAI stream when a server refuses those fields, and counts progress in tokens.
Against the fake server over real HTTP, streaming as vLLM 0.33 does (``vllm_streaming``)."""

from __future__ import annotations

import threading
import time

from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from workbench.engines.base import PageRequest
from workbench.engines.messages import STREAM_INTERVAL
from workbench.engines.server.engine import VllmServerEngine
from workbench.schema import Sampling

TEXT = "".join(f"w{i:03d}" for i in range(100))  # 100 tokens of 4 characters, no loop


def _page(i: int) -> PageRequest:
    image = Image.new("RGB", (100 + i, 60), "white")
    return PageRequest(key=f"doc.pdf#{i}", image=image, sampling=Sampling(max_tokens=500))


def test_vllm_sends_16_tokens_an_event_and_the_answer_is_whole() -> None:
    with FakeOpenAIServer(respond=lambda body: Reply(TEXT, chunk_chars=4)) as server:
        server.vllm_streaming = True
        engine = VllmServerEngine(server.base_url, concurrency=2)
        outs = list(engine.run([_page(i) for i in range(3)]))
        engine.close()
    assert all(o.ok and o.raw == TEXT and o.tokens == 100 for o in outs)
    body = server.requests[0]
    assert body["stream_interval"] == STREAM_INTERVAL == 16
    assert body["stream_options"] == {"include_usage": True, "continuous_usage_stats": True}
    assert server.events == [7, 7, 7]  # 100 tokens in ceil(100 / 16) events, not 100


def test_a_server_refusing_vllms_fields_gets_a_plain_stream_and_no_page_fails() -> None:
    with FakeOpenAIServer(respond=lambda body: Reply(TEXT, chunk_chars=4)) as server:
        server.strict = True
        engine = VllmServerEngine(server.base_url, concurrency=1)
        outs = list(engine.run([_page(i) for i in range(3)]))
        engine.close()
    assert all(o.ok and o.raw == TEXT for o in outs), [o.error for o in outs]
    assert all(len(o.attempts) == 1 and o.attempts[0].error is None for o in outs)
    assert "stream_interval" in server.requests[0]  # refused once, with a 400...
    assert len(server.requests) == 4  # ...then the same page again, and never again after
    assert all("stream_interval" not in b for b in server.requests[1:])
    assert all(b["stream_options"] == {"include_usage": True} for b in server.requests[1:])
    assert server.events == [100, 100, 100]  # an event a token: the plain OpenAI stream


def test_progress_counts_tokens_not_events() -> None:
    stalled = Reply(TEXT, chunk_chars=4, fault="stall", after=2)
    with FakeOpenAIServer(outputs=[stalled]) as server:
        server.vllm_streaming = True
        engine = VllmServerEngine(server.base_url, idle_timeout=30)
        outs: list = []
        worker = threading.Thread(target=lambda: outs.extend(engine.run([_page(0)])))
        worker.start()
        deadline = time.monotonic() + 10
        progress: list = []
        while time.monotonic() < deadline and not (progress and progress[0].tokens):
            time.sleep(0.05)
            progress = engine.in_flight()
        engine.cancel(["doc.pdf#0"])
        worker.join(10)
        engine.close()
    assert progress and progress[0].tokens == 2 * STREAM_INTERVAL  # two events of 16 tokens
    assert len(outs) == 1 and not outs[0].ok
