"""Cost of reading NVML, per call and per workbench snapshot (the sidebar reads one every 2 s).

    python benchmarks/gpu_nvml.py [--n 2000]

Prints µs per call for each NVML query the workbench makes and for a whole
``read_snapshot()`` (with and without the process list), and the snapshot's cost as a ratio
of the 2 s refresh period. Without a GPU it prints the no-GPU line and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.gpu.telemetry import read_snapshot


def per_call_us(fn: Callable[[], Any], n: int) -> float:
    for _ in range(min(n, 50)):  # warm-up
        fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e6


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=2000)
    n = parser.parse_args().n
    snap = read_snapshot()
    print(snap.summary())
    if not snap.available:
        return 0
    import pynvml as nv

    h = nv.nvmlDeviceGetHandleByIndex(0)
    calls: dict[str, Callable[[], Any]] = {
        "memory v1": lambda: nv.nvmlDeviceGetMemoryInfo(h),
        "memory v2": lambda: nv.nvmlDeviceGetMemoryInfo(h, version=nv.nvmlMemory_v2),
        "utilization": lambda: nv.nvmlDeviceGetUtilizationRates(h),
        "temperature": lambda: nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
        "power": lambda: nv.nvmlDeviceGetPowerUsage(h),
        "compute processes": lambda: nv.nvmlDeviceGetComputeRunningProcesses(h),
        "graphics processes": lambda: nv.nvmlDeviceGetGraphicsRunningProcesses(h),
        "read_snapshot()": lambda: read_snapshot(),
        "read_snapshot(no processes)": lambda: read_snapshot(with_processes=False),
    }
    results = {}
    for name, fn in calls.items():
        results[name] = per_call_us(fn, n)
        print(f"{name:30s} {results[name]:10.1f} µs per call")
    snap_us = results["read_snapshot()"]
    gpus = len(snap.gpus)
    print(f"snapshot of {gpus} GPU(s): {snap_us:.1f} µs per snapshot")
    print(f"snapshot / memory-v2 call: {snap_us / results['memory v2']:.1f}x")
    print(f"snapshot / 2 s refresh period: {snap_us / 2e6:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
