"""Engine ``vllm-server``: any OpenAI-compatible endpoint (``vllm serve``, SGLang, a proxy).

Contract
--------
* ``base_url`` is the API root; a bare ``http://host:port`` gets ``/v1`` appended. The served
  model is the one given, or the first of ``GET /v1/models`` (resolved on first use).
* :meth:`VllmServerEngine.run` keeps up to ``concurrency`` pages in flight (a thread pool
  over one shared ``httpx.Client`` whose connection pool is as large) and yields each
  :class:`EngineOutput` as it completes, in any order.
* One page is ``POST /v1/chat/completions`` with the page as a PNG data URL, the prompt, the
  sampling and ``chat_template_kwargs`` (see :mod:`workbench.engines.messages`).
* A call that cannot connect, times out (``timeout`` seconds) or gets a 5xx/429 is retried
  ``retries`` times in all with exponential backoff; then the page gets ``error`` and the
  other pages go on. A looping answer is retried with the request's ``retry_sampling``
  (:mod:`workbench.engines.repetition`); every attempt is recorded.
* Nothing raises out of :meth:`run` for a page. :meth:`check` never raises (sidebar status);
  :meth:`connect` (or ``connect=True``) raises :class:`EngineUnavailable` with a fix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any
from urllib.parse import urlsplit

import httpx

from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.messages import chat_body
from workbench.engines.png import data_url
from workbench.engines.repetition import MAX_ATTEMPTS, PageAttempts
from workbench.errors import EngineError, EngineUnavailable
from workbench.schema import Sampling
from workbench.settings import Settings

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def normalize_base_url(url: str) -> str:
    """``host:8000`` → ``http://host:8000/v1``; an explicit path is kept as given."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    if urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


def _server_message(response: httpx.Response) -> str:
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


