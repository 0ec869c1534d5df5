"""A stand-in for the ``vllm`` package that schedules like vLLM's engine, for tests without a GPU.

What it keeps of vLLM 0.26–0.33 (the parts :mod:`workbench.engines.loop` uses; the real
signatures are checked by ``tests/vllm_contract``):

* ``LLM(model, **engine_args)`` with ``llm_engine.vllm_config`` (``model_config.max_model_len``,
  ``cache_config.num_gpu_blocks``/``block_size``, ``scheduler_config.max_num_seqs``) and
  ``llm_engine.engine_core.shutdown()``;
* ``LLM.enqueue_chat([conversation], [params], use_tqdm=, chat_template_kwargs=)`` renders one
  chat and returns its *internal* id (``"7-1a2b3c4d"``, as vLLM's ``assign_request_id`` makes
  it); a prompt ``"BAD"`` raises ``ValueError`` there (vLLM: longer than max_model_len);
* ``llm_engine.step()``: one scheduler step of ``step_s`` seconds. A request is first
  prefilled (``prefill_steps`` steps; at most ``prefill_per_step`` requests advance their
  prefill in one step, as vLLM's token budget allows), then each of the first
  ``max_num_seqs`` prefilled requests gains one token a step. As vLLM V1 does, *running*
  requests (scheduled once already) take the budget first, in the order they started; then
  waiting ones, oldest first, or by ``(priority, arrival)`` with
  ``scheduling_policy="priority"``. With ``starts_all`` (vLLM 0.26 with image prompts: once the
  step's encoder budget is spent, each waiting page's text before its image is scheduled)
  every waiting request becomes running in the step after it is added. It returns the
  ``RequestOutput``-like objects (``request_id`` = the *external* id, ``finished``,
  ``prompt_token_ids``, ``outputs[0].text/finish_reason/token_ids``) of the requests that
  finished in the step: requests are added as vLLM's offline path adds them
  (``LLM._add_request`` sets ``RequestOutputKind.FINAL_ONLY``); a request added with another
  kind is reported every step it makes a token (vLLM's ``CUMULATIVE``).
  ``llm_engine.output_processor.request_states`` holds each unfinished request's state by
  internal id, ``is_prefilling`` False from its first token, ``prompt_len``; ``crowded``
  counts, per request, the steps it decoded in that also advanced another one's prefill;
  ``abort_request(ids, internal=True)``, ``has_unfinished_requests()``,
  ``get_num_unfinished_requests()``;
* :meth:`FakeLLM.die`: the next step raises ``EngineDeadError`` (the EngineCore is gone), and
  so does every later call, as vLLM does after a ``kill -9`` of its EngineCore;
* ``LLM.chat(conversations, params)``: all at once, returned in order (the raw baseline).
* ``LLM.get_metrics()``: ``vllm.v1.metrics.reader``'s ``Counter``/``Gauge``/``Histogram``
  series of the engine's scheduler (running, waiting, KV cache use: each request holds
  :data:`PROMPT_TOKENS` plus its tokens so far, of ``num_gpu_blocks × block_size``), token
  totals, requests finished by reason and time to first token; it raises, as vLLM does, when
  the engine was built with stats logging off (``disable_log_stats``, vLLM's default).

An answer is ``"width W"`` (the page image's width) after ``tokens`` steps (``max_tokens`` with
``ignore_eos``, as the probe asks); a prompt ``"LOOP"``
at temperature 0 loops until ``max_tokens`` (at most 64 steps; finish reason ``length``).

:func:`from_env` is the app's engine hook for browser tests
(``WORKBENCH_ENGINE_FACTORY=tests.fakes.fake_vllm:from_env``): the real
:class:`~workbench.engines.vllm_local.VllmLocalEngine` on this fake, ``WORKBENCH_FAKE_STEP_S``
seconds a step, ``WORKBENCH_FAKE_TOKENS`` tokens an answer, ``WORKBENCH_FAKE_SEQS`` pages at
once.
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

LOOP = "| a | b |\n" * 100
PROMPT_TOKENS = 100  # a fake page's prompt (image + text) in the KV cache
TTFT_BUCKETS = (0.001, 0.01, 0.1, 1.0, 10.0, float("inf"))
MODEL = "lightonai/LightOnOCR-2-1B"
FINAL_ONLY = "FINAL_ONLY"  # vllm.sampling_params.RequestOutputKind.FINAL_ONLY


class EngineDeadError(Exception):
    """Named as vLLM's (``vllm.v1.engine.exceptions.EngineDeadError``)."""


