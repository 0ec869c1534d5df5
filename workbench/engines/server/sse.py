"""Reading one chat-completion answer: an OpenAI ``stream: true`` event stream, or plain JSON.

Contract
--------
* :func:`read_answer` returns an :class:`Answer` (text, finish reason, completion tokens) or
  raises :class:`~workbench.errors.MalformedAnswer` (not a chat completion: a line that is not
  JSON, no ``choices``, a body that is not a completion, bytes that are no event-stream line),
  :class:`ServerHTTPError` (an error event inside the stream), :class:`ConnectionLost` (the
  stream broke off before ``[DONE]`` or a finish reason) or :class:`IncompleteAnswer` (it
  ended with ``[DONE]`` but no finish reason: "empty answer" when it held no text, else "the
  stream ended without a finish reason"). An answer is never empty *and* unexplained: empty
  text with a finish reason (``stop``: a blank page) is an answer.
* Progress (``Call.token``, which also tells the watchdog the page is alive) counts the
  server's running ``usage.completion_tokens`` when its events carry one (vLLM's
  ``continuous_usage_stats``: an event may hold many tokens), else one token per content
  delta; the server's final count wins for the answer.
* After ``[DONE]`` the stream's end is read, so the connection is kept for the next page.
* Bounded whatever the server sends: a stream that goes on past ``max_tokens`` (a server
  ignoring it) is cut there with ``finish_reason="length"``; a line or a JSON body larger than
  :data:`MAX_ANSWER_BYTES` is refused. A server that ignores ``stream`` and answers JSON works.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from workbench.engines.server.calls import Call
from workbench.errors import ConnectionLost, IncompleteAnswer, MalformedAnswer, ServerHTTPError

MAX_ANSWER_BYTES = 64 * 1024 * 1024
#: Deltas accepted past max_tokens before the stream is cut (servers may send a last empty one).
TOKEN_SLACK = 16


@dataclass(frozen=True)
class Answer:
    text: str
    finish_reason: str | None
    tokens: int


def read_answer(response: httpx.Response, call: Call, max_tokens: int) -> Answer:
    if "text/event-stream" not in response.headers.get("content-type", ""):
        return _read_json(response, call)
    parts: list[str] = []
    finish: str | None = None
    deltas = 0
    usage_tokens = 0
    counted = 0  # tokens told to the call (progress, the watchdog)
    ended = False
    events = _events(response)
    for data in events:
        if data == "[DONE]":
            ended = True
            _drain(events)
            break
        chunk = _json(data, "stream event")
        if not isinstance(chunk, dict):
            raise MalformedAnswer(f"the server's stream sent {_clip(data)} — not a chat chunk")
        if chunk.get("error"):
            raise _stream_error(chunk["error"])
        usage = chunk.get("usage")
        if isinstance(usage, dict) and usage.get("completion_tokens"):
            usage_tokens = int(usage["completion_tokens"])
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            raise MalformedAnswer(f"the server's stream sent {_clip(data)} — no choices")
        for choice in choices[:1]:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            content = delta.get("content") if isinstance(delta, dict) else None
            if content:
                parts.append(str(content))
                deltas += 1
            if isinstance(choice, dict) and choice.get("finish_reason"):
                finish = str(choice["finish_reason"])
        seen = max(deltas, usage_tokens)  # the server's running count when it sends one
        if seen > counted:
            call.token(seen - counted)
            counted = seen
        if max_tokens and seen > max_tokens + TOKEN_SLACK:
            finish = "length"  # the server ignores max_tokens: cut it where it should have
            ended = True
            break
    if not ended and finish is None:
        raise ConnectionLost(
            f"the server closed the connection mid-answer (after {deltas} tokens) — it may "
            "have crashed or restarted; see its log"
        )
    text = "".join(parts)
    if finish is None:
        raise _unexplained(text, usage_tokens or deltas)
    return Answer(text, finish, usage_tokens or deltas)


def _unexplained(text: str, tokens: int) -> IncompleteAnswer:
    """A whole answer (``[DONE]``, or a JSON body) that says neither why it stopped nor,
    perhaps, anything at all."""
    if not text:
        return IncompleteAnswer(
            "empty answer: the server ended its answer with no text and no finish reason "
            "— see its log"
        )
    return IncompleteAnswer(
        f"the stream ended without a finish reason (after {tokens} tokens) — the text may be "
        "cut short; see the server's log"
    )


def _drain(events: Iterator[str], most: int = 4) -> None:
    """Read the stream's end after ``[DONE]`` (the chunked terminator follows at once), so the
    connection goes back to the pool: a response closed unread is a connection closed, and
    every page would pay a new connect (and TLS handshake). A server that goes on sending
    after ``[DONE]`` is not waited for: past ``most`` events the connection is dropped."""
    for _ in zip(range(most), events, strict=False):
        pass


def _read_json(response: httpx.Response, call: Call) -> Answer:
    body = bytearray()
    for piece in response.iter_bytes():
        body += piece
        if len(body) > MAX_ANSWER_BYTES:
            raise MalformedAnswer(f"the answer is larger than {MAX_ANSWER_BYTES >> 20} MB")
    payload = _json(body.decode("utf-8", "replace"), "answer")
    try:
        choice = payload["choices"][0]
        text = str(choice["message"].get("content") or "")
    except (KeyError, IndexError, TypeError, AttributeError):
        raise MalformedAnswer(
            f"the server answered 200 but not with a chat completion: {_clip(str(payload))}"
        ) from None
    usage = payload.get("usage") if isinstance(payload, dict) else None
    tokens = int(usage.get("completion_tokens") or 0) if isinstance(usage, dict) else 0
    call.token(max(tokens, 1))
    if not choice.get("finish_reason"):
        raise _unexplained(text, tokens)
    return Answer(text, choice["finish_reason"], tokens)


#: The fields an event-stream line may hold (a line starting ":" is a comment).
SSE_FIELDS = (b"data", b"event", b"id", b"retry")


def _events(response: httpx.Response) -> Iterator[str]:
    """The ``data:`` payloads of an event stream, one per event line; bounded line length.
    A line that is no event-stream line (binary, HTML) is refused as soon as its start shows."""
    pending: list[bytes] = []
    size = 0
    for piece in response.iter_bytes():
        while (cut := piece.find(b"\n")) >= 0:
            line = b"".join([*pending, piece[:cut]]).rstrip(b"\r")
            pending.clear()
            size = 0
            piece = piece[cut + 1 :]
            _check_line(line, whole=True)
            if line.startswith(b"data:"):
                yield line[5:].strip().decode("utf-8", "replace")
        if piece and size < 16:  # a line's start: refuse junk before waiting for its end
            _check_line(b"".join([*pending, piece]), whole=False)
        pending.append(piece)
        size += len(piece)
        if size > MAX_ANSWER_BYTES:
            raise MalformedAnswer(f"a stream line is larger than {MAX_ANSWER_BYTES >> 20} MB")
    line = b"".join(pending).rstrip(b"\r")
    _check_line(line, whole=True)
    if line.startswith(b"data:"):
        yield line[5:].strip().decode("utf-8", "replace")


def _check_line(line: bytes, *, whole: bool) -> None:
    """Refuse a line (or the start of one, ``whole=False``) no event stream holds."""
    if not line or line.startswith(b":"):
        return
    name, colon, _ = line[:16].partition(b":")
    if name in SSE_FIELDS or (
        not colon and not whole and any(f.startswith(name) for f in SSE_FIELDS)
    ):
        return
    if whole and not colon and line in SSE_FIELDS:
        return
    shown = _clip(line[:60].decode("utf-8", "replace"), 60)
    raise MalformedAnswer(
        f"the server answered 200 with what is not a chat completion (malformed): its event "
        f"stream holds {shown}, which is no event-stream line"
    )


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        raise MalformedAnswer(
            f"the server's {what} is not JSON, not a chat completion (malformed): {_clip(text)}"
        ) from None


def _stream_error(error: Any) -> ServerHTTPError:
    message = error.get("message") if isinstance(error, dict) else error
    code = error.get("code") if isinstance(error, dict) else None
    status = int(code) if isinstance(code, int) else 500
    return ServerHTTPError(f"the server reported an error mid-answer: {message}", status)


def _clip(text: str, limit: int = 120) -> str:
    return repr(text[:limit] + ("…" if len(text) > limit else ""))
