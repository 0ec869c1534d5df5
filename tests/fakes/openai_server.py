"""A real OpenAI-compatible HTTP server for tests, benchmarks and manual UI work.

Speaks the subset of the protocol the workbench uses, on a stdlib ``ThreadingHTTPServer``
bound to 127.0.0.1 (port 0 = any free port):

* ``GET /v1/models`` lists the served models;
* ``POST /v1/chat/completions`` answers with the next reply: popped from ``outputs`` (a
  queue), or computed by ``respond(body) -> str | Reply``, or a default page text. A
  ``model`` that is not served gets vLLM's 404 body. With ``"stream": true`` the reply is
  sent as vLLM does: an event stream (``data: {chunk}`` lines, HTTP chunked, ``data: [DONE]``),
  a usage chunk last when ``stream_options.include_usage`` is set.

Faults, per reply (:class:`Reply` ``status``: an HTTP error with ``text`` as its message;
``fault`` after ``after`` streamed chunks): ``"close"``
closes the connection mid-answer, ``"stall"`` goes silent with the connection open (until the
server stops), ``"malformed"`` sends a line that is not JSON (a broken JSON body when not
streaming), ``"endless"`` streams past ``max_tokens`` forever (until the client leaves),
``"drop"`` reads the request and closes without answering, ``"done_only"`` streams nothing
but ``data: [DONE]``, ``"no_finish"`` ends the stream with ``[DONE]`` after ``after`` chunks
and no finish reason, ``"binary"`` answers 200 ``text/event-stream`` with 64 KiB of random
bytes (``"malformed"``/``"binary"`` without streaming: a broken or binary JSON body);
``token_delay`` slows each chunk.

Knobs (attributes, safe to change while it runs): ``delay`` seconds per request,
``fail_next(n, status)`` answers the next ``n`` completions with an error status,
``hang`` makes completions wait until the server stops, ``loop`` answers a looping text
(``finish_reason="length"``) whenever ``temperature`` is 0 and a clean one otherwise,
``api_key`` demands ``Authorization: Bearer <key>``, ``vllm_streaming`` sends a streamed
reply's pieces (its tokens) ``stream_interval`` to an event with the running usage in each,
as vLLM 0.33 does, and ``strict`` answers 400 to vLLM's streaming fields, as OpenAI's API.
It records every completion body in ``requests``, the content events of each streamed reply
in ``events``, and the most completions ever in flight at once in ``max_in_flight``;
``GET /fake/stats`` returns those counts as JSON (for a server run as a subprocess).
``vllm_metrics`` (a :class:`~tests.fakes.vllm_metrics.VllmMetrics`; ``--vllm-metrics``)
serves vLLM's ``/metrics`` that move with the work: completions in flight are running (past
``max_running``: waiting), each holds 1,100 tokens of KV cache, and each completion ends
there with its finish reason, 1,000 prompt tokens, a token per 4 characters and its time.

Use it as a context manager (``with FakeOpenAIServer() as server: server.base_url``) or as a
script: ``python -m tests.fakes.openai_server --port 8000 --delay 0.5 [--replay out.md ...]``.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import random
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from PIL import Image

from tests.fakes.vllm_metrics import VllmMetrics

DEFAULT_MODEL = "fake/ocr-model"
DEFAULT_TEXT = "# A page\n\nText read by the fake OCR server.\n"
LOOP_TEXT = "| 1 | 2 | 3 |\n" * 400
#: 64 KiB of bytes that are neither JSON nor an event stream (fixed: the same every run)
BINARY = random.Random(31).randbytes(64 * 1024)


@dataclass
class Reply:
    text: str
    finish_reason: str = "stop"
    delay: float | None = None  # overrides the server's delay for this reply
    token_delay: float = 0.0  # seconds between streamed chunks
    chunk_chars: int | None = None  # characters per streamed chunk (default: ≤ 200 chunks)
    fault: str | None = None  # "close", "stall", "malformed", "endless", "drop"... (see above)
    after: int = 0  # streamed chunks sent before the fault
    status: int | None = None  # answer this HTTP error status with ``text`` as its message


Responder = Callable[[dict[str, Any]], "str | Reply"]


def metrics_text(kv_blocks: int, block_size: int = 16) -> str:
    """A ``/metrics`` page as vLLM 0.26 writes its cache info (labels as in its source:
    ``CacheConfig.metrics_info``; values are strings)."""
    return (
        "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
        "# TYPE vllm:cache_config_info gauge\n"
        f'vllm:cache_config_info{{block_size="{block_size}",cache_dtype="auto",'
        f'calculate_kv_scales="False",enable_prefix_caching="False",engine="0",'
        f'gpu_memory_utilization="0.92",num_cpu_blocks="None",num_gpu_blocks="{kv_blocks}",'
        'num_gpu_blocks_override="None",prefix_caching_hash_algo="sha256"} 1.0\n'
        "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
        "# TYPE vllm:num_requests_running gauge\n"
        'vllm:num_requests_running{engine="0",model_name="fake"} 0.0\n'
    )


def request_image(body: dict[str, Any]) -> Image.Image | None:
    """The first image of a chat body, decoded (for responders that answer per page)."""
    for message in body.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
            if url.startswith("data:"):
                data = base64.b64decode(url.split(",", 1)[1])
                return Image.open(io.BytesIO(data))
    return None


def request_prompt(body: dict[str, Any]) -> str | None:
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "text":
                    return str(part.get("text"))
    return None


class FakeOpenAIServer:
    def __init__(
        self,
        outputs: Iterable[str | Reply] = (),
        *,
        respond: Responder | None = None,
        models: Iterable[str] = (DEFAULT_MODEL,),
        delay: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
    ) -> None:
        self.outputs: deque[str | Reply] = deque(outputs)
        self.respond = respond
        self.models = list(models)
        self.delay = delay
        self.api_key = api_key
        self.hang = False
        self.ignore_stream = False  # answer plain JSON even when asked to stream (old servers)
        self.loop = False
        # As vLLM 0.33: tokens grouped by the request's stream_interval, the running usage in
        # every event when stream_options.continuous_usage_stats asks (a piece is a token).
        self.vllm_streaming = False
        self.strict = False  # as OpenAI's own API: a 400 for vLLM's streaming fields
        self.version: str | None = None  # answered at GET /version, as vLLM does, when set
        self.ignore_interval = False  # as vLLM 0.26: stream_interval accepted, one token an event
        self.kv_blocks: int | None = None  # GET /metrics reports a KV cache of this many blocks
        self.vllm_metrics: VllmMetrics | None = None  # GET /metrics as vLLM's, moving (above)
        self.max_running = 8  # completions vllm_metrics counts running; the rest wait
        self.requests: list[dict[str, Any]] = []
        self.events: list[int] = []  # content events sent, per streamed reply
        self.in_flight = 0
        self.max_in_flight = 0
        self._fail: deque[int] = deque()
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._httpd = ThreadingHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; hanging requests are released. Idempotent."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=5)
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:  # keep-alive clients must see the server go away
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ knobs
    def fail_next(self, n: int, status: int = 500) -> None:
        with self._lock:
            self._fail.extend([status] * n)

    @property
    def completions(self) -> int:
        return len(self.requests)

    # ------------------------------------------------------------------ behaviour
    def _take_failure(self) -> int | None:
        with self._lock:
            return self._fail.popleft() if self._fail else None

    def _reply_for(self, body: dict[str, Any]) -> Reply:
        if self.loop:
            hot = float(body.get("temperature") or 0.0) > 0
            return Reply(DEFAULT_TEXT) if hot else Reply(LOOP_TEXT, "length")
        with self._lock:
            queued = self.outputs.popleft() if self.outputs else None
        answer: str | Reply = queued if queued is not None else DEFAULT_TEXT
        if queued is None and self.respond is not None:
            answer = self.respond(body)
        return answer if isinstance(answer, Reply) else Reply(answer)

    def _wait(self, seconds: float) -> None:
        self._stopped.wait(seconds)

    def metrics_page(self) -> str:
        """:attr:`vllm_metrics`' page with the load of this moment (module doc)."""
        assert self.vllm_metrics is not None
        with self._lock:
            flight = self.in_flight
        running = min(flight, self.max_running)
        usage = min(1.0, running * 1100 / self.vllm_metrics.kv_tokens)
        self.vllm_metrics.set_load(running, flight - running, usage)
        return self.vllm_metrics.text()


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        reply: Reply | None = None  # this request's reply once chosen (for vllm_metrics)

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server._connections.add(self.connection)

        def finish(self) -> None:
            with server._lock:
                server._connections.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

        def _error(self, status: int, message: str, kind: str) -> None:
            error = {"object": "error", "message": message, "type": kind, "code": status}
            self._send(status, error)

        def _authorized(self) -> bool:
            if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                self._error(401, "Unauthorized", "AuthenticationError")
                return False
            return True

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/fake/stats":  # for tests driving a server subprocess
                with server._lock:
                    stats = {
                        "completions": len(server.requests),
                        "in_flight": server.in_flight,
                        "max_in_flight": server.max_in_flight,
                    }
                self._send(200, stats)
                return
            if self.path.rstrip("/") == "/version" and server.version:  # vLLM's, no key needed
                self._send(200, {"version": server.version})
                return
            if self.path.rstrip("/") == "/metrics" and server.vllm_metrics is not None:
                self._send_metrics(server.metrics_page().encode())
                return
            if self.path.rstrip("/") == "/metrics" and server.kv_blocks:  # vLLM's Prometheus text
                self._send_metrics(metrics_text(server.kv_blocks).encode())
                return
            if not self._authorized():
                return
            if self.path.rstrip("/") != "/v1/models":
                self._error(404, f"no route {self.path}", "NotFoundError")
                return
            data = [
                {"id": m, "object": "model", "owned_by": "fake", "max_model_len": 16384}
                for m in server.models
            ]
            self._send(200, {"object": "list", "data": data})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self._authorized():
                return
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route {self.path}", "NotFoundError")
                return
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._error(400, "body is not JSON", "BadRequestError")
                return
            with server._lock:
                server.requests.append(body)
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            started, self.reply = time.monotonic(), None
            try:
                self._complete(body)
            finally:
                with server._lock:
                    server.in_flight -= 1
                if server.vllm_metrics is not None and self.reply is not None:
                    reply = self.reply
                    tokens = max(1, len(reply.text) // 4)
                    elapsed = time.monotonic() - started
                    server.vllm_metrics.finish(reply.finish_reason, 1000, tokens, elapsed)

        def _complete(self, body: dict[str, Any]) -> None:
            model = body.get("model")
            if model not in server.models:
                self._error(404, f"The model `{model}` does not exist.", "NotFoundError")
                return
            if server.hang:
                server._wait(60)
                return
            status = server._take_failure()
            if status is not None:
                server._wait(server.delay)
                self._error(status, "fake failure", "InternalServerError")
                return
            refused = [f for f in ("stream_interval",) if f in body] + [
                f for f in ("continuous_usage_stats",) if f in (body.get("stream_options") or {})
            ]
            if server.strict and refused:
                self._error(400, f"Unrecognized request argument supplied: {refused[0]}",
                            "invalid_request_error")  # fmt: skip
                return
            reply = self.reply = server._reply_for(body)
            server._wait(reply.delay if reply.delay is not None else server.delay)
            if reply.status is not None:
                self._error(reply.status, reply.text, "InternalServerError")
                return
            if reply.fault == "drop":
                self._drop()
                return
            if body.get("stream") and not server.ignore_stream:
                self._stream(body, reply)
                return
            if reply.fault == "malformed":
                self._send_raw(200, b'{"choices": [{"message": {"content": "cut', "json")
                return
            if reply.fault == "binary":
                self._send_raw(200, BINARY, "json")
                return
            tokens = max(1, len(reply.text) // 4)
            self._send(
                200,
                {
                    "id": f"chatcmpl-{time.monotonic_ns()}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.text},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                    "usage": {
                        "prompt_tokens": 1000,
                        "completion_tokens": tokens,
                        "total_tokens": 1000 + tokens,
                    },
                },
            )

        def _send_metrics(self, page: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def _drop(self) -> None:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)

        def _send_raw(self, status: int, data: bytes, kind: str) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", f"application/{kind}")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def _event(self, payload: dict[str, Any] | str) -> None:
            text = payload if isinstance(payload, str) else json.dumps(payload)
            self._chunk(f"data: {text}\n\n".encode())

        def _stream(self, body: dict[str, Any], reply: Reply) -> None:
            model, ident = body.get("model"), f"chatcmpl-{time.monotonic_ns()}"

            def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
                choice = {"index": 0, "delta": delta, "finish_reason": finish}
                return {"id": ident, "object": "chat.completion.chunk", "model": model,
                        "choices": [choice]}  # fmt: skip

            text = reply.text
            size = reply.chunk_chars or max(4, -(-len(text) // 200))
            pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
            group, running = 1, False
            if server.vllm_streaming:  # a piece is a token; events as vLLM 0.33 sends them
                group = 1 if server.ignore_interval else int(body.get("stream_interval") or 1)
                group = max(1, group)
                running = bool((body.get("stream_options") or {}).get("continuous_usage_stats"))
                pieces = ["".join(pieces[i : i + group]) for i in range(0, len(pieces), group)]
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream; charset=utf-8")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.flush()
                if reply.fault in ("done_only", "binary"):  # not an answer: nothing else sent
                    if reply.fault == "binary":
                        self._chunk(BINARY)
                    else:
                        self._event("[DONE]")
                    self._chunk(b"")
                    return
                self._event(chunk({"role": "assistant", "content": ""}))
                sent = 0
                while True:
                    if reply.fault and sent >= reply.after and reply.fault != "endless":
                        break
                    if sent >= len(pieces) and reply.fault != "endless":
                        break
                    server._wait(reply.token_delay)
                    if server._stopped.is_set():
                        return
                    event = chunk({"content": pieces[sent % len(pieces)]})
                    sent += 1
                    if running:
                        done = min(sent * group, -(-len(text) // size))
                        event["usage"] = {"prompt_tokens": 1000, "completion_tokens": done,
                                          "total_tokens": 1000 + done}  # fmt: skip
                    self._event(event)
                with server._lock:
                    server.events.append(sent)
                if reply.fault == "close":
                    self._drop()
                    return
                if reply.fault == "stall":
                    server._wait(3600)
                    return
                if reply.fault in ("malformed", "no_finish"):
                    if reply.fault == "malformed":
                        self._event('{"choices": [{"delta": {"content": "cut')
                    self._event("[DONE]")
                    self._chunk(b"")
                    return
                self._event(chunk({}, reply.finish_reason))
                if (body.get("stream_options") or {}).get("include_usage"):
                    tokens = max(1, len(text) // 4)
                    usage = {"prompt_tokens": 1000, "completion_tokens": tokens,
                             "total_tokens": 1000 + tokens}  # fmt: skip
                    self._event({"id": ident, "object": "chat.completion.chunk", "model": model,
                                 "choices": [], "usage": usage})  # fmt: skip
                self._event("[DONE]")
                self._chunk(b"")
            except (BrokenPipeError, ConnectionResetError, OSError):
                self.close_connection = True  # the client left (cancel, timeout)

    return Handler


def engine_from_env(choice: Any) -> Any:
    """The app's engine hook for browser tests (``WORKBENCH_ENGINE_FACTORY=
    tests.fakes.openai_server:engine_from_env``): the real server engine against the server at
    ``WORKBENCH_BASE_URL`` (this fake run as a script), whatever the sidebar picked."""
    from workbench.engines.server.engine import VllmServerEngine

    return VllmServerEngine(connect=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per completion")
    parser.add_argument("--model", action="append", help="served model id (repeatable)")
    parser.add_argument(
        "--replay", nargs="*", type=Path, default=[], help="text files answered in turn, cycling"
    )
    parser.add_argument("--loop", action="store_true", help="loop at temperature 0")
    parser.add_argument("--first", type=Path, help="text file answered to the first completion")
    parser.add_argument(
        "--chunk-chars", type=int, help="characters per streamed token (default: ≤ 200 tokens)"
    )
    parser.add_argument(
        "--vllm-streaming", action="store_true",
        help="send stream_interval tokens an event, with running usage, as vLLM does",
    )  # fmt: skip
    parser.add_argument("--vllm-version", help="answer GET /version with this version")
    parser.add_argument(
        "--vllm-metrics", action="store_true",
        help="serve vLLM's /metrics, moving with the completions (tests/fakes/vllm_metrics.py)",
    )  # fmt: skip
    parser.add_argument(
        "--ignore-stream-interval", action="store_true",
        help="with --vllm-streaming: one token an event whatever stream_interval asks (vLLM 0.26)",
    )  # fmt: skip
    parser.add_argument(
        "--first-fault", choices=["stall", "close", "drop", "malformed", "endless"],
        help="the first completion misbehaves so (stall: never answers until the server stops)",
    )  # fmt: skip
    parser.add_argument(
        "--landscape-fault", choices=["stall", "close", "drop", "malformed", "endless"],
        help="every completion for a page wider than tall misbehaves so",
    )  # fmt: skip
    parser.add_argument(
        "--landscape-answer", type=Path,
        help="text file answered to every completion for a page wider than tall (a page known "
        "by its shape, not by the order its request arrives in)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    texts = [p.read_text(encoding="utf-8") for p in args.replay]
    wide = args.landscape_answer.read_text(encoding="utf-8") if args.landscape_answer else None
    first: list[str | Reply] = []
    if args.first or args.first_fault:
        text = args.first.read_text(encoding="utf-8") if args.first else DEFAULT_TEXT
        first = [Reply(text, fault=args.first_fault)]
    counter = iter(range(10**12))

    def respond(body: dict[str, Any]) -> str | Reply:
        text = texts[next(counter) % len(texts)] if texts else DEFAULT_TEXT
        image = request_image(body) if args.landscape_fault or wide is not None else None
        if image is not None and image.width > image.height:
            if wide is not None:
                text = wide
            if args.landscape_fault:
                return Reply(text, fault=args.landscape_fault, chunk_chars=args.chunk_chars)
            return Reply(text, chunk_chars=args.chunk_chars) if args.chunk_chars else text
        return Reply(text, chunk_chars=args.chunk_chars) if args.chunk_chars else text

    server = FakeOpenAIServer(
        first,
        respond=respond,
        models=args.model or [DEFAULT_MODEL],
        delay=args.delay,
        host=args.host,
        port=args.port,
    )
    server.loop = args.loop
    server.vllm_streaming = args.vllm_streaming
    server.version = args.vllm_version
    server.vllm_metrics = VllmMetrics(server.models[0]) if args.vllm_metrics else None
    server.ignore_interval = args.ignore_stream_interval
    print(f"fake OpenAI server on {server.base_url} serving {server.models}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
