"""vLLM's ``/metrics`` page, written as vLLM writes it, for tests without a GPU.

No ``/metrics`` text of a real vLLM was kept from a GPU hold (``shared/gpu-lab`` has none), so
this builds the families the workbench reads exactly as vLLM's ``PrometheusStatLogger``
defines them (``vllm/v1/metrics/loggers.py``: names, help, label names, buckets; read at
vLLM's main branch and 0.10 through the ``search`` tool) on a private ``prometheus_client``
registry, and lets ``prometheus_client`` write the text, as vLLM's server does. ``legacy``
adds the gauge vLLM ≤ 0.10 also exported (``vllm:gpu_cache_usage_perc``).

:class:`VllmMetrics` holds the state a test moves: :meth:`set_load` (running, waiting, KV
cache use), :meth:`finish` (a request ended: tokens, finish reason, time to first token),
:meth:`preempt`; :meth:`text` is the page.
"""

from __future__ import annotations

import threading

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LABELS = ["model_name", "engine"]
TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]  # fmt: skip
REASONS = ("stop", "length", "abort", "error", "repetition")


class VllmMetrics:
    """One engine's metrics (label ``engine="0"``), served model ``model``."""

    def __init__(
        self, model: str = "fake/ocr-model", kv_blocks: int = 2000, block_size: int = 16,
        *, legacy: bool = False,
    ) -> None:  # fmt: skip
        self.registry = CollectorRegistry()
        self.kv_tokens = kv_blocks * block_size
        self._lock = threading.Lock()
        values = (model, "0")
        reg = self.registry

        def one(kind: type, name: str, help: str, **kw: object) -> object:
            return kind(name, help, LABELS, registry=reg, **kw).labels(*values)  # type: ignore[operator]

        self.running: Gauge = one(
            Gauge, "vllm:num_requests_running", "Number of requests in model execution batches."
        )  # type: ignore[assignment]
        self.waiting: Gauge = one(
            Gauge, "vllm:num_requests_waiting", "Number of requests waiting to be processed."
        )  # type: ignore[assignment]
        self.kv: Gauge = one(
            Gauge, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."
        )  # type: ignore[assignment]
        self.legacy_kv: Gauge | None = None
        if legacy:
            self.legacy_kv = one(
                Gauge,
                "vllm:gpu_cache_usage_perc",
                "GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use "
                "vllm:kv_cache_usage_perc instead.",
            )  # type: ignore[assignment]
        self.preemptions: Counter = one(
            Counter, "vllm:num_preemptions", "Cumulative number of preemption from the engine."
        )  # type: ignore[assignment]
        self.prompt: Counter = one(
            Counter, "vllm:prompt_tokens", "Number of prefill tokens processed."
        )  # type: ignore[assignment]
        self.generation: Counter = one(
            Counter, "vllm:generation_tokens", "Number of generation tokens processed."
        )  # type: ignore[assignment]
        success = Counter(
            "vllm:request_success",
            "Count of successfully processed requests.",
            [*LABELS, "finished_reason"],
            registry=reg,
        )
        self.success = {r: success.labels(model, "0", r) for r in REASONS}
        self.ttft: Histogram = one(
            Histogram,
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            buckets=TTFT_BUCKETS,
        )  # type: ignore[assignment]
        steps: Histogram = one(
            Histogram,
            "vllm:iteration_tokens_total",
            "Histogram of number of tokens per engine_step.",
            buckets=[1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384],
        )  # type: ignore[assignment]
        steps.observe(8)
        info = Gauge(
            "vllm:cache_config_info",
            "Information of the LLMEngine CacheConfig",
            ["block_size", "cache_dtype", "engine", "num_gpu_blocks"],
            registry=reg,
        )
        info.labels(str(block_size), "auto", "0", str(kv_blocks)).set(1)

    def set_load(self, running: int, waiting: int, kv_usage: float) -> None:
        with self._lock:
            self.running.set(running)
            self.waiting.set(waiting)
            self.kv.set(kv_usage)
            if self.legacy_kv is not None:
                self.legacy_kv.set(kv_usage)

    def finish(self, reason: str, prompt_tokens: int, tokens: int, ttft: float) -> None:
        with self._lock:
            self.prompt.inc(prompt_tokens)
            self.generation.inc(tokens)
            self.success[reason if reason in self.success else "stop"].inc()
            self.ttft.observe(ttft)

    def preempt(self, n: int = 1) -> None:
        with self._lock:
            self.preemptions.inc(n)

    def text(self) -> str:
        with self._lock:
            return generate_latest(self.registry).decode()
