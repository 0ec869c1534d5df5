"""``GET /v1/engine/telemetry``: live readings of the machine the engine runs on. Today the
GPUs' NVML readings (:func:`workbench.gpu.telemetry.read_snapshot`: memory, utilisation,
power; an empty list with NVML's reason where there is no GPU) beside the engine's name."""

from __future__ import annotations

import dataclasses
from typing import Any

from workbench.engines.base import Engine
from workbench.gpu.telemetry import read_snapshot


def engine_telemetry(engine: Engine) -> dict[str, Any]:
    snapshot = read_snapshot(with_processes=False)
    return {
        "engine": engine.name,
        "model": engine.model,
        "source": "nvml",
        "time": snapshot.time,
        "gpus": [dataclasses.asdict(g) for g in snapshot.gpus],
        "driver_version": snapshot.driver_version,
        "error": snapshot.error,
    }
