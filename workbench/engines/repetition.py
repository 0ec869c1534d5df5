"""Repetition-loop detection and the retry schedule: pure functions, no I/O.

A VLM in a loop emits the same unit over and over until ``max_tokens``: a character or
token (``.....``, ``___``, ``\\n``), a phrase, a line or a whole table row. We look only at
the *tail* of the output, as Chandra's ``detect_repeat_token`` does:

* **characters**: for every period ``p`` up to ``window // 2`` the last ``p`` characters are
  counted backwards while they repeat. A loop needs more than
  ``base_repeats * (1 + scale / p)`` repeats (short units must repeat more: 17 for one
  character with the defaults) *and* at least ``min_span`` characters in all, so a form's
  ``Signature: ____`` or a short table of contents leader is not a loop.
* **lines**: the last non-blank lines, in units of 1 to ``max_line_period`` lines, repeated at
  least ``line_repeats`` times (a table row longer than the character window).
* **whitespace**: a run of ``min_whitespace`` or more trailing whitespace characters.

Each check also runs with the last ``cut`` characters removed, because a loop that hits
``max_tokens`` often ends in a half-written unit or a stray closing tag.

Engines keep one :class:`PageAttempts` per page: it holds the samplings to try in order
(the request's own, then its ``retry_sampling``, capped at :data:`MAX_ATTEMPTS`), records
each attempt as a :class:`~workbench.schema.Attempt` and says when to stop: at the first
attempt that does not loop (and, for a request with ``retry_on_length`` such as olmOCR's,
was not cut off by ``max_tokens``), at a failed call, or when the schedule runs out. Its output
carries the last attempt that returned text (a page whose every attempt looped keeps its
last looping text; the pipeline marks it LOOPED), and ``error`` only when no attempt did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from workbench.engines.base import EngineOutput, PageRequest
from workbench.schema import Attempt, Sampling

#: Most attempts per page, first included: olmOCR has 8 temperatures (TEMPERATURE_BY_ATTEMPT),
#: Chandra 1 + 6 retries; each model's own schedule is usually shorter.
MAX_ATTEMPTS = 8


class Repetition(NamedTuple):
    """Unpacks as ``(repeated, period)``; ``period`` is in characters (0 when not repeated)."""

    repeated: bool
    period: int = 0
    repeats: int = 0
    unit: str = ""  # the repeated unit, shortened to 80 characters

    @classmethod
    def none(cls) -> Repetition:
        return cls(False)


def _char_loop(
    text: str, window: int, base_repeats: int, scale: float, min_span: int
) -> Repetition:
    n = len(text)
    for period in range(1, min(window // 2, n // 2) + 1):
        unit = text[n - period :]
        need = int(base_repeats * (1 + scale / period))
        count, pos = 1, n - 2 * period
        while pos >= 0 and text[pos : pos + period] == unit:
            count += 1
            pos -= period
        if count > need and count * period >= min_span:
            return Repetition(True, period, count, unit[:80])
    return Repetition.none()


def _line_loop(text: str, max_period: int, min_repeats: int) -> Repetition:
    lines = [line.rstrip() for line in text.rstrip().splitlines()]
    lines = [line for line in lines if line]
    for period in range(1, max_period + 1):
        unit = lines[len(lines) - period :]
        if len(unit) < period or not any(line.strip() for line in unit):
            break
        count, pos = 1, len(lines) - 2 * period
        while pos >= 0 and lines[pos : pos + period] == unit:
            count += 1
            pos -= period
        if count >= min_repeats:
            joined = "\n".join(unit) + "\n"
            return Repetition(True, len(joined), count, joined[:80])
    return Repetition.none()


def detect_repetition(
    text: str,
    *,
    window: int = 500,
    base_repeats: int = 4,
    scale: float = 3.0,
    min_span: int = 48,
    line_repeats: int = 8,
    max_line_period: int = 8,
    min_whitespace: int = 200,
    cut: int = 50,
) -> Repetition:
    """Whether ``text`` ends in a repetition loop, and the loop's period (see module doc)."""
    if not text:
        return Repetition.none()
    stripped = text.rstrip()
    trailing = len(text) - len(stripped)
    if trailing >= min_whitespace:
        return Repetition(True, 1, trailing, text[-1])
    candidates = [stripped]
    if cut and len(stripped) > 2 * cut:
        candidates.append(stripped[:-cut].rstrip())
    for candidate in candidates:
        found = _char_loop(candidate, window, base_repeats, scale, min_span)
        if found.repeated:
            return found
        found = _line_loop(candidate, max_line_period, line_repeats)
        if found.repeated:
            return found
    return Repetition.none()


def is_looping(text: str) -> bool:
    return detect_repetition(text).repeated


def attempt_schedule(request: PageRequest, cap: int = MAX_ATTEMPTS) -> list[Sampling]:
    """The samplings to try, in order: the request's own, then its retries, at most ``cap``."""
    schedule: Sequence[Sampling] = (request.sampling, *request.retry_sampling)
    return list(schedule[: max(cap, 1)])


@dataclass
class PageAttempts:
    """The attempts at one page (see module doc)."""

    request: PageRequest
    cap: int = MAX_ATTEMPTS
    attempts: list[Attempt] = field(default_factory=list)
    text: str | None = None
    finish_reason: str | None = None
    tokens: int = 0
    error: str | None = None
    done: bool = False

    def __post_init__(self) -> None:
        self.schedule = attempt_schedule(self.request, self.cap)

    @property
    def key(self) -> str:
        return self.request.key

    @property
    def next_sampling(self) -> Sampling | None:
        if self.done or len(self.attempts) >= len(self.schedule):
            return None
        return self.schedule[len(self.attempts)]

    @property
    def seconds(self) -> float:
        return sum(a.seconds for a in self.attempts)

    def record(
        self, sampling: Sampling, text: str, finish_reason: str | None, tokens: int, seconds: float
    ) -> bool:
        """Record an answered attempt; True when the page needs no further attempt."""
        repeated = detect_repetition(text).repeated
        self.attempts.append(
            Attempt(
                temperature=sampling.temperature,
                finish_reason=finish_reason,
                tokens=tokens,
                seconds=round(seconds, 3),
                repeated=repeated,
            )
        )
        self.text, self.finish_reason, self.tokens = text, finish_reason, tokens
        cut = self.request.retry_on_length and finish_reason == "length"
        self.done = not (repeated or cut) or len(self.attempts) >= len(self.schedule)
        return self.done

    def record_error(self, sampling: Sampling, error: str, seconds: float) -> None:
        """Record a failed call; the page stops here (transport retries were already spent)."""
        self.attempts.append(
            Attempt(temperature=sampling.temperature, seconds=round(seconds, 3), error=error)
        )
        self.error = error
        self.done = True

    def output(self) -> EngineOutput:
        answered = self.text is not None
        return EngineOutput(
            key=self.key,
            raw=self.text or "",
            tokens=self.tokens,
            finish_reason=self.finish_reason,
            seconds=round(self.seconds, 3),
            attempts=list(self.attempts),
            error=None if answered else (self.error or "no attempt was made"),
        )
