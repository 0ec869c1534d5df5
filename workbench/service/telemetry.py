"""``GET /v1/engine/telemetry``: what the engine is doing, read when asked.

* ``vllm``: vLLM's own numbers for a vLLM engine (a server's ``/metrics`` or the in-process
  engine's stats: :func:`workbench.gpu.engine_watch.engine_stats`, the reader the app's
  panel and the CLI use): KV cache use, requests running and waiting, preemptions, token
  totals, answers cut off at ``max_tokens``, time to first token; token rates over the time
  since the previous request's reading. None for the CPU engine or a server that does not
  answer.
* ``gpus``: this machine's NVML readings (:func:`workbench.gpu.telemetry.read_snapshot`:
  memory, utilisation, power); empty, with NVML's reason in ``gpu_error``, without a GPU.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

from workbench.engines.base import Engine
from workbench.engines.stats import EngineStats
from workbench.gpu.engine_watch import engine_stats
from workbench.gpu.telemetry import read_snapshot


class EngineTelemetry:
    """Readings of the engine held now (``engine()``: a rebuilt one after a death); remembers
    the last reading of that engine so each gives token rates."""

    def __init__(self, engine: Callable[[], Engine]) -> None:
        self._engine = engine
        self._last: tuple[int, EngineStats] | None = None
        self._lock = threading.Lock()

    def read(self) -> dict[str, Any]:
        engine = self._engine()
        stats = engine_stats(engine)
        if stats is not None:
            with self._lock:
                last = self._last[1] if self._last and self._last[0] == id(engine) else None
                stats, self._last = stats.since(last), (id(engine), stats)
        snapshot = read_snapshot(with_processes=False)
        return {
            "engine": engine.name,
            "model": engine.model,
            "vllm": stats.to_json() if stats is not None else None,
            "time": snapshot.time,
            "gpus": [dataclasses.asdict(g) for g in snapshot.gpus],
            "driver_version": snapshot.driver_version,
            "gpu_error": snapshot.error,
        }
