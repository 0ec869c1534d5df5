"""VllmServerEngine end to end against a real HTTP server (tests/fakes/openai_server.py)."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest
from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer, Reply, request_image, request_prompt
from workbench.engines.base import Engine, PageRequest
from workbench.engines.server.engine import VllmServerEngine, normalize_base_url
from workbench.errors import EngineUnavailable
from workbench.schema import Sampling


def _page(i: int, **kw: Any) -> PageRequest:
    # Each page has its own width, so the server can tell which page it was sent.
    image = Image.new("RGB", (100 + i, 60), (255, 255, 255))
    return PageRequest(key=f"doc.pdf#{i}", image=image, prompt="OCR this page.", **kw)


def _by_width(body: dict[str, Any]) -> str:
    image = request_image(body)
    assert image is not None
    return f"page of width {image.width}"


def _engine(server: FakeOpenAIServer, **kw: Any) -> VllmServerEngine:
    kw.setdefault("backoff", 0.01)
    return VllmServerEngine(server.base_url, **kw)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_pages_come_back_matched_by_key() -> None:
    with FakeOpenAIServer(respond=_by_width, delay=0.02) as server:
        engine = _engine(server, concurrency=8)
        assert isinstance(engine, Engine)
        outputs = {o.key: o for o in engine.run([_page(i) for i in range(20)])}
    assert len(outputs) == 20
    for i in range(20):
        out = outputs[f"doc.pdf#{i}"]
        assert out.ok, out.error
        assert out.raw == f"page of width {100 + i}"
        assert out.finish_reason == "stop"
        assert len(out.attempts) == 1 and out.tokens > 0
    assert engine.model == "fake/ocr-model"  # the first served model


@pytest.mark.parametrize("concurrency", [1, 6])
def test_concurrency_is_what_was_asked(concurrency: int) -> None:
    with FakeOpenAIServer(delay=0.15) as server:
        engine = _engine(server, concurrency=concurrency)
        outputs = list(engine.run([_page(i) for i in range(2 * concurrency + 1)]))
        assert all(o.ok for o in outputs)
        assert server.max_in_flight == concurrency


def test_request_body_carries_image_prompt_and_sampling() -> None:
    sampling = Sampling(
        temperature=0.2, top_p=0.9, max_tokens=1234, repetition_penalty=1.05, extra={"top_k": 20}
    )
    request = PageRequest(
        key="a",
        image=Image.new("RGB", (64, 48), "white"),
        prompt="Read it.",
        system="You are an OCR model.",
        sampling=sampling,
        chat_template_kwargs={"enable_thinking": False},
    )
    with FakeOpenAIServer(models=["m1", "m2"]) as server:
        engine = _engine(server, model="m2")
        [out] = list(engine.run([request]))
        body = server.requests[0]
    assert out.ok
    assert body["model"] == "m2"
    assert body["messages"][0] == {"role": "system", "content": "You are an OCR model."}
    url = body["messages"][1]["content"][0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    image = request_image(body)
    assert image is not None and image.size == (64, 48)
    assert request_prompt(body) == "Read it."
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.2, 0.9, 1234)
    assert body["repetition_penalty"] == 1.05 and body["top_k"] == 20
    assert body["chat_template_kwargs"] == {"enable_thinking": False}


def test_image_only_request_sends_no_text_part() -> None:
    with FakeOpenAIServer() as server:
        list(_engine(server).run([PageRequest(key="a", image=Image.new("L", (10, 10)))]))
        content = server.requests[0]["messages"][0]["content"]
    assert [part["type"] for part in content] == ["image_url"]


def test_server_down_gives_an_actionable_error_per_page() -> None:
    engine = VllmServerEngine(f"127.0.0.1:{_free_port()}", model="m", backoff=0.01, retries=2)
    outputs = list(engine.run([_page(i) for i in range(3)]))
    assert sorted(o.key for o in outputs) == [f"doc.pdf#{i}" for i in range(3)]
    for out in outputs:
        assert not out.ok
        assert f"cannot reach {engine.base_url}" in (out.error or "")
        assert "vllm serve" in (out.error or "")


def test_server_down_without_model_errors_each_page_too() -> None:
    engine = VllmServerEngine(f"http://127.0.0.1:{_free_port()}", backoff=0.01)
    outputs = list(engine.run([_page(1), _page(2)]))
    assert [bool(o.error and "is `vllm serve` running?" in o.error) for o in outputs] == [1, 1]


def test_server_stopped_mid_document() -> None:
    server = FakeOpenAIServer().start()
    engine = _engine(server, retries=2, reconnect_wait=1.5)
    [first] = list(engine.run([_page(0)]))
    server.stop()
    started = time.monotonic()
    [second] = list(engine.run([_page(1)]))
    waited = time.monotonic() - started
    assert first.ok and not second.ok
    assert "cannot reach" in (second.error or "")
    assert 1.5 <= waited < 10  # it waited for a restart, within the bound
    started = time.monotonic()
    [third] = list(engine.run([_page(2)]))  # the outage is known: no second wait
    assert "cannot reach" in (third.error or "") and time.monotonic() - started < 1.5


def test_500_twice_then_ok_is_retried() -> None:
    with FakeOpenAIServer(outputs=["recovered"]) as server:
        server.fail_next(2, status=500)
        [out] = list(_engine(server, retries=3).run([_page(0)]))
        assert server.completions == 3
    assert out.ok and out.raw == "recovered"


def test_500_more_than_retries_fails_the_page_only() -> None:
    with FakeOpenAIServer() as server:
        server.fail_next(3, status=503)
        engine = _engine(server, retries=3, concurrency=1)
        outputs = {o.key: o for o in engine.run([_page(0), _page(1)])}
    assert "server error 503" in (outputs["doc.pdf#0"].error or "")
    assert "tried 3 times" in (outputs["doc.pdf#0"].error or "")
    assert outputs["doc.pdf#1"].ok


def test_unknown_model_lists_served_models() -> None:
    with FakeOpenAIServer(models=["a/one", "b/two"]) as server:
        engine = _engine(server, model="c/three")
        [out] = list(engine.run([_page(0)]))
        status = engine.check()
        with pytest.raises(EngineUnavailable, match="served models: a/one, b/two"):
            engine.connect()
    assert out.error == "server answered 404 for model c/three; served models: a/one, b/two"
    assert "served models: a/one, b/two" in status


def test_loop_then_clean_records_two_attempts_with_hotter_temperature() -> None:
    hot = Sampling(temperature=0.3, top_p=0.95)
    with FakeOpenAIServer() as server:
        server.loop = True
        [out] = list(_engine(server).run([_page(0, retry_sampling=(hot,))]))
        temperatures = [body["temperature"] for body in server.requests]
    assert temperatures == [0.0, 0.3]
    assert [a.repeated for a in out.attempts] == [True, False]
    assert [a.temperature for a in out.attempts] == [0.0, 0.3]
    assert out.attempts[0].finish_reason == "length"
    assert out.ok and out.finish_reason == "stop" and "|" not in out.raw


def test_every_attempt_looping_keeps_the_last_output() -> None:
    schedule = (Sampling(temperature=0.3), Sampling(temperature=0.5))
    with FakeOpenAIServer(outputs=[Reply("ab" * 300, "length")] * 3) as server:
        [out] = list(_engine(server).run([_page(0, retry_sampling=schedule)]))
        assert server.completions == 3
    assert out.ok and out.raw == "ab" * 300
    assert [a.repeated for a in out.attempts] == [True, True, True]
    assert [a.temperature for a in out.attempts] == [0.0, 0.3, 0.5]


def test_api_key_is_sent() -> None:
    with FakeOpenAIServer(api_key="sekret") as server:
        assert "401" in VllmServerEngine(server.base_url).check()
        engine = VllmServerEngine(server.base_url, api_key="sekret")
        assert engine.check().startswith(f"connected to {server.base_url}")
        assert all(o.ok for o in engine.run([_page(0)]))


def test_check_never_raises_and_connect_raises_when_asked() -> None:
    url = f"http://127.0.0.1:{_free_port()}/v1"
    engine = VllmServerEngine(url)
    assert engine.check() == f"cannot reach {url} — is `vllm serve` running?"
    with pytest.raises(EngineUnavailable, match="vllm serve"):
        VllmServerEngine(url, connect=True)


def test_close_is_idempotent_and_engine_reusable() -> None:
    with FakeOpenAIServer() as server:
        engine = _engine(server)
        [out] = list(engine.run([_page(0)]))
        assert out.ok
        engine.close()
        engine.close()
        [out] = list(engine.run([_page(1)]))
        assert out.ok
        engine.close()


def test_stopping_early_cancels_queued_pages() -> None:
    with FakeOpenAIServer(delay=0.1) as server:
        engine = _engine(server, concurrency=2)
        outputs = engine.run([_page(i) for i in range(20)])
        next(outputs)
        outputs.close()  # the consumer (cancel button) stops iterating
        sent = server.completions
    assert sent < 20


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000/v1"),
        ("http://h:8000/", "http://h:8000/v1"),
        ("https://h/v1/", "https://h/v1"),
        ("http://h/openai/v1", "http://h/openai/v1"),
    ],
)
def test_normalize_base_url(given: str, expected: str) -> None:
    assert normalize_base_url(given) == expected


@pytest.mark.parametrize(("color", "mode"), [((90, 90, 90), "L"), ((200, 30, 30), "RGB")])
def test_page_pixels_arrive_unchanged(color: tuple[int, int, int], mode: str) -> None:
    image = Image.new("RGB", (40, 30), "white")
    image.paste(color, (5, 5, 20, 20))
    with FakeOpenAIServer() as server:
        list(_engine(server).run([PageRequest(key="a", image=image)]))
        sent = request_image(server.requests[0])
    assert sent is not None and sent.mode == mode  # gray pages travel as 8-bit gray PNG
    assert sent.convert("RGB").tobytes() == image.tobytes()


def test_fake_server_runs_as_a_script(tmp_path: Any) -> None:
    import subprocess
    import sys
    import time

    import httpx

    replay = tmp_path / "page.md"
    replay.write_text("# Replayed page\n", encoding="utf-8")
    port = _free_port()
    command = [sys.executable, "-m", "tests.fakes.openai_server", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--delay", "0", "--model", "org/m", "--replay", str(replay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert f"127.0.0.1:{port}/v1" in process.stdout.readline()
        engine = VllmServerEngine(f"127.0.0.1:{port}", backoff=0.05)
        for _ in range(50):  # the banner is printed just before serving starts
            if engine.check().startswith("connected"):
                break
            time.sleep(0.1)
        [out] = list(engine.run([_page(0)]))
        stats = httpx.get(f"http://127.0.0.1:{port}/fake/stats").json()
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert engine.model == "org/m"
    assert out.ok and out.raw == "# Replayed page\n"
    assert stats["completions"] == 1 and stats["max_in_flight"] == 1


def test_wrong_base_path_is_not_blamed_on_the_model() -> None:
    with FakeOpenAIServer() as server:
        engine = VllmServerEngine(server.base_url.replace("/v1", "/api/v1"), model="m")
        [out] = list(engine.run([_page(0)]))
    assert "is the base URL right?" in (out.error or "")


# ---------------------------------------------------------------- faults (issue 10 items 3, 5)


def _timed(engine: VllmServerEngine, requests: list[PageRequest]) -> dict[str, Any]:
    """Outputs by key, with the order they came in and seconds since the start."""
    start = time.monotonic()
    got: dict[str, Any] = {}
    for out in engine.run(requests):
        got[out.key] = (out, len(got), time.monotonic() - start)
    return got


def test_a_server_that_never_answers_fails_the_page_after_the_idle_timeout() -> None:
    with FakeOpenAIServer() as server:
        server.hang = True  # accepts the request, never sends a byte
        engine = _engine(server, idle_timeout=0.5, retries=3)
        got = _timed(engine, [_page(0)])
        assert server.completions == 1  # a timeout is not retried: it would hang again
    out, _, seconds = got["doc.pdf#0"]
    assert seconds < 4, "the default 600 s × 3 tries must not apply"
    assert out.error == (
        "timed out: no answer within 0.5 s and no progress on any other page meanwhile "
        "— is the server hung?"
    )


def test_a_hung_page_waits_while_others_flow_and_never_holds_them_back() -> None:
    def respond(body: dict[str, Any]) -> Reply:
        image = request_image(body)
        assert image is not None
        if image.width == 100:  # page 0: headers, then nothing
            return Reply("never", fault="stall", after=0)
        return Reply("x" * 80, chunk_chars=4, token_delay=0.03)  # 20 tokens over 0.6 s

    with FakeOpenAIServer(respond=respond) as server:
        engine = _engine(server, concurrency=2, idle_timeout=1.0)
        got = _timed(engine, [_page(i) for i in range(7)])
    hung, order, seconds = got["doc.pdf#0"]
    assert all(got[f"doc.pdf#{i}"][0].ok for i in range(1, 7))
    assert order == 6, "every other page came out before the hung one"
    last_other = max(got[f"doc.pdf#{i}"][2] for i in range(1, 7))
    # It waited while the server streamed other pages (queued behind busy pages is not hung),
    # then failed about idle_timeout after the server's last progress.
    assert last_other > 2.5
    assert last_other + 0.8 < seconds < last_other + 4.0  # idle 1 s + watchdog, loaded CI
    assert "no progress on any other page" in (hung.error or "")


def test_silence_mid_answer_is_an_idle_timeout_with_the_tokens_so_far() -> None:
    with FakeOpenAIServer(outputs=[Reply("abcd" * 50, fault="stall", after=3)]) as server:
        got = _timed(_engine(server, idle_timeout=0.4), [_page(0)])
        assert server.completions == 1
    out, _, seconds = got["doc.pdf#0"]
    assert out.error == "timed out: the server sent nothing for 0.4 s mid-answer (after 3 tokens)"
    assert seconds < 4


def test_slow_but_steady_tokens_finish_even_when_the_whole_answer_outlasts_idle() -> None:
    with FakeOpenAIServer(outputs=[Reply("ab" * 40, chunk_chars=2, token_delay=0.03)]) as server:
        got = _timed(_engine(server, idle_timeout=0.5), [_page(0)])
    out, _, seconds = got["doc.pdf#0"]
    assert out.ok and out.raw == "ab" * 40 and seconds > 1.0
    assert out.tokens == 20  # the usage chunk's count (80 chars / 4)


def test_a_trickle_is_stopped_by_the_page_budget() -> None:
    # One token every 0.2 s never trips the idle timeout; the budget (timeout) does.
    trickle = Reply("z" * 400, chunk_chars=1, token_delay=0.2)
    with FakeOpenAIServer(outputs=[trickle]) as server:
        got = _timed(_engine(server, timeout=1.5, idle_timeout=1.0), [_page(0)])
    out, _, seconds = got["doc.pdf#0"]
    assert (out.error or "").startswith("timed out after 1.5 s, the page's time budget")
    assert seconds < 5


def test_page_budget_fits_max_tokens() -> None:
    from workbench.engines.server.calls import page_budget

    assert page_budget(800, cap=600) == 60 + 100  # 800 tokens at 8 tokens/s + 60 s
    assert page_budget(16_384, cap=600) == 600


def test_connection_closed_mid_answer_is_reported_as_such_and_retried() -> None:
    with FakeOpenAIServer(respond=lambda body: Reply("a" * 100, fault="close", after=5)) as server:
        [out] = list(_engine(server, retries=3).run([_page(0)]))
        assert server.completions == 3
    assert out.error == (
        "the server closed the connection mid-answer (after 5 tokens) — it may have crashed or "
        "restarted; see its log (tried 3 times)"
    )
    assert "cannot reach" not in out.error


def test_connection_closed_before_any_answer_is_not_blamed_on_a_missing_server() -> None:
    with FakeOpenAIServer(outputs=[Reply("", fault="drop")] * 2) as server:
        [out] = list(_engine(server, retries=2).run([_page(0)]))
    assert (out.error or "").startswith("the server closed the connection without answering")


def test_then_recovers_after_a_lost_connection() -> None:
    replies = [Reply("a" * 100, fault="close", after=2), Reply("fine")]
    with FakeOpenAIServer(outputs=replies) as server:
        [out] = list(_engine(server, retries=3).run([_page(0)]))
        assert server.completions == 2
    assert out.ok and out.raw == "fine"


def test_http_error_status_is_its_own_message() -> None:
    with FakeOpenAIServer() as server:
        server.fail_next(2, status=500)
        [out] = list(_engine(server, retries=2).run([_page(0)]))
    assert out.error == "server error 500: fake failure (tried 2 times)"


@pytest.mark.parametrize("stream", [True, False])
def test_malformed_answer_is_its_own_message(stream: bool) -> None:
    with FakeOpenAIServer(outputs=[Reply("abc", fault="malformed", after=2)]) as server:
        server.ignore_stream = not stream
        [out] = list(_engine(server, retries=3).run([_page(0)]))
        assert server.completions == 1  # the same server would say the same again
    error = out.error or ""
    assert error.startswith("the server's stream event is not JSON" if stream else "the server's")
    assert "not JSON" in error and "cannot reach" not in error


def test_a_server_that_ignores_stream_still_works() -> None:
    with FakeOpenAIServer(outputs=["# plain JSON answer"]) as server:
        server.ignore_stream = True
        [out] = list(_engine(server).run([_page(0)]))
    assert out.ok and out.raw == "# plain JSON answer" and out.tokens > 0


def test_a_huge_answer_arrives_whole_and_fast() -> None:
    huge = "| cell | cell |\n" * 330_000  # about 5 MB
    with FakeOpenAIServer(outputs=[huge]) as server:
        got = _timed(_engine(server), [_page(0)])
    out, _, seconds = got["doc.pdf#0"]
    assert out.ok and out.raw == huge
    assert seconds < 10


def test_an_endless_stream_is_cut_at_max_tokens() -> None:
    endless = Reply("la ", chunk_chars=3, fault="endless")
    request = _page(0, sampling=Sampling(max_tokens=50))
    with FakeOpenAIServer(outputs=[endless]) as server:
        got = _timed(_engine(server), [request])
        assert server.completions == 1
    out, _, seconds = got["doc.pdf#0"]
    assert out.finish_reason == "length" and seconds < 5
    assert len(out.raw) <= 3 * (50 + 17)


def test_in_flight_lists_waiting_pages_and_cancel_stops_one_at_once() -> None:
    def respond(body: dict[str, Any]) -> Reply:
        image = request_image(body)
        assert image is not None
        if image.width == 100:
            return Reply("never", fault="stall", after=0)
        return Reply("y" * 40, chunk_chars=4, token_delay=0.05)

    with FakeOpenAIServer(respond=respond) as server:
        engine = _engine(server, concurrency=4, idle_timeout=30)
        outputs = engine.run([_page(i) for i in range(3)])
        first = next(outputs)
        assert first.ok and first.key != "doc.pdf#0"
        [waiting] = [p for p in engine.in_flight() if p.key == "doc.pdf#0"]
        assert waiting.waiting and waiting.attempt == 1 and waiting.elapsed > 0.3
        assert abs(waiting.started_at + waiting.elapsed - time.time()) < 0.5
        rest = list(outputs)  # the other page finishes; then nothing is left but page 0 ...
        assert [o.key for o in rest][:1] == [
            "doc.pdf#1" if first.key == "doc.pdf#2" else "doc.pdf#2"
        ]
        pending = engine.run([_page(0)])
        started = time.monotonic()
        timer = threading.Timer(0.5, engine.cancel, args=(["doc.pdf#0"],))
        timer.start()
        [cancelled] = list(pending)
        assert cancelled.error == "cancelled by the user"
        assert 0.4 < time.monotonic() - started < 3.0
        assert engine.in_flight() == []


def test_cancel_all_ends_every_page_in_flight_and_queued() -> None:
    with FakeOpenAIServer() as server:
        server.hang = True
        engine = _engine(server, concurrency=2, idle_timeout=30)
        threading.Timer(0.4, engine.cancel).start()
        got = _timed(engine, [_page(i) for i in range(5)])
        assert server.completions == 2  # the queued three were never sent
    assert {out.error for out, _, _ in got.values()} == {"cancelled by the user"}
    assert max(seconds for _, _, seconds in got.values()) < 3.0


def test_a_port_that_accepts_and_closes_is_not_called_unreachable() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    def serve() -> None:
        for _ in range(4):  # accept, read a little, hang up without a byte of HTTP
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connection.recv(1024)
            connection.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        status = VllmServerEngine(f"127.0.0.1:{port}").check()
    finally:
        listener.close()
    assert status == (
        f"http://127.0.0.1:{port}/v1 closed the connection without answering /models — is this "
        "an OpenAI-compatible server?"
    )


def test_cli_against_a_hung_server_ends_in_seconds_with_a_timeout_line(tmp_path: Any) -> None:
    import subprocess
    import sys

    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    pdf.new_page(300, 400)
    pdf.save(str(tmp_path / "doc.pdf"))
    model = "lightonai/LightOnOCR-2-1B"
    with FakeOpenAIServer(models=[model]) as server:
        server.hang = True
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "ocr", str(tmp_path / "doc.pdf"),
             "--out", str(tmp_path / "out"), "--engine", "vllm-server",
             "--base-url", server.base_url, "--quiet"],
            capture_output=True, text=True, timeout=120,
            env={**__import__("os").environ, "WORKBENCH_IDLE_TIMEOUT": "1"},
        )  # fmt: skip
        seconds = time.monotonic() - started
    assert done.returncode != 0, done.stderr
    assert "timed out: no answer within 1 s" in done.stderr
    assert "cannot reach" not in done.stderr
    assert seconds < 30


# ---------------------------------------------------------------------- answers that are not
# answers (issue 31.3): each named for what it is, none ever an ``ok`` page


def test_a_stream_of_only_done_is_an_empty_answer_not_ok() -> None:
    with FakeOpenAIServer(outputs=[Reply("", fault="done_only")] * 3) as server:
        [out] = list(_engine(server, retries=3).run([_page(0)]))
    assert not out.ok
    assert (out.error or "").startswith("empty answer:"), out.error


def test_a_stream_without_a_finish_reason_is_named_so() -> None:
    text = "one two three four five six seven"
    replies = [Reply(text, fault="no_finish", after=7, chunk_chars=5)] * 3
    with FakeOpenAIServer(outputs=replies) as server:
        [out] = list(_engine(server, retries=3).run([_page(0)]))
    error = out.error or ""
    assert not out.ok
    assert "the stream ended without a finish reason" in error, error
    assert "max_tokens" not in error and "after 7 tokens" in error


@pytest.mark.parametrize("stream", [True, False])
def test_binary_in_a_200_is_not_a_chat_completion(stream: bool) -> None:
    with FakeOpenAIServer(outputs=[Reply("", fault="binary")]) as server:
        server.ignore_stream = not stream
        [out] = list(_engine(server, retries=3).run([_page(0)]))
        assert server.completions == 1  # the same server would say the same again
    error = out.error or ""
    assert "not a chat completion" in error, error
    assert "closed the connection" not in error and "crashed" not in error
