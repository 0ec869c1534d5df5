"""Which server the ``vllm-server`` engine talks to, and what its event stream really does.

Why: the engine asks vLLM for :data:`~workbench.engines.messages.STREAM_INTERVAL` tokens an
event (``stream_interval``). vLLM 0.33 honours the field; vLLM 0.26 accepts it and ignores it
(one event a token, measured on the H200: ``benchmarks/vllm_releases.md``), so the "refused
field" fallback never triggers there and the client would go on sending a field that does
nothing. The engine learns instead of assuming:

Contract
--------
* :func:`probe_version` asks ``GET /version`` at the server's root (vLLM answers
  ``{"version": "0.26.0"}``); anything else (another server, a proxy, an error, no answer
  within a few seconds) is ``None``, never an exception.
* :meth:`ServerFacts.fit` takes a request body (the first call asks the version) and leaves
  out the fields this server is known to ignore: ``stream_interval`` for a vLLM older than
  :data:`HONOURS_INTERVAL_FROM`, or once a stream showed it (below).
  ``continuous_usage_stats`` stays: the running token count is what progress reads whatever
  the event size.
* :meth:`ServerFacts.read` reads one answer (:func:`~workbench.engines.server.sse.read_answer`, the
  events counted by :class:`EventCounter`) and :meth:`ServerFacts.observe` learns from it: an
  answer of at least ``2 × interval`` tokens that came as about one
  event a token means the field is ignored; several tokens an event means it is honoured.
  Shorter answers tell nothing. The first conclusive answer settles it for the engine.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import httpx

from workbench.engines.server.calls import Call, server_message
from workbench.engines.server.sse import Answer, read_answer
from workbench.errors import EngineUnavailable

__all__ = [
    "Answer",
    "EventCounter",
    "ServerFacts",
    "probe_version",
    "served_models",
    "server_root",
    "unreachable",
]

#: The first vLLM release seen to honour the per-request ``stream_interval`` (0.33; 0.26
#: ignores it). Versions in between are learned from their stream.
HONOURS_INTERVAL_FROM = (0, 33)
#: The newest vLLM release seen to ignore it.
IGNORES_INTERVAL_UPTO = (0, 26)
PROBE_TIMEOUT_S = 5.0  # a server that takes longer to say its version is not waited for


def parse_version(text: str | None) -> tuple[int, int] | None:
    """``"0.26.0"``, ``"0.33.1rc2+cu130"`` → (major, minor); None when it is not one."""
    match = re.match(r"\s*v?(\d+)\.(\d+)", text or "")
    return (int(match[1]), int(match[2])) if match else None


def server_root(base_url: str) -> str:
    """``http://host:8000/v1`` → ``http://host:8000`` (vLLM serves ``/version`` there)."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[: -len("/v1")]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def probe_version(client: httpx.Client, base_url: str) -> str | None:
    """vLLM's version from ``GET /version``, or None (not vLLM, not said, not reachable)."""
    try:
        response = client.get(f"{server_root(base_url)}/version", timeout=PROBE_TIMEOUT_S)
        payload = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    version = payload.get("version") if isinstance(payload, dict) else None
    return str(version) if isinstance(version, str) and parse_version(version) else None


def unreachable(base_url: str) -> str:
    """What a refused connection to ``base_url`` means to the user."""
    return f"cannot reach {base_url} — is `vllm serve` running?"


def served_models(client: httpx.Client, base_url: str, timeout: float) -> list[str]:
    """Served model ids from ``GET /v1/models``; raises :class:`EngineUnavailable` saying
    what answered instead (nothing, not HTTP, a refused key, not an OpenAI model list)."""
    try:
        response = client.get(f"{base_url}/models", timeout=timeout)
    except httpx.TimeoutException:
        raise EngineUnavailable(f"{base_url} did not answer /models within {timeout:g} s") from None
    except httpx.ConnectError:
        raise EngineUnavailable(unreachable(base_url)) from None
    except httpx.TransportError:  # it connected: something answers there, but not HTTP
        raise EngineUnavailable(
            f"{base_url} closed the connection without answering /models — is this "
            "an OpenAI-compatible server?"
        ) from None
    if response.status_code == 401:
        raise EngineUnavailable(
            f"{base_url} refused the API key (401): set WORKBENCH_API_KEY or the key field"
        )
    if response.status_code != 200:
        raise EngineUnavailable(
            f"{base_url}/models answered {response.status_code}: "
            f"{server_message(response)} — is this an OpenAI-compatible server?"
        )
    try:
        return [str(m["id"]) for m in response.json()["data"]]
    except (ValueError, KeyError, TypeError):
        raise EngineUnavailable(
            f"{base_url}/models is not an OpenAI model list — is the URL right?"
        ) from None


def honours_interval(version: str | None) -> bool | None:
    """Whether a vLLM of ``version`` honours ``stream_interval``; None: not known by version."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    if parsed >= HONOURS_INTERVAL_FROM:
        return True
    return False if parsed <= IGNORES_INTERVAL_UPTO else None


@dataclass
class EventCounter:
    """Stands in for a :class:`Call` while an answer is read: forwards the tokens and counts
    the events that brought some (one ``token()`` call per such event)."""

    call: Call
    events: int = 0
    tokens: int = 0

    def token(self, count: int = 1) -> None:
        self.events += 1
        self.tokens += count
        self.call.token(count)


@dataclass
class ServerFacts:
    """What the engine knows of its server (see the contract); thread-safe."""

    version: str | None = None  # vLLM's own version; None: not vLLM, or not said
    probed: bool = False
    interval_ignored: bool | None = None  # None: not known yet
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def learn_version(self, client: httpx.Client, base_url: str) -> None:
        """Ask the server once for its version (later calls return at once)."""
        with self._lock:
            if self.probed:
                return
            self.probed = True
            self.version = probe_version(client, base_url)
            known = honours_interval(self.version)
            if known is not None and self.interval_ignored is None:
                self.interval_ignored = not known

    def fit(
        self, body: dict[str, Any], client: httpx.Client | None = None, base_url: str = ""
    ) -> dict[str, Any]:
        """``body`` without the fields this server ignores; with ``client``, the server at
        ``base_url`` is first asked its version (once: later calls return at once)."""
        if client is not None:
            self.learn_version(client, base_url)
        if self.interval_ignored and "stream_interval" in body:
            return {k: v for k, v in body.items() if k != "stream_interval"}
        return body

    def read(self, response: httpx.Response, call: Call, body: dict[str, Any]) -> Answer:
        """The answer to ``body`` (:func:`~workbench.engines.server.sse.read_answer`), observed."""
        counter = EventCounter(call)
        answer = read_answer(response, cast(Call, counter), int(body.get("max_tokens") or 0))
        self.observe(body, counter.events, answer.tokens)
        return answer

    def observe(self, body: dict[str, Any], events: int, tokens: int) -> None:
        """One answered stream for ``body``: settles whether ``stream_interval`` is honoured."""
        asked = int(body.get("stream_interval") or 0)
        if asked < 2 or tokens < 2 * asked or events <= 0:
            return  # not asked, or too short an answer to tell
        ignored = events * 2 > tokens  # about a token an event (honoured: tokens/asked + 2)
        with self._lock:
            if self.interval_ignored is None:
                self.interval_ignored = ignored

    def describe(self) -> str:
        """One line for logs and the CLI: ``vLLM 0.26.0, stream_interval ignored``."""
        who = f"vLLM {self.version}" if self.version else "server version unknown"
        if self.interval_ignored is None:
            return who
        return f"{who}, stream_interval {'ignored' if self.interval_ignored else 'honoured'}"