@dataclass
class SamplingParams:  # unknown keywords raise TypeError, like the real one
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 16
    repetition_penalty: float = 1.0
    top_k: int = -1
    ignore_eos: bool = False  # the probe's: answer until max_tokens
    output_kind: Any = None


@dataclass(eq=False)
class _Request:
    external: str
    internal: str
    text: str
    finish: str
    needed: int
    template_kwargs: dict[str, Any] | None
    priority: int = 0
    arrival: int = 0
    prefilled: int = 0
    started: int = -1  # the step it was first scheduled (running from then on)
    made: int = 0
    added: float = field(default_factory=time.monotonic)
    final_only: bool = False  # RequestOutputKind.FINAL_ONLY: reported once, when finished


@dataclass
class Metric:  # vllm.v1.metrics.reader's classes, by their fields
    name: str
    labels: dict[str, str]


@dataclass
class Counter(Metric):
    value: int


@dataclass
class Gauge(Metric):
    value: float


@dataclass
class Histogram(Metric):
    count: int
    sum: float
    buckets: dict[str, int]


@dataclass
class _Engine:
    llm: FakeLLM
    step_s: float
    max_num_seqs: int
    vllm_config: Any = None
    engine_core: Any = None
    queue: list[_Request] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)
    most_running: int = 0  # the largest number of requests one step advanced
    most_unprefilled: int = 0  # the most requests held at once whose prefill was not done
    steps: int = 0
    policy: str = "fcfs"
    prefill_steps: int = 1
    prefill_per_step: int = 10**6
    starts_all: bool = True
    finished: list[str] = field(default_factory=list)  # external ids, in the order they ended
    last_added: int = 0  # the arrival number of the latest request added
    added_before_end: dict[str, int] = field(default_factory=dict)  # id -> last_added at its end
    prompt_tokens: int = 0
    generation_tokens: int = 0
    by_reason: dict[str, int] = field(default_factory=dict)
    ttfts: list[float] = field(default_factory=list)
    # external id -> the steps it decoded in that also advanced another request's prefill
    # (on a GPU such a step takes several times a plain decode step)
    crowded: dict[str, int] = field(default_factory=dict)
    # vLLM's OutputProcessor: a RequestState per request (internal id) whose is_prefilling
    # turns False on its first token, whatever the request's output kind
    output_processor: Any = field(default_factory=lambda: SimpleNamespace(request_states={}))

    def _alive(self) -> None:
        if self.llm.dead and self.llm.hangs:  # as vLLM 0.26 on the H200: step() never returns
            self.llm.released.wait()
        if self.llm.dead:
            raise EngineDeadError(
                "EngineCore encountered an issue. See stack trace (above) for the root cause."
            )

    def has_unfinished_requests(self) -> bool:
        return bool(self.queue)

    def get_num_unfinished_requests(self) -> int:
        return len(self.queue)

    def abort_request(self, request_ids: list[str], internal: bool = False) -> None:
        ids = set(request_ids)
        self.aborted += request_ids
        gone = [r for r in self.queue if (r.internal if internal else r.external) in ids]
        self.queue = [r for r in self.queue if r not in gone]
        for request in gone:
            self.output_processor.request_states.pop(request.internal, None)

    def step(self) -> list[Any]:
        self._alive()
        time.sleep(self.step_s)
        self._alive()
        started = [r for r in self.queue if r.started >= 0 and r.prefilled < self.prefill_steps]
        waiting = [r for r in self.queue if r.started < 0]
        self.most_unprefilled = max(self.most_unprefilled, len(started) + len(waiting))
        if self.policy == "priority":
            waiting.sort(key=lambda r: (r.priority, r.arrival))
        backlog = sorted(started, key=lambda r: (r.started, r.arrival)) + waiting
        prefilling = backlog[: self.prefill_per_step]
        for request in self.queue:
            if request.made >= 1 and prefilling:
                self.crowded[request.external] = self.crowded.get(request.external, 0) + 1
        for request in prefilling:
            request.prefilled += 1
            request.started = self.steps if request.started < 0 else request.started
            self.prompt_tokens += PROMPT_TOKENS if request.prefilled == self.prefill_steps else 0
        if self.starts_all:
            for request in waiting:
                request.started = self.steps if request.started < 0 else request.started
        # the step that ends a prompt's prefill samples its first token, as vLLM's does
        running = [r for r in self.queue if r.prefilled >= self.prefill_steps][: self.max_num_seqs]
        self.most_running = max(self.most_running, len(running))
        self.steps += 1
        done = []
        for request in running:
            request.made += 1
            self.generation_tokens += 1
            if request.made == 1:
                self.ttfts.append(time.monotonic() - request.added)
                self.output_processor.request_states[request.internal].is_prefilling = False
            if request.made >= request.needed:
                done.append(request)
                self.by_reason[request.finish] = self.by_reason.get(request.finish, 0) + 1
        self.queue = [r for r in self.queue if r not in done]
        self.finished += [r.external for r in done]
        self.added_before_end.update((r.external, self.last_added) for r in done)
        for request in done:
            self.output_processor.request_states.pop(request.internal, None)
        return [
            SimpleNamespace(
                request_id=r.external,
                finished=r in done,
                prompt_token_ids=[0] * PROMPT_TOKENS,
                outputs=[
                    SimpleNamespace(
                        text=r.text if r in done else "",
                        finish_reason=r.finish if r in done else None,
                        token_ids=[1] * r.made,
                    )
                ],
            )
            for r in running
            if r in done or not r.final_only
        ]


