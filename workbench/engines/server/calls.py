"""In-flight completions of the server engine: who waits, since when, and stopping them.

Contract
--------
* A :class:`Call` is one HTTP attempt for one page. It is on the :class:`CallBoard` from
  before it connects until it returns; :meth:`CallBoard.snapshot` lists the calls as
  :class:`PageProgress` records (page key, wall-clock start, elapsed seconds, tokens so far),
  for a UI that shows waiting pages with their elapsed time and a cancel button.
* The transport from :func:`tracked_transport` attaches every socket it reads or writes to the
  call running in that thread. :meth:`Call.abort` records why and shuts that socket down,
  which wakes a read blocked in any phase (waiting for headers, for the first token, between
  tokens) at once. The worker then raises the recorded reason, not a transport error.
* A watchdog thread (one per board, alive while calls are) applies :meth:`CallBoard.police`
  five times a second. A call is aborted when its page or run is cancelled, when it runs past
  its budget, when it is streaming but silent for ``idle`` seconds, or when it still waits for
  its first token ``idle`` seconds after the server last made progress on *any* page: a page
  queued behind busy pages is waiting, not hung, while a server that accepts and never answers
  fails every page after ``idle`` seconds.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from workbench.engines.base import PageProgress
from workbench.engines.messages import VLLM_STREAM_FIELDS
from workbench.errors import (
    EngineError,
    EngineTimeout,
    EngineUnavailable,
    PageCancelled,
    ServerHTTPError,
)

__all__ = [
    "POLL_S",
    "RECONNECT_WAIT_S",
    "CallBoard",
    "PageProgress",
    "RunCancel",
    "cancellable_sleep",
    "normalize_base_url",
    "page_budget",
    "refuses_vllm_fields",
    "retry_pause",
    "server_message",
    "tracked_transport",
]

#: Time allowed for the first token on top of the decode time, in a page's budget.
FIRST_TOKEN_ALLOWANCE_S = 60.0
#: A conservative decode rate for one sequence under load (tokens/s) for the page budget.
MIN_TOKENS_PER_S = 8.0
POLL_S = 0.2
#: Seconds a server that answered before may refuse connections (a restart) before the pages
#: waiting on it fail: long enough for a proxy or a quick restart, bounded for a dead host.
RECONNECT_WAIT_S = 30.0
RECONNECT_POLL_S = 1.0

_CURRENT = threading.local()  # the Call the current worker thread is making


def retry_pause(backoff: float, tries: int, waits: int) -> float:
    """Seconds before the next try: exponential ``backoff`` after failed tries, a steady poll
    while only waiting for a restarting server."""
    if waits and not tries:
        return RECONNECT_POLL_S
    return backoff * 2 ** max(tries - 1, 0)


def page_budget(max_tokens: int, cap: float) -> float:
    """Seconds one attempt may take: the first-token allowance plus ``max_tokens`` at a
    conservative rate, never more than ``cap`` (the ``timeout`` setting)."""
    return min(cap, FIRST_TOKEN_ALLOWANCE_S + max_tokens / MIN_TOKENS_PER_S)


class RunCancel:
    """Cancellation of one ``run()``: all of its pages, or some by key."""

    def __init__(self) -> None:
        self.all = threading.Event()
        self.keys: set[str] = set()

    def cancelled(self, key: str) -> bool:
        return self.all.is_set() or key in self.keys


@dataclass(eq=False)
class Call:
    key: str
    budget: float
    board: CallBoard
    run: RunCancel
    attempt: int = 1
    started: float = field(default_factory=time.monotonic)
    started_at: float = field(default_factory=time.time)
    tokens: int = 0
    last_token: float | None = None
    reason: EngineError | None = None
    _socket: socket.socket | None = None
    _finished: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def attach(self, sock: socket.socket) -> None:
        with self._lock:
            if self._finished:
                return
            self._socket = sock
            if self.reason is not None:  # aborted before it had a socket
                self._shutdown()

    def token(self, count: int = 1) -> None:
        now = time.monotonic()
        self.tokens += count
        self.last_token = now
        self.board.last_progress = now

    def abort(self, reason: EngineError) -> None:
        with self._lock:
            if self._finished or self.reason is not None:
                return
            self.reason = reason
            self._shutdown()

    def finish(self) -> None:
        """Called before the connection goes back to the pool: no abort may touch it now."""
        with self._lock:
            self._finished = True
            self._socket = None

    def _shutdown(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)


class CallBoard:
    """The calls in flight against one server, and the watchdog over them."""

    def __init__(self, idle: float) -> None:
        self.idle = idle
        self.last_progress = time.monotonic()
        self._calls: set[Call] = set()
        self._runs: set[RunCancel] = set()
        self._lock = threading.Lock()
        self._watchdog: threading.Thread | None = None

    # ------------------------------------------------------------------ runs and calls
    @contextlib.contextmanager
    def run_scope(self) -> Iterator[RunCancel]:
        run = RunCancel()
        with self._lock:
            self._runs.add(run)
        try:
            yield run
        finally:
            with self._lock:
                self._runs.discard(run)

    @contextlib.contextmanager
    def call(self, key: str, budget: float, run: RunCancel, attempt: int) -> Iterator[Call]:
        call = Call(key, budget, self, run, attempt)
        with self._lock:
            self._calls.add(call)
            if self._watchdog is None or not self._watchdog.is_alive():
                self._watchdog = threading.Thread(
                    target=self._watch, name="vllm-server-watchdog", daemon=True
                )
                self._watchdog.start()
        _CURRENT.call = call
        try:
            yield call
        finally:
            _CURRENT.call = None
            call.finish()
            with self._lock:
                self._calls.discard(call)

    def cancel(self, keys: Iterable[str] | None = None) -> None:
        """Cancel the given pages (queued or in flight) of every running ``run()``, or all of
        them when ``keys`` is None."""
        wanted = None if keys is None else set(keys)
        with self._lock:
            for run in self._runs:
                if wanted is None:
                    run.all.set()
                else:
                    run.keys |= wanted
            calls = list(self._calls)
        for call in calls:
            if call.run.cancelled(call.key):
                call.abort(PageCancelled())

    def abort_all(self, reason: EngineError) -> None:
        """End every call in flight now with ``reason`` (the engine behind them died)."""
        with self._lock:
            calls = list(self._calls)
        for call in calls:
            call.abort(reason)

    def snapshot(self) -> list[PageProgress]:
        now = time.monotonic()
        with self._lock:
            calls = sorted(self._calls, key=lambda c: c.started)
        return [
            PageProgress(c.key, c.started_at, now - c.started, c.tokens, c.attempt) for c in calls
        ]

    # ------------------------------------------------------------------ watchdog
    def police(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            calls = list(self._calls)
        for call in calls:
            verdict = self._verdict(call, now)
            if verdict is not None:
                call.abort(verdict)

    def _verdict(self, call: Call, now: float) -> EngineError | None:
        elapsed = now - call.started
        if call.run.cancelled(call.key):
            return PageCancelled()
        if elapsed > call.budget:
            return EngineTimeout(
                f"timed out after {call.budget:g} s, the page's time budget "
                f"({call.tokens} tokens received)"
            )
        if call.last_token is not None and now - call.last_token > self.idle:
            return EngineTimeout(
                f"timed out: the server sent nothing for {self.idle:g} s mid-answer "
                f"(after {call.tokens} tokens)"
            )
        if call.last_token is None and elapsed > self.idle and now - self.last_progress > self.idle:
            return EngineTimeout(
                f"timed out: no answer within {self.idle:g} s and no progress on any other page "
                "meanwhile — is the server hung?"
            )
        return None

    def _watch(self) -> None:
        while True:
            time.sleep(POLL_S)
            with self._lock:
                if not self._calls:
                    self._watchdog = None
                    return
            self.police()


# ---------------------------------------------------------------------- transport
class _TrackedStream(httpcore.NetworkStream):
    """A socket stream that tells the current call which socket it is using."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def _attach(self) -> None:
        call: Call | None = getattr(_CURRENT, "call", None)
        if call is not None:
            sock = self._inner.get_extra_info("socket")
            if sock is not None:
                call.attach(sock)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._attach()
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._attach()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _TrackedStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _TrackedBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _TrackedStream(self._inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore.NetworkStream:
        return _TrackedStream(self._inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def tracked_transport(limits: httpx.Limits) -> httpx.HTTPTransport:
    """An httpx transport whose sockets can be shut down per call (see the module contract).

    httpx exposes no network-backend option, so the pool's backend is wrapped in place; if a
    future httpx moves it, calls still end at their httpx timeouts, only less promptly."""
    transport = httpx.HTTPTransport(limits=limits)
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(backend, httpcore.NetworkBackend):
        pool._network_backend = _TrackedBackend(backend)  # type: ignore[union-attr]
    return transport


# ---------------------------------------------------------------------- helpers
def normalize_base_url(url: str) -> str:
    """``host:8000`` → ``http://host:8000/v1``; an explicit path is kept as given."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    if urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


def refuses_vllm_fields(exc: ServerHTTPError) -> bool:
    """A client error naming one of vLLM's streaming fields: a strict OpenAI-style server."""
    return exc.status in (400, 422) and any(f in str(exc) for f in VLLM_STREAM_FIELDS)


def server_message(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        return response.text[:200].strip()
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(payload.get("detail"), str):
            return str(payload["detail"])
    return str(payload)[:200]


def cancellable_sleep(run: RunCancel, key: str, seconds: float) -> bool:
    """Sleep ``seconds`` unless the page is cancelled meanwhile; True when it was."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if run.all.wait(min(left, POLL_S)) or run.cancelled(key):
            return True
    return run.cancelled(key)


def client_error(
    status: int, message: str, base_url: str, model: str, served: Callable[[], list[str]]
) -> str:
    """What a 4xx answer means for the user (404: the model, or the URL, is wrong)."""
    if status == 404:
        try:
            names = ", ".join(served())
        except EngineUnavailable:  # no model list either: the URL is wrong, not the model
            url = f"{base_url}/chat/completions"
            return f"server answered 404 at {url}: {message} — is the base URL right?"
        return f"server answered 404 for model {model}; served models: {names}"
    if status == 401:
        return "server refused the API key (401): set WORKBENCH_API_KEY or the key field"
    return f"server answered {status}: {message}"
