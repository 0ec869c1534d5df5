"""Live GPU readings through NVML (``nvidia-ml-py``, imported lazily as ``pynvml``).

:func:`read_snapshot` returns a :class:`GpuSnapshot`; it never raises. Without a driver or
GPU the snapshot has no GPUs and ``error`` holds NVML's reason, and :meth:`GpuSnapshot.summary`
is the one line "No NVIDIA GPU (NVML: …)".

Memory: NVML v2 (``nvmlDeviceGetMemoryInfo(handle, version=nvmlMemory_v2)``) splits what v1
calls "used" into ``reserved`` (driver/firmware, 615 MiB on an idle H200) and ``used``
(allocations); where v2 is missing, ``reserved`` is None and ``used`` is v1's figure. Bytes
throughout; ``total`` is NVML's (torch's ``mem_get_info`` total is NVML total minus reserved).

A reading that the device does not support (power on some boards, processes in containers)
is None, never an error. NVML is initialised once per process; handles are cached, so a
snapshot costs a few NVML calls (~30 µs on an H200; ``benchmarks/gpu_nvml.py``).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")
MiB = 1024**2


@dataclass(frozen=True)
class GpuProcess:
    pid: int
    name: str
    used_bytes: int | None  # None: NVML cannot say (containers, WDDM)


@dataclass(frozen=True)
class GpuReading:
    index: int
    name: str
    uuid: str
    total_bytes: int
    used_bytes: int
    free_bytes: int
    reserved_bytes: int | None = None  # v2 only
    utilization_pct: int | None = None
    memory_utilization_pct: int | None = None
    temperature_c: int | None = None
    power_w: float | None = None
    power_limit_w: float | None = None
    compute_capability: tuple[int, int] | None = None
    processes: tuple[GpuProcess, ...] = ()

    @property
    def cuda_total_bytes(self) -> int:
        """Total as CUDA (``torch.cuda.mem_get_info``, hence vLLM) sees it: NVML total minus
        the driver-reserved part (143,771 - 615 = 143,156 MiB on an H200)."""
        return self.total_bytes - (self.reserved_bytes or 0)

    @property
    def used_fraction(self) -> float:
        return self.used_bytes / self.total_bytes if self.total_bytes else 0.0

    def line(self) -> str:
        used, total = self.used_bytes / MiB, self.total_bytes / MiB
        parts = [f"GPU {self.index}: {self.name}", f"{used:,.0f} / {total:,.0f} MiB used"]
        if self.reserved_bytes is not None:
            parts.append(f"{self.reserved_bytes / MiB:,.0f} MiB reserved")
        if self.utilization_pct is not None:
            parts.append(f"{self.utilization_pct}% util")
        if self.temperature_c is not None:
            parts.append(f"{self.temperature_c} °C")
        if self.power_w is not None:
            limit = f" / {self.power_limit_w:.0f}" if self.power_limit_w else ""
            parts.append(f"{self.power_w:.0f}{limit} W")
        parts.append(f"{len(self.processes)} process(es)")
        return ", ".join(parts)


@dataclass(frozen=True)
class GpuSnapshot:
    time: float
    gpus: tuple[GpuReading, ...] = ()
    driver_version: str | None = None
    nvml_version: str | None = None
    error: str | None = None  # why there are no readings

    @property
    def available(self) -> bool:
        return bool(self.gpus)

    @property
    def first(self) -> GpuReading | None:
        return self.gpus[0] if self.gpus else None

    def summary(self) -> str:
        if not self.gpus:
            return f"No NVIDIA GPU (NVML: {self.error or 'no devices'})"
        return f"{len(self.gpus)} NVIDIA GPU(s), driver {self.driver_version}"

    def lines(self) -> list[str]:
        out = [self.summary()]
        for gpu in self.gpus:
            out.append(gpu.line())
            for proc in gpu.processes:
                mem = "?" if proc.used_bytes is None else f"{proc.used_bytes / MiB:,.0f} MiB"
                out.append(f"    pid {proc.pid} {proc.name}: {mem}")
        return out


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


class NvmlReader:
    """One NVML session; ``nvml`` is the ``pynvml`` module (tests inject a fake)."""

    def __init__(self, nvml: ModuleType | Any) -> None:
        self.nvml = nvml
        nvml.nvmlInit()
        count = nvml.nvmlDeviceGetCount()
        self.handles = [nvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        self.driver = self._try(lambda: _text(nvml.nvmlSystemGetDriverVersion()))
        self.nvml_version = self._try(lambda: _text(nvml.nvmlSystemGetNVMLVersion()))
        self.static = [self._static(h) for h in self.handles]
        self._names: dict[int, str] = {}
        self._v2 = hasattr(nvml, "nvmlMemory_v2")

    def _try(self, fn: Callable[[], T]) -> T | None:
        try:
            return fn()
        except self.nvml.NVMLError:
            return None

    def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except self.nvml.NVMLError:
            return None

    def _static(self, h: Any) -> tuple[str, str, float | None, tuple[int, int] | None]:
        n = self.nvml
        name = _text(n.nvmlDeviceGetName(h))
        uuid = self._try(lambda: _text(n.nvmlDeviceGetUUID(h))) or ""
        limit = self._try(lambda: n.nvmlDeviceGetEnforcedPowerLimit(h) / 1000.0)
        cap = self._call(n.nvmlDeviceGetCudaComputeCapability, h)
        cc = (int(cap[0]), int(cap[1])) if cap else None
        return name, uuid, limit, cc

    def memory(self, h: Any) -> tuple[int, int, int, int | None]:
        """(total, used, free, reserved) in bytes, v2 where the driver has it."""
        if self._v2:
            try:
                m = self.nvml.nvmlDeviceGetMemoryInfo(h, version=self.nvml.nvmlMemory_v2)
                return int(m.total), int(m.used), int(m.free), int(m.reserved)
            except (self.nvml.NVMLError, TypeError, AttributeError):
                self._v2 = False
        m = self.nvml.nvmlDeviceGetMemoryInfo(h)
        return int(m.total), int(m.used), int(m.free), None

    def _process_name(self, pid: int) -> str:
        if pid not in self._names:
            name = self._try(lambda: _text(self.nvml.nvmlSystemGetProcessName(pid)))
            self._names[pid] = name or "?"
        return self._names[pid]

    def processes(self, h: Any) -> tuple[GpuProcess, ...]:
        n = self.nvml
        seen: dict[int, GpuProcess] = {}
        for fn in (n.nvmlDeviceGetComputeRunningProcesses, n.nvmlDeviceGetGraphicsRunningProcesses):
            for p in self._call(fn, h) or ():
                used = getattr(p, "usedGpuMemory", None)
                if p.pid not in seen or seen[p.pid].used_bytes is None:
                    seen[p.pid] = GpuProcess(int(p.pid), self._process_name(int(p.pid)), used)
        return tuple(sorted(seen.values(), key=lambda p: -(p.used_bytes or 0)))

    def read(self, *, with_processes: bool = True) -> GpuSnapshot:
        n = self.nvml
        gpus = []
        for i, h in enumerate(self.handles):
            name, uuid, limit, cc = self.static[i]
            total, used, free, reserved = self.memory(h)
            rates = self._call(n.nvmlDeviceGetUtilizationRates, h)
            temp = self._call(n.nvmlDeviceGetTemperature, h, n.NVML_TEMPERATURE_GPU)
            milliwatts = self._call(n.nvmlDeviceGetPowerUsage, h)
            power = None if milliwatts is None else milliwatts / 1000.0
            gpus.append(
                GpuReading(
                    index=i,
                    name=name,
                    uuid=uuid,
                    total_bytes=total,
                    used_bytes=used,
                    free_bytes=free,
                    reserved_bytes=reserved,
                    utilization_pct=None if rates is None else int(rates.gpu),
                    memory_utilization_pct=None if rates is None else int(rates.memory),
                    temperature_c=None if temp is None else int(temp),
                    power_w=power,
                    power_limit_w=limit,
                    compute_capability=cc,
                    processes=self.processes(h) if with_processes else (),
                )
            )
        return GpuSnapshot(time.time(), tuple(gpus), self.driver, self.nvml_version)


_lock = threading.Lock()
_reader: NvmlReader | None = None
_failure: str | None = None


def _load_pynvml() -> ModuleType:
    import pynvml

    return pynvml


def read_snapshot(nvml: Any = None, *, with_processes: bool = True) -> GpuSnapshot:
    """Readings for every NVIDIA GPU, or an empty snapshot whose ``error`` says why.

    With ``nvml`` given (tests), a fresh reader is built on it; otherwise one process-wide
    reader is built on the real ``pynvml`` on first use (a failure is remembered: retrying
    ``nvmlInit`` without a driver every 2 s would only cost time).
    """
    global _reader, _failure
    try:
        if nvml is not None:
            return NvmlReader(nvml).read(with_processes=with_processes)
        with _lock:
            if _reader is None and _failure is None:
                try:
                    _reader = NvmlReader(_load_pynvml())
                except ImportError as exc:
                    _failure = f"nvidia-ml-py not installed ({exc})"
                except Exception as exc:  # pynvml.NVMLError and driver oddities
                    _failure = _text(exc) or type(exc).__name__
            reader = _reader
        if reader is None:
            return GpuSnapshot(time.time(), error=_failure)
        return reader.read(with_processes=with_processes)
    except Exception as exc:  # a reading must never take the app down
        return GpuSnapshot(time.time(), error=_text(exc) or type(exc).__name__)


def reset() -> None:
    """Forget the cached reader (tests; after a driver reload)."""
    global _reader, _failure
    with _lock:
        _reader, _failure = None, None


@dataclass
class History:
    """Ring buffer of (time, gpu index, used bytes, utilisation %) for a chart of the last
    ``maxlen`` samples (150 x 2 s = 5 minutes)."""

    maxlen: int = 150
    samples: deque[tuple[float, int, int, int | None]] = field(init=False)

    def __post_init__(self) -> None:
        self.samples = deque(maxlen=self.maxlen * 8)

    def add(self, snapshot: GpuSnapshot) -> None:
        for gpu in snapshot.gpus:
            self.samples.append((snapshot.time, gpu.index, gpu.used_bytes, gpu.utilization_pct))
        gpus = max((g.index for g in snapshot.gpus), default=0) + 1
        while len(self.samples) > self.maxlen * gpus:
            self.samples.popleft()

    def rows(self) -> Iterable[dict[str, Any]]:
        for t, index, used, util in self.samples:
            yield {"time": t, "gpu": index, "used_gib": used / 1024**3, "util_pct": util}