class FakeLLM:
    """vLLM 0.26–0.34's ``LLM`` (``enqueue_chat``); :class:`FakeLLM017` is 0.17's."""

    last: FakeLLM | None = None
    tokens = 4  # steps (tokens) an ordinary answer takes
    step_s = 0.002
    max_num_seqs = 256
    prefill_steps = 1
    prefill_per_step = 10**6

    def __init__(self, model: str, **kwargs: Any) -> None:
        if kwargs.get("gpu_memory_utilization", 0.5) > 1:
            raise ValueError("gpu_memory_utilization must be at most 1")
        self.model, self.kwargs = model, kwargs
        self.dead = False
        self.hangs = False
        self.released = threading.Event()  # lets a hung step go at the end of a test
        self.shutdowns = 0
        self.rendered: list[dict[str, Any] | None] = []  # chat_template_kwargs per request
        self.generated: list[tuple[int, Any]] = []  # generate(): (requests, their params)
        self.texts: dict[str, str] = {}  # external id -> the answer it will give
        self._ids = itertools.count()
        chosen = kwargs["max_model_len"] if kwargs.get("max_model_len", -1) > 0 else 32768
        seqs = int(kwargs.get("max_num_seqs") or self.max_num_seqs)
        self.llm_engine = _Engine(self, self.step_s, seqs)
        self.llm_engine.policy = str(kwargs.get("scheduling_policy", "fcfs"))
        self.llm_engine.prefill_steps = self.prefill_steps
        self.llm_engine.prefill_per_step = self.prefill_per_step
        self.llm_engine.vllm_config = SimpleNamespace(
            model_config=SimpleNamespace(max_model_len=chosen),
            cache_config=SimpleNamespace(num_gpu_blocks=2000, block_size=16),
            # vLLM's token budget, in the fake's units (a page is PROMPT_TOKENS)
            scheduler_config=SimpleNamespace(
                max_num_seqs=seqs,
                max_num_batched_tokens=min(
                    8192, self.prefill_per_step * PROMPT_TOKENS // self.prefill_steps
                ),
            ),
        )
        # vLLM's MPClient: its monitor thread sets resources.engine_dead when the EngineCore
        # process exits (v1/engine/core_client.py, start_engine_core_monitor)
        self.llm_engine.engine_core = SimpleNamespace(
            shutdown=self._shutdown, resources=SimpleNamespace(engine_dead=False)
        )
        FakeLLM.last = self

    def _shutdown(self) -> None:
        self.shutdowns += 1

    def get_metrics(self) -> list[Metric]:
        """vLLM's metrics snapshot (module doc); raises when stats logging is off."""
        if self.kwargs.get("disable_log_stats", True):
            raise AssertionError("Stat logging disabled")
        engine, labels = self.llm_engine, {"model_name": self.model, "engine": "0"}
        cache = engine.vllm_config.cache_config
        running = [r for r in engine.queue if r.prefilled >= engine.prefill_steps]
        held = sum(PROMPT_TOKENS + r.made for r in running[: engine.max_num_seqs])
        ttfts = list(engine.ttfts)
        buckets = {str(b): sum(t <= b for t in ttfts) for b in TTFT_BUCKETS}
        buckets["+Inf"] = buckets.pop("inf")
        info = {"block_size": str(cache.block_size), "num_gpu_blocks": str(cache.num_gpu_blocks)}
        reasons = engine.by_reason
        now = min(len(running), engine.max_num_seqs)
        kv = min(1.0, held / (cache.num_gpu_blocks * cache.block_size))
        success = [
            Counter("vllm:request_success", {**labels, "finished_reason": r}, reasons.get(r, 0))
            for r in ("stop", "length", "abort")
        ]
        return [
            Gauge("vllm:num_requests_running", labels, now),
            Gauge("vllm:num_requests_waiting", labels, len(engine.queue) - now),
            Gauge("vllm:kv_cache_usage_perc", labels, kv),
            Gauge("vllm:cache_config_info", {**labels, **info}, 1.0),
            Counter("vllm:num_preemptions", labels, 0),
            Counter("vllm:prompt_tokens", labels, engine.prompt_tokens),
            Counter("vllm:generation_tokens", labels, engine.generation_tokens),
            *success,
            Histogram("vllm:time_to_first_token_seconds", labels, len(ttfts), sum(ttfts), buckets),
        ]

    def die(self, hang: bool = False) -> None:
        """The EngineCore process is gone: the next step (and every call after) raises; with
        ``hang``, as measured on the H200 with vLLM 0.26 after a kill -9 of the EngineCore,
        vLLM's monitor only sets ``engine_dead`` and a step waits forever (until the test
        ends: :attr:`released`)."""
        self.hangs = hang
        self.dead = True
        self.llm_engine.engine_core.resources.engine_dead = True

    def _preprocess_chat_one(
        self, conversation: list[Any], chat_template_kwargs: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """vLLM's rendering of one chat (here: what the answer will be)."""
        self.llm_engine._alive()
        user = conversation[-1]["content"]
        image = next(part["image_pil"] for part in user if part.get("type") == "image_pil")
        prompt = next((part["text"] for part in user if part.get("type") == "text"), "")
        if prompt == "BAD":
            raise ValueError("prompt is longer than max_model_len")
        return {"prompt": prompt, "width": image.width, "template": chat_template_kwargs}

    def _render_and_add_requests(
        self, prompts: list[dict[str, Any]], params: list[Any], *, priorities: list[int]
    ) -> list[str]:
        ids = []
        for prompt, sampling, rank in zip(prompts, params, priorities, strict=True):
            if prompt["prompt"] == "LOOP" and sampling.temperature == 0:
                text, finish, needed = LOOP, "length", min(sampling.max_tokens, 64)
            elif sampling.ignore_eos:
                text, finish, needed = "x " * sampling.max_tokens, "length", sampling.max_tokens
            else:
                text, finish, needed = f"width {prompt['width']}", "stop", self.tokens
            external = str(next(self._ids))
            request = _Request(
                external, f"{external}-1a2b3c4d", text, finish, needed, prompt["template"],
                priority=rank, arrival=int(external),
            )  # fmt: skip
            # vLLM's LLM._add_request: the offline path wants the final output only
            sampling.output_kind = FINAL_ONLY
            request.final_only = True
            state = SimpleNamespace(is_prefilling=True, prompt_len=PROMPT_TOKENS)
            self.llm_engine.output_processor.request_states[request.internal] = state
            self.rendered.append(prompt["template"])
            self.texts[external] = text
            self.llm_engine.queue.append(request)
            self.llm_engine.last_added = request.arrival
            ids.append(request.internal)
        return ids

    def enqueue_chat(
        self,
        messages: list[Any],
        sampling_params: list[SamplingParams],
        use_tqdm: bool = True,
        chat_template_kwargs: dict[str, Any] | None = None,
        priority: list[int] | None = None,
    ) -> list[str]:
        """vLLM 0.26 and later: both steps for each conversation."""
        prompts = [self._preprocess_chat_one(c, chat_template_kwargs) for c in messages]
        return self._render_and_add_requests(
            prompts, list(sampling_params), priorities=priority or [0] * len(prompts)
        )

    def generate(
        self, prompts: list[Any], sampling_params: list[SamplingParams], use_tqdm: bool = True
    ) -> list[Any]:
        """Token-id prompts (the sampler warm-up's): recorded, answered with nothing."""
        self.llm_engine._alive()
        assert all(list(p) == ["prompt_token_ids"] for p in prompts)
        assert len(sampling_params) == len(prompts)
        self.generated.append((len(prompts), sampling_params[0]))
        return [SimpleNamespace(outputs=[]) for _ in prompts]

    def chat(
        self,
        messages: list[Any],
        sampling_params: list[SamplingParams],
        use_tqdm: bool = True,
        chat_template_kwargs: dict[str, Any] | None = None,
    ) -> list[Any]:
        ids = self.enqueue_chat(messages, sampling_params, use_tqdm, chat_template_kwargs)
        outputs: dict[str, Any] = {}
        while self.llm_engine.has_unfinished_requests():
            for output in self.llm_engine.step():
                outputs[output.request_id] = output
        return [outputs[i.rsplit("-", 1)[0]] for i in ids]


class FakeLLM017(FakeLLM):
    """vLLM 0.17's ``LLM``: no ``enqueue_chat``, only the two steps its ``chat`` takes."""

    enqueue_chat = None  # type: ignore[assignment]


def module() -> types.ModuleType:
    """A ``vllm`` module object holding the fakes."""
    fake = types.ModuleType("vllm")
    fake.LLM = FakeLLM  # type: ignore[attr-defined]
    fake.SamplingParams = SamplingParams  # type: ignore[attr-defined]
    return fake


_install_lock = threading.Lock()


def install() -> None:
    """Put the fake in ``sys.modules`` as ``vllm`` (the app's hook; tests use monkeypatch)."""
    with _install_lock:
        if not isinstance(sys.modules.get("vllm"), types.ModuleType) or not hasattr(
            sys.modules["vllm"], "LLM"
        ):
            sys.modules["vllm"] = module()


def from_env(choice: Any) -> Any:
    """The app's engine for browser tests: the real in-process engine on this fake."""
    from workbench.engines.vllm_local import VllmLocalEngine

    install()
    FakeLLM.step_s = float(os.environ.get("WORKBENCH_FAKE_STEP_S", "0.002"))
    FakeLLM.tokens = int(os.environ.get("WORKBENCH_FAKE_TOKENS", "4"))
    seqs = int(os.environ.get("WORKBENCH_FAKE_SEQS", "8"))
    return VllmLocalEngine(MODEL, {"max_num_seqs": seqs})
