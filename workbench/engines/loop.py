"""One thread that drives a ``vllm.LLM``: pages are added one by one and come back one by one.

Why: ``LLM.chat`` takes a list of pages and returns when the last is done, so a document
showed its first page when its last one finished, Cancel waited for the whole call and a
second session queued behind the first one's call. vLLM's engine itself interleaves requests:
this loop adds each request as it is submitted (``LLM.enqueue_chat``, vLLM's own rendering
of a chat with its image), steps the engine (``llm_engine.step()``, what ``LLM.chat`` does
inside) and hands each request's output to its caller the step it finishes.

Contract
--------
* Every call into vLLM happens on the loop's own thread (vLLM's ``LLMEngine`` is not
  thread-safe): :meth:`EngineLoop.submit` and :meth:`EngineLoop.abort` only queue a command
  and return at once; :meth:`submit` returns a :class:`Submitted` handle.
* ``on_done(output, error)`` is called on the loop's thread exactly once per submission,
  unless it is aborted first: with vLLM's finished ``RequestOutput`` (``error`` None), or with
  ``output`` None and the error text (the request could not be added: this page only; or the
  engine died: every submission in flight and every later one).
* :meth:`abort` removes requests from vLLM at once (``abort_request``); an aborted request's
  ``on_done`` is never called (its caller already knows).
* When vLLM raises from a step (its ``EngineDeadError``: the EngineCore process died, CUDA ran
  out of memory), ``dead(exc, pages)`` names the error every pending request gets, and the loop
  stops: nothing more is sent to that engine. The app's process is never taken down: vLLM's
  EngineCore runs in a process of its own.
* **Paced** (``pace_tokens``): a request is added to vLLM only while the prompt tokens of the
  requests vLLM has not yet prefilled (no first token yet, read from vLLM's output processor:
  :meth:`EngineLoop._first_tokens`) stay under ``pace_tokens``
  (:data:`PACE_STEPS` of vLLM's step budget; at least one request always goes), the queued
  one with the lowest ``priority`` first. Why: vLLM 0.26 schedules a page's few text tokens
  before its image when the step's encoder budget is spent, so every page added becomes
  *running* within a step, and running requests get each step's budget before any waiting
  one, whatever its priority (``vllm/v1/core/sched/scheduler.py``,
  ``_try_schedule_encoder_inputs``). Measured on the H200: a one-page caller waited 60.6 s
  (118x alone) behind 181 pages just added by another caller. Paced, a newcomer's page
  waits for at most a few steps of prefill; the GPU still has a full step of prefill queued.
* **A newcomer decodes alone** (``hold_s``, 0 = off): while a ``fresh`` request (its caller
  had nothing else in vLLM, another caller had) is in vLLM, no request of another ``owner``
  is added, so its decode steps carry no other caller's prefill chunks. Why: paced, vLLM
  always holds two steps of prefill, and on the H100 each of a newcomer's 128 decode steps
  carried a 4,608-token chunk with its vision encoder work: 16.8 s against 0.47 s alone
  (results-2026-12-05c.md).
  Bounded: once fresh requests have been in vLLM ``hold_s`` seconds in a row, others are
  added again until none is, so a stream of newcomers slows a long run but never stops it.
* Works with vLLM 0.17–0.34: ``enqueue_chat`` (0.26 and later), or on 0.17 the two steps its
  ``LLM.chat`` takes; either returns the internal request id, and a finished output carries
  the id it was given, the internal id before its random suffix (``tests/vllm_contract``).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

#: Called with (vLLM's RequestOutput or None, error text or None).
OnDone = Callable[[Any, str | None], None]


@dataclass(eq=False)
class Submitted:
    """One request handed to the loop."""

    conversation: list[dict[str, Any]] = field(repr=False)
    params: Any = field(repr=False)  # vllm.SamplingParams
    template_kwargs: dict[str, Any] | None
    on_done: OnDone = field(repr=False)
    priority: int = 0  # vLLM's: lower goes first (with scheduling_policy "priority")
    owner: object = field(default=None, repr=False)  # its caller (a newcomer holds the others)
    fresh: bool = False  # a newcomer's: nothing else of its caller's, another's, in vLLM
    started: float = field(default_factory=time.monotonic)
    internal: str | None = None  # vLLM's request id once added
    aborted: bool = False


def external_id(internal: str) -> str:
    """The id a finished ``RequestOutput`` carries for a request ``enqueue_chat`` named
    ``internal`` (``"12-1a2b3c4d"`` -> ``"12"``; unchanged without vLLM's random suffix)."""
    return internal.rsplit("-", 1)[0]


#: Steps of vLLM's token budget (``max_num_batched_tokens``) that may wait to be prefilled:
#: two keep the next step full while the loop renders the next page, and keep a newcomer's
#: page at most two steps from its prefill.
PACE_STEPS = 2
#: A page's prompt tokens until vLLM has reported one (then the mean of those reported).
FIRST_GUESS_TOKENS = 2048

#: Seconds between two looks at vLLM's own flag that its EngineCore process exited.
WATCH_S = 0.5
CORE_EXITED = (
    'EngineCore encountered an issue: its process exited (vLLM: "engine core exited '
    'unexpectedly"), with no error of its own; killed from outside, or by the system '
    "(out of host memory)"
)


class EngineCoreExited(RuntimeError):
    """vLLM's EngineCore process is gone and vLLM raised nothing (:meth:`EngineLoop._watch`)."""


def core_exited(engine: Any) -> bool:
    """vLLM V1's flag that its EngineCore process exited (``engine_core.resources.engine_dead``,
    set by the client's monitor thread); False where there is no such flag."""
    resources = getattr(getattr(engine, "engine_core", None), "resources", None)
    return getattr(resources, "engine_dead", False) is True


class EngineLoop:
    """Drives ``llm`` on its own thread (see the module contract)."""

    def __init__(
        self,
        llm: Any,
        dead: Callable[[BaseException, int], str | None],
        pace_tokens: int | None = None,
        hold_s: float = 0.0,
    ) -> None:
        """``dead(exc, pages)``: the message for an exception that means the engine died
        with ``pages`` requests in it, or None when it is one request's fault.
        ``pace_tokens``: see the module contract (None: every request is added at once).
        ``hold_s``: how long a newcomer's request may hold other callers' back (0: never)."""
        self.pace_tokens = pace_tokens
        self.hold_s = max(0.0, float(hold_s))
        self._hold_since: float | None = None  # when a fresh request was last first in vLLM
        self._unprefilled: set[str] = set()  # external ids with no token seen (loop thread)
        self._prompt_sum, self._prompt_count = 0, 0  # prompt tokens vLLM reported, pages
        self._llm: Any = llm
        self._engine: Any = llm.llm_engine
        self._processor: Any = getattr(self._engine, "output_processor", None)
        if pace_tokens is not None and self._processor is None:
            # Nothing would ever read as prefilled before it finished: vLLM would hold a
            # few pages, not the plan's (_first_tokens). Unpaced is slower for a newcomer only.
            log.warning("this vLLM has no output processor to pace by; pages are not paced")
            self.pace_tokens = None
        self._dead = dead
        self._cond = threading.Condition()
        self._adds: list[Submitted] = []  # queued by callers, added by the loop
        self._aborts: list[Submitted] = []
        self._live: dict[str, Submitted] = {}  # external id -> request (loop thread only)
        self._stopping = False
        self.dead: str | None = None
        self.steps = 0
        self._thread = threading.Thread(target=self._run, name="vllm-engine-loop", daemon=True)
        self._thread.start()
        threading.Thread(target=self._watch, name="vllm-engine-watch", daemon=True).start()

    # ------------------------------------------------------------------ callers' side
    def submit(self, request: Submitted) -> Submitted:
        """Queue ``request`` for the engine; ``on_done`` tells when it is finished."""
        with self._cond:
            if self.dead is None and not self._stopping:
                self._adds.append(request)
                self._cond.notify()
                return request
            why = self.dead or "the vLLM engine was closed"
        request.on_done(None, why)
        return request

    def abort(self, requests: list[Submitted]) -> None:
        """Take ``requests`` out of vLLM at once; their ``on_done`` will not be called."""
        for request in requests:
            request.aborted = True
        with self._cond:
            self._aborts.extend(requests)
            self._cond.notify()

    def close(self, timeout: float = 30.0) -> None:
        """Abort what is in flight and stop the thread (the LLM itself is the owner's)."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread is not threading.current_thread():
            # A loop held in a step of a dead vLLM never returns (_watch): do not wait on it.
            self._thread.join(0.5 if self.dead else timeout)
        if not self._thread.is_alive():  # the LLM's memory goes with its last reference
            self._llm = self._engine = self._processor = None

    def unfinished(self) -> int:
        """Requests vLLM holds now (running or waiting in its scheduler)."""
        engine = self._engine
        with contextlib.suppress(Exception):
            return int(engine.get_num_unfinished_requests()) if engine is not None else 0
        return 0

    # ------------------------------------------------------------------ the loop's thread
    def _add(self, request: Submitted) -> None:
        if request.aborted:
            return
        try:
            ids = self._enqueue(request)
        except Exception as exc:  # this page's fault (a prompt too long, a bad image)
            if self._dead(exc, len(self._live) + 1) is not None:
                raise
            request.on_done(None, f"vLLM refused this page: {exc}")
            return
        request.internal = str(ids[0])
        request.started = time.monotonic()
        self._live[external_id(request.internal)] = request
        self._unprefilled.add(external_id(request.internal))

    def _next_add(self) -> Submitted | None:
        """The queued request to add now (lowest priority first), or None: nothing queued,
        or vLLM holds enough not yet prefilled (module contract). Under the condition."""
        held = self._holding()
        candidates = [r for r in self._adds if r.fresh or r.owner in held] if held else self._adds
        if not candidates:
            return None
        if self.pace_tokens is not None and self._unprefilled:
            each = self._prompt_sum / self._prompt_count if self._prompt_count else 0
            waiting = len(self._unprefilled) * (each or FIRST_GUESS_TOKENS)
            if waiting >= self.pace_tokens:
                return None
        return min(candidates, key=lambda r: r.priority)  # the first of the lowest

    def _holding(self) -> list[object]:
        """The owners of fresh requests in vLLM while their hold lasts (module contract), else
        an empty list: only their requests, and other fresh ones, may be added now."""
        if self.hold_s <= 0:
            return []
        owners = [r.owner for r in self._live.values() if r.fresh and not r.aborted]
        if not owners:
            self._hold_since = None
            return []
        now = time.monotonic()
        if self._hold_since is None:
            self._hold_since = now
        return owners if now - self._hold_since < self.hold_s else []

    def _prefilled(self, key: str, prompt_tokens: int | None) -> None:
        """Request ``key`` (external id) made its first token: its prompt is prefilled."""
        if key in self._unprefilled:
            self._unprefilled.discard(key)
            if prompt_tokens:
                self._prompt_sum += prompt_tokens
                self._prompt_count += 1

    def _first_tokens(self) -> None:
        """Read which requests vLLM has prefilled from its output processor.

        Why: vLLM's offline path adds every request with ``RequestOutputKind.FINAL_ONLY``
        (``LLM._add_request``, which ``enqueue_chat`` goes through), so a step returns finished
        requests only, and a page's first token is never seen in its outputs. Paced on those
        alone, vLLM held 5–7 pages on the H200 (results-2026-12-05b.md, "181 / 5"), never the
        plan's pages in flight. The output processor keeps a ``RequestState`` per request
        (internal id) whose ``is_prefilling`` turns False on its first token, for every
        request whatever its output kind (vLLM 0.17–0.34; ``tests/vllm_contract``).
        """
        states = getattr(self._processor, "request_states", None)
        if not isinstance(states, dict):
            return
        for key in list(self._unprefilled):
            request = self._live.get(key)
            state = states.get(request.internal) if request is not None else None
            if state is not None and getattr(state, "is_prefilling", True) is False:
                self._prefilled(key, getattr(state, "prompt_len", None))

    def _enqueue(self, request: Submitted) -> list[str]:
        """Render one chat and add it to vLLM; its internal request ids."""
        enqueue_chat = getattr(self._llm, "enqueue_chat", None)
        if callable(enqueue_chat):  # vLLM 0.26 and later
            return list(
                enqueue_chat(
                    [request.conversation],
                    [request.params],
                    use_tqdm=False,
                    priority=[request.priority],
                    chat_template_kwargs=request.template_kwargs or None,
                )
            )
        # vLLM 0.17 (Chandra's pin) has no enqueue_chat: the two steps its LLM.chat takes
        # (vllm/entrypoints/llm.py: _preprocess_chat_one, then _render_and_add_requests).
        prompt = self._llm._preprocess_chat_one(
            request.conversation, chat_template_kwargs=request.template_kwargs or None
        )
        added = self._llm._render_and_add_requests(
            [prompt], [request.params], priorities=[request.priority]
        )
        return list(added)

    def _abort(self, requests: list[Submitted]) -> None:
        if not requests:
            return
        ids = [r.internal for r in requests if r.internal is not None]
        for request in requests:
            if request.internal is not None:
                self._live.pop(external_id(request.internal), None)
                self._unprefilled.discard(external_id(request.internal))
        if ids:
            self._engine.abort_request(ids, internal=True)

    def _step(self) -> None:
        for output in self._engine.step():  # finished ones (vLLM's FINAL_ONLY), or all
            prompt = getattr(output, "prompt_token_ids", None) or ()
            self._prefilled(str(output.request_id), len(prompt))
            if not getattr(output, "finished", False):
                continue
            request = self._live.pop(str(output.request_id), None)
            if request is not None and not request.aborted:
                request.on_done(output, None)
        self._first_tokens()

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    while not (self._adds or self._aborts or self._stopping or self._live):
                        self._cond.wait()
                    aborts, self._aborts = self._aborts, []
                    self._adds = [r for r in self._adds if not r.aborted]
                    stopping = self._stopping
                if stopping:
                    self._abort(list(self._live.values()))
                    return
                self._abort(aborts)
                while True:  # one by one: a dead engine leaves the rest queued for _die
                    with self._cond:
                        request = self._next_add()
                    if request is None:
                        break
                    self._add(request)
                    with self._cond:
                        self._adds.remove(request)
                if self._live and self._engine.has_unfinished_requests():
                    self._step()
                    self.steps += 1
                elif self._live:  # vLLM lost them (cannot happen; never spin on it)
                    lost, self._live = list(self._live.values()), {}
                    self._unprefilled.clear()
                    for request in lost:
                        request.on_done(None, "vLLM dropped this request without an answer")
        except BaseException as exc:
            self._die(exc)

    def _watch(self) -> None:
        """vLLM 0.26, its EngineCore killed (H200, 2026-12-05): its monitor thread logs "engine
        core exited unexpectedly" and sets ``engine_dead``, while ``step()`` waits forever on an
        output that never comes; the run did not end in 300 s. So the engine's death is also
        read from that flag, and every page pending gets it at once."""
        # Never a waiter on the loop's condition: submit() wakes one waiter, and it must be
        # the loop (a watchdog woken in its place left added pages unread: a hang).
        while True:
            time.sleep(WATCH_S)
            if self._stopping or self.dead is not None:
                return
            if core_exited(self._engine):
                self._die(EngineCoreExited(CORE_EXITED))
                return

    def _die(self, exc: BaseException) -> None:
        # One critical section: a request submitted from now on is answered by submit()
        # itself (``dead`` is set), never left in a queue nobody reads.
        with self._cond:
            if self.dead is not None:  # the watchdog said it first; the step then raised
                return
            pending = [*self._live.values(), *self._adds]
            self._live, self._adds = {}, []
            self._unprefilled.clear()
            try:
                why = self._dead(exc, len(pending))
            except Exception:  # a verdict that fails must not leave its callers waiting
                log.exception("reading the vLLM engine's death failed")
                why = None
            why = why or f"the vLLM engine loop failed: {exc!r}"
            self.dead = why
        log.error("vLLM engine loop stopped: %s", why)
        for request in pending:  # in flight, or queued and never added: the same answer
            if not request.aborted:
                request.on_done(None, why)