class VllmServerEngine:
    name = "vllm-server"

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        concurrency: int | None = None,
        timeout: float | None = None,
        *,
        settings: Settings | None = None,
        retries: int = 3,
        backoff: float = 0.5,
        max_attempts: int = MAX_ATTEMPTS,
        connect: bool = False,
    ) -> None:
        s = settings or Settings.from_env()
        self.base_url = normalize_base_url(base_url or s.base_url)
        self.api_key = api_key if api_key is not None else s.api_key
        self.model = model or ""
        self.concurrency = max(1, concurrency or s.concurrency)
        # Twice the pages in flight per batch, so the tail of one batch overlaps little.
        self.batch_size = min(2 * self.concurrency, 512)
        self.timeout = float(timeout or s.timeout)
        self.retries = max(1, retries)
        self.backoff = backoff
        self.max_attempts = max_attempts
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()
        self._served: list[str] | None = None
        if connect:
            self.connect()

    # ------------------------------------------------------------------ connection
    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                self._client = httpx.Client(
                    headers=headers,
                    timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 10.0)),
                    limits=httpx.Limits(
                        max_connections=self.concurrency,
                        max_keepalive_connections=self.concurrency,
                    ),
                )
            return self._client

    def _unreachable(self) -> str:
        return f"cannot reach {self.base_url} — is `vllm serve` running?"

    def list_models(self) -> list[str]:
        """Served model ids from ``GET /v1/models``; raises :class:`EngineUnavailable`."""
        try:
            response = self._http().get(f"{self.base_url}/models", timeout=min(self.timeout, 10.0))
        except httpx.TimeoutException:
            raise EngineUnavailable(
                f"{self.base_url} did not answer /models within {min(self.timeout, 10.0):g} s"
            ) from None
        except httpx.TransportError:
            raise EngineUnavailable(self._unreachable()) from None
        if response.status_code == 401:
            raise EngineUnavailable(
                f"{self.base_url} refused the API key (401): set WORKBENCH_API_KEY or the key field"
            )
        if response.status_code != 200:
            raise EngineUnavailable(
                f"{self.base_url}/models answered {response.status_code}: "
                f"{_server_message(response)} — is this an OpenAI-compatible server?"
            )
        try:
            models = [str(m["id"]) for m in response.json()["data"]]
        except (ValueError, KeyError, TypeError):
            raise EngineUnavailable(
                f"{self.base_url}/models is not an OpenAI model list — is the URL right?"
            ) from None
        self._served = models
        return models

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
        }

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    # ------------------------------------------------------------------ one call
    def _complete(self, body: dict[str, Any], cancel: threading.Event) -> dict[str, Any]:
        """POST one completion with transport retries; raises :class:`EngineError`."""
        url = f"{self.base_url}/chat/completions"
        problem = ""
        for attempt in range(self.retries):
            if attempt and cancel.wait(self.backoff * 2 ** (attempt - 1)):
                raise EngineError("cancelled")
            try:
                response = self._http().post(url, json=body)
            except httpx.TimeoutException:
                problem = f"timed out after {self.timeout:g} s"
                continue
            except httpx.TransportError:
                problem = self._unreachable()
                continue
            if response.status_code == 200:
                try:
                    payload = response.json()
                    payload["choices"][0]["message"]
                except (ValueError, KeyError, IndexError, TypeError):
                    raise EngineError(
                        f"server answered 200 but not with a chat completion: {response.text[:200]}"
                    ) from None
                return dict(payload)
            message = _server_message(response)
            if response.status_code in RETRYABLE_STATUS:
                problem = f"server error {response.status_code}: {message}"
                continue
            raise EngineError(self._client_error(response.status_code, message))
        raise EngineError(f"{problem} (tried {self.retries} times)")

    def _client_error(self, status: int, message: str) -> str:
        if status == 404:
            try:
                served = ", ".join(self.list_models())
            except EngineUnavailable:  # no model list either: the URL is wrong, not the model
                return (
                    f"server answered 404 at {self.base_url}/chat/completions: {message} "
                    "— is the base URL right?"
                )
            return f"server answered 404 for model {self.model}; served models: {served}"
        if status == 401:
            return "server refused the API key (401): set WORKBENCH_API_KEY or the key field"
        return f"server answered {status}: {message}"

    def _page(self, request: PageRequest, cancel: threading.Event) -> EngineOutput:
        page = PageAttempts(request, self.max_attempts)
        try:
            url = data_url(request.encoded())  # a prepared page's own PNG, sent as is
        except Exception as exc:  # a broken image is this page's problem only
            page.record_error(request.sampling, f"cannot encode the page image: {exc}", 0.0)
            return page.output()
        sampling: Sampling | None
        while (sampling := page.next_sampling) is not None and not cancel.is_set():
            started = time.monotonic()
            try:
                payload = self._complete(chat_body(self.model, request, sampling, url), cancel)
            except EngineError as exc:
                page.record_error(sampling, str(exc), time.monotonic() - started)
                break
            choice = payload["choices"][0]
            usage = payload.get("usage") or {}
            page.record(
                sampling,
                str(choice["message"].get("content") or ""),
                choice.get("finish_reason"),
                int(usage.get("completion_tokens") or 0),
                time.monotonic() - started,
            )
        return page.output()

    # ------------------------------------------------------------------ batch
    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        if not requests:
            return
        if not self.model:
            try:
                self.connect()
            except EngineUnavailable as exc:
                for request in requests:
                    yield EngineOutput(key=request.key, error=str(exc))
                return
        cancel = threading.Event()
        pool = ThreadPoolExecutor(
            max_workers=min(self.concurrency, len(requests)), thread_name_prefix="vllm-server"
        )
        try:
            pending: set[Future[EngineOutput]] = {
                pool.submit(self._page, request, cancel) for request in requests
            }
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            # The consumer stopped early (cancel button) or we are done: drop queued pages,
            # stop retry back-offs; calls already in flight end at their timeout.
            cancel.set()
            pool.shutdown(wait=False, cancel_futures=True)
