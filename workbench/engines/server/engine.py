"""Engine ``vllm-server``: any OpenAI-compatible endpoint (``vllm serve``, SGLang, a proxy).

Contract
--------
* ``base_url`` is the API root; a bare ``http://host:port`` gets ``/v1`` appended. The served
  model is the one given, or the first of ``GET /v1/models`` (resolved on first use).
* :meth:`VllmServerEngine.run` keeps up to ``concurrency`` pages in flight (a thread pool
  over one shared ``httpx.Client`` whose connection pool is as large) and yields each
  :class:`EngineOutput` as it completes, in any order. All ``run()`` calls share the
  engine's slots (:class:`~workbench.engines.gate.Gate`, as in process): ``concurrency`` in
  all, in turn; a run with nothing in flight goes at once, ahead of the others' next pages.
* One page is ``POST /v1/chat/completions`` with the page as a PNG data URL, the prompt, the
  sampling and ``chat_template_kwargs`` (see :mod:`workbench.engines.messages`).
  The answer is streamed (``stream: true``, :mod:`workbench.engines.server.sse`), so a silent server
  is seen in seconds, not at the end of a long timeout; 16 tokens an event and the running
  token count in each (vLLM's ``stream_interval`` and ``continuous_usage_stats``:
  :func:`~workbench.engines.messages.streamed`); refused with a 400/422 naming them, they are
  dropped, and so is ``stream_interval`` where vLLM ignores it (0.26: :mod:`.info`).
* Time per attempt (:mod:`workbench.engines.server.calls`): a budget of 60 s plus
  ``max_tokens`` at 8 tokens/s, capped by ``timeout``; ``idle_timeout`` seconds without a
  token mid-answer, or without a first token while the server made no progress on any page,
  end the attempt. A page that waits never holds the others: they go on and are yielded.
* Faults, each with its own error (:mod:`workbench.errors`): cannot connect (ServerUnreachable),
  connection closed (ConnectionLost), timed out (EngineTimeout), HTTP error (ServerHTTPError),
  not a chat completion (MalformedAnswer), empty or unexplained (IncompleteAnswer), cancelled
  (PageCancelled). Connect failures, lost connections, unexplained answers and 408/429/5xx
  are retried ``retries`` times in all with exponential backoff; timeouts are not (a hung
  server would hang again: one idle wait, not three). A server that
  answered before and now refuses is taken to be restarting: pages wait for it (at most
  ``reconnect_wait`` s from the first refusal) and go on when it is back. A looping answer is
  retried with the request's ``retry_sampling`` (:mod:`workbench.engines.repetition`).
* A page's ``seconds`` (each attempt's) is the time of the HTTP try that answered, or of
  the last try when none did: never the wait for a slot (the gate), the pauses between tries
  or the tries a down or restarting server refused (a batch once showed 29.5 s/page).
* A dead engine (:mod:`workbench.engines.dead`): a 5xx or error event naming vLLM's
  ``EngineDeadError``/"EngineCore encountered an issue"/CUDA out of memory, or a 5xx then
  refusals past ``reconnect_wait``, sets :attr:`dead` (an :class:`EngineDeadError` naming the
  cause and the fix): the pages in flight and all after fail at once with it, nothing is sent.
* :meth:`in_flight` lists the pages in flight (key, wall-clock start, elapsed, tokens so far)
  and :meth:`cancel` stops some or all of them at once — the hook for a UI that shows a
  waiting page with its elapsed time and a cancel button. A cancelled page yields an output
  with ``error="cancelled by the user"``.
* Nothing raises out of :meth:`run` for a page. :meth:`check` never raises (sidebar status);
  :meth:`connect` (or ``connect=True``) raises :class:`EngineUnavailable` with a fix.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from functools import partial
from typing import Any

import httpx

from workbench.engines.base import DEFAULT_IN_FLIGHT, EngineOutput, PageRequest
from workbench.engines.dead import dead_server, server_gone
from workbench.engines.gate import PAUSE, RESERVE, Gate, Holding
from workbench.engines.messages import chat_body, streamed
from workbench.engines.png import IMAGE_SLOT, json_with_image
from workbench.engines.repetition import MAX_ATTEMPTS, PageAttempts
from workbench.engines.server.calls import (
    RECONNECT_WAIT_S,
    CallBoard,
    PageProgress,
    RunCancel,
    cancellable_sleep,
    client_error,
    normalize_base_url,
    page_budget,
    refuses_vllm_fields,
    retry_pause,
    server_message,
    tracked_transport,
)
from workbench.engines.server.info import (
    Answer,
    ServerFacts,
    served_models,
    unreachable,
)
from workbench.engines.stats import EngineStats, probe_kv_tokens, read_server_stats
from workbench.errors import (
    CANCELLED,
    ConnectionLost,
    EngineDeadError,
    EngineError,
    EngineTimeout,
    EngineUnavailable,
    IncompleteAnswer,
    PageCancelled,
    ServerHTTPError,
    ServerUnreachable,
)
from workbench.schema import Sampling
from workbench.settings import Settings

_JSON = {"Content-Type": "application/json"}
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


class VllmServerEngine:
    name = "vllm-server"
    streams = True  # run() pulls requests lazily, at most ``concurrency`` in flight

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        concurrency: int | None = None,
        timeout: float | None = None,
        *,
        idle_timeout: float | None = None,
        settings: Settings | None = None,
        retries: int = 3,
        backoff: float = 0.5,
        max_attempts: int = MAX_ATTEMPTS,
        reconnect_wait: float = RECONNECT_WAIT_S,
        connect: bool = False,
    ) -> None:
        s = settings or Settings.from_env()
        self.base_url = normalize_base_url(base_url or s.base_url)
        self.api_key = api_key if api_key is not None else s.api_key
        self.model = model or ""
        # None from the caller and the settings: DEFAULT_IN_FLIGHT until someone who knows the
        # page's tokens sizes it from the server's KV cache (workbench.gpu.inflight).
        self.sized = bool(concurrency or s.concurrency)
        self.concurrency = max(1, concurrency or s.concurrency or DEFAULT_IN_FLIGHT)
        # Twice the pages in flight per batch, so the tail of one batch overlaps little.
        self.batch_size = min(2 * self.concurrency, 512)
        self.timeout = float(timeout or s.timeout)
        self.idle_timeout = float(idle_timeout or s.idle_timeout)
        self._board = CallBoard(self.idle_timeout)
        self._gate = Gate(self.concurrency, RESERVE, PAUSE)  # shared by every run()
        self.retries = max(1, retries)
        self.backoff = backoff
        self.max_attempts = max_attempts
        self.reconnect_wait = reconnect_wait
        self.dead: EngineDeadError | None = None  # its engine died: send no more
        self._answered = False  # the server has answered a completion (so a refusal is news)
        self._down_since: float | None = None  # first refusal of the outage under way
        self._last_5xx: tuple[float, str] | None = None  # when, and what, the last 5xx said
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self._served: list[str] | None = None
        self._vllm = True  # send vLLM's streaming fields (off once a server refuses them)
        self.server = ServerFacts()  # its vLLM version, what its stream does (server/info.py)
        if connect:
            self.connect()

    # ------------------------------------------------------------------ connection
    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                limits = httpx.Limits(
                    max_connections=self.concurrency + RESERVE,
                    max_keepalive_connections=self.concurrency + RESERVE,
                )
                self._client = httpx.Client(
                    headers=headers,
                    timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                    transport=tracked_transport(limits),
                )
            return self._client

    def _unreachable(self) -> str:
        return unreachable(self.base_url)

    def list_models(self) -> list[str]:
        """Served model ids from ``GET /v1/models``; raises :class:`EngineUnavailable`."""
        self._served = served_models(self._http(), self.base_url, min(self.timeout, 10.0))
        return self._served

    def connect(self) -> VllmServerEngine:
        """Check the server and settle ``model``; raises :class:`EngineUnavailable`."""
        models = self.list_models()
        if not models:
            raise EngineUnavailable(f"{self.base_url} serves no model")
        if not self.model:
            self.model = models[0]
        elif self.model not in models:
            raise EngineUnavailable(
                f"{self.base_url} does not serve {self.model}; served models: {', '.join(models)}"
            )
        return self

    def kv_tokens(self) -> int | None:
        """The server's KV cache in tokens (vLLM's ``/metrics``), or None."""
        return probe_kv_tokens(self._http(), self.base_url)

    def stats(self) -> EngineStats | None:
        """What vLLM is doing now (its ``/metrics``: engines/stats.py); None, never raises."""
        return read_server_stats(self.base_url, self._http())

    def resize(self, pages: int) -> None:
        """Keep ``pages`` in flight from now on (the HTTP pool is made again to match)."""
        self.concurrency, self.sized = max(1, int(pages)), True
        self.batch_size = min(2 * self.concurrency, 512)
        self._gate.resize(self.concurrency)
        self.close()  # the next call makes a client with as many connections

    def check(self) -> str:
        """A one-line status for the sidebar; never raises."""
        try:
            self.connect()
        except EngineUnavailable as exc:
            return str(exc)
        except Exception as exc:  # a status line must not take the sidebar down
            return f"{self.base_url}: unexpected error {type(exc).__name__}: {exc}"
        others = [m for m in self._served or [] if m != self.model]
        extra = f" (also serving {', '.join(others)})" if others else ""
        return f"connected to {self.base_url}, model {self.model}{extra}"

    def describe(self) -> dict[str, str]:
        return {
            "engine": self.name,
            "model": self.model or "(first served model)",
            "base_url": self.base_url,
            "concurrency": str(self.concurrency),
            "timeout_s": f"{self.timeout:g}",
            "idle_timeout_s": f"{self.idle_timeout:g}",
        }

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    # ------------------------------------------------------------------ in flight
    def in_flight(self) -> list[PageProgress]:
        """The pages whose completion is in flight now, oldest first (for a waiting display)."""
        return self._board.snapshot()

    def cancel(self, keys: Iterable[str] | None = None) -> None:
        """Stop the given pages (by request key), or every page of every running ``run()``:
        calls in flight end at once, queued pages are not sent; each yields ``cancelled``."""
        self._board.cancel(keys)

    # ------------------------------------------------------------------ one call
    def _complete(
        self, body: dict[str, Any], png: bytes, key: str, run: RunCancel, spent: list[float]
    ) -> Answer:
        """One completion with the transport retries and the restart wait of the module
        contract; raises an :class:`EngineError` subclass. Appends each HTTP try's seconds
        to ``spent`` (the last is the one that answered, or failed last)."""
        url = f"{self.base_url}/chat/completions"
        budget = page_budget(int(body.get("max_tokens") or 4096), self.timeout)
        problem: EngineError | None = None
        tries = waits = 0
        while tries < self.retries:
            pause = retry_pause(self.backoff, tries, waits)
            if tries + waits and cancellable_sleep(run, key, pause):
                raise PageCancelled()
            if run.cancelled(key):
                raise PageCancelled()
            if self.dead is not None:
                raise self.dead
            started = time.monotonic()
            try:
                return self._attempt(url, body, png, key, budget, run, tries + waits + 1)
            except ServerUnreachable as exc:
                problem = exc
                if self.dead is None and self._restarting():
                    waits += 1
                    continue
            except (ConnectionLost, IncompleteAnswer) as exc:  # a hiccup: worth another try
                problem = exc
            except ServerHTTPError as exc:
                if exc.status not in RETRYABLE_STATUS:
                    raise
                if exc.status >= 500:
                    self._last_5xx = (time.monotonic(), str(exc))
                    if (dead := dead_server(str(exc))) is not None:  # an error event mid-stream
                        self._mark_dead(dead)
                problem = exc
            finally:
                spent.append(time.monotonic() - started)
            if self.dead is not None:
                raise self.dead
            tries += 1
        assert problem is not None
        if isinstance(problem, ServerHTTPError):
            raise ServerHTTPError(f"{problem} (tried {self.retries} times)", problem.status)
        raise type(problem)(f"{problem} (tried {self.retries} times)")

    def _restarting(self) -> bool:
        """Whether a refused connection is worth waiting out: the server answered before
        and has refused for less than ``reconnect_wait`` seconds. Past that wait, a server
        whose refusals began right after a 5xx is dead (:func:`server_gone`)."""
        if not self._answered:
            return False
        with self._lock:
            now = time.monotonic()
            if self._down_since is None:
                self._down_since = now
            down = now - self._down_since
            errored = self._last_5xx
        if down < self.reconnect_wait:
            return True
        if errored is not None and self._down_since - errored[0] < self.reconnect_wait:
            self._mark_dead(server_gone(errored[1], down))
        return False

    def _mark_dead(self, dead: EngineDeadError) -> None:
        self.dead = self.dead or dead
        self._board.abort_all(self.dead)  # the pages in flight wait on a dead engine

    def _attempt(
        self,
        url: str,
        body: dict[str, Any],
        png: bytes,
        key: str,
        budget: float,
        run: RunCancel,
        attempt: int,
    ) -> Answer:
        timeout = httpx.Timeout(budget + 5.0, connect=min(budget, 10.0))
        content = json_with_image(self.server.fit(body, self._http(), self.base_url), png)
        with self._board.call(key, budget, run, attempt) as call:
            answered = False
            try:
                with self._http().stream(
                    "POST", url, content=content, headers=_JSON, timeout=timeout
                ) as response:
                    answered = True
                    self._answered, self._down_since = True, None  # it is up
                    try:
                        if response.status_code != 200:
                            response.read()
                            raise self._http_error(response)
                        return self.server.read(response, call, body)
                    finally:
                        call.finish()
            except (httpx.ConnectError, httpx.ConnectTimeout):
                raise call.reason or ServerUnreachable(self._unreachable()) from None
            except httpx.TimeoutException:
                raise call.reason or EngineTimeout(f"timed out after {budget:g} s") from None
            except httpx.TransportError:
                if call.reason is not None:
                    raise call.reason from None
                if not answered:
                    raise ConnectionLost(
                        "the server closed the connection without answering — it may have "
                        "crashed or restarted; see its log"
                    ) from None
                raise ConnectionLost(
                    f"the server closed the connection mid-answer (after {call.tokens} tokens) "
                    "— it may have crashed or restarted; see its log"
                ) from None

    def _http_error(self, response: httpx.Response) -> EngineError:
        status, message = response.status_code, server_message(response)
        if status >= 500 and (dead := dead_server(message)) is not None:
            self._mark_dead(dead)
            return self.dead or dead
        if status in RETRYABLE_STATUS:
            return ServerHTTPError(f"server error {status}: {message}", status)
        return ServerHTTPError(
            client_error(status, message, self.base_url, self.model, self.list_models), status
        )

    def _gone(self, key: str, run: RunCancel) -> bool:
        return run.cancelled(key) or self.dead is not None

    def _page(self, request: PageRequest, run: RunCancel) -> EngineOutput:
        page = PageAttempts(request, self.max_attempts)
        if run.cancelled(request.key):  # cancelled while queued: never sent
            page.record_error(request.sampling, CANCELLED, 0.0)
            return page.output()
        if self.dead is not None:  # nothing is sent to a dead engine
            page.record_error(request.sampling, str(self.dead), 0.0)
            return page.output()
        try:
            png = request.encoded()  # a prepared page's own PNG, sent as is
        except Exception as exc:  # a broken image is this page's problem only
            page.record_error(request.sampling, f"cannot encode the page image: {exc}", 0.0)
            return page.output()
        sampling: Sampling | None
        while (sampling := page.next_sampling) is not None:
            # Streamed: tokens as they come, so a silent server is seen in seconds.
            body = streamed(chat_body(self.model, request, sampling, IMAGE_SLOT), vllm=self._vllm)
            spent: list[float] = []  # the page's seconds: its last try's (module contract)
            try:
                answer = self._complete(body, png, request.key, run, spent)
            except ServerHTTPError as exc:
                if self._vllm and refuses_vllm_fields(exc):
                    self._vllm = False  # not vLLM: the same attempt, as a plain OpenAI stream
                    continue
                page.record_error(sampling, str(exc), spent[-1] if spent else 0.0)
                break
            except EngineError as exc:
                page.record_error(sampling, str(exc), spent[-1] if spent else 0.0)
                break
            page.record(sampling, answer.text, answer.finish_reason, answer.tokens, spent[-1])
        return page.output()

    # ------------------------------------------------------------------ batch
    def run(self, requests: Iterable[PageRequest]) -> Iterator[EngineOutput]:
        """Yield one output per request as each finishes. ``requests`` may be any iterable: it
        is pulled only as slots free (at most ``concurrency`` pages in flight), so a pipeline
        can feed a whole document while pages are still being prepared."""
        source = iter(requests)
        first = next(source, None)
        if first is None:
            return
        source = itertools.chain([first], source)
        if not self.model:
            try:
                self.connect()
            except EngineUnavailable as exc:
                for request in source:
                    yield EngineOutput(key=request.key, error=str(exc))
                return
        with self._board.run_scope() as run:
            holding = Holding(self._gate, run)
            pool = ThreadPoolExecutor(
                max_workers=self.concurrency, thread_name_prefix="vllm-server"
            )
            pending: set[Future[EngineOutput]] = set()

            def fill() -> None:
                while len(pending) < self.concurrency and not run.all.is_set():
                    request = next(source, None)
                    if request is None:
                        return
                    gone = partial(self._gone, request.key, run)  # then _page sends nothing
                    work = partial(self._page, request, run)
                    pending.add(pool.submit(holding.call, gone, work))

            try:
                fill()
                while pending:
                    done, pending = wait(pending, return_when=FIRST_COMPLETED)
                    fill()  # before yielding: the freed slots work while the caller saves
                    for future in done:
                        yield future.result()
            finally:
                # Done, or the consumer stopped early (cancel button): drop queued pages and
                # end this run's calls in flight now (their sockets are shut down).
                run.all.set()
                pool.shutdown(wait=False, cancel_futures=True)
                self._board.police()
