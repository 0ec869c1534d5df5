"""Telemetry: the real no-driver path on this machine, and multi-GPU parsing on a fake pynvml."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from workbench.gpu import telemetry
from workbench.gpu.telemetry import History, read_snapshot

MiB = 1024**2


class FakeNvml:
    """The slice of pynvml the reader uses: GPU 0 an H200 with v2 memory and two processes,
    GPU 1 an L4 whose power reading is unsupported."""

    NVML_TEMPERATURE_GPU = 0
    nvmlMemory_v2 = 0x02000028

    class NVMLError(Exception):
        pass

    def __init__(self) -> None:
        self.inits = 0
        self.devices = [
            dict(name="NVIDIA H200", total=143_771 * MiB, used=4_100 * MiB, reserved=615 * MiB,
                 util=37, mem=12, temp=41, power=250_500, limit=700_000, cc=(9, 0),
                 procs=[(4242, 4_096 * MiB), (77, None)]),
            dict(name=b"NVIDIA L4", total=23_034 * MiB, used=100 * MiB, reserved=400 * MiB,
                 util=0, mem=0, temp=30, power=None, limit=72_000, cc=(8, 9), procs=[]),
        ]  # fmt: skip

    def nvmlInit(self) -> None:
        self.inits += 1

    def nvmlDeviceGetCount(self) -> int:
        return len(self.devices)

    def nvmlDeviceGetHandleByIndex(self, i: int) -> dict:
        return self.devices[i]

    def nvmlSystemGetDriverVersion(self) -> str:
        return "580.159.04"

    def nvmlSystemGetNVMLVersion(self) -> str:
        return "13.580.159.04"

    def nvmlDeviceGetName(self, h: dict) -> str | bytes:
        return h["name"]

    def nvmlDeviceGetUUID(self, h: dict) -> str:
        return f"GPU-{self.devices.index(h)}"

    def nvmlDeviceGetEnforcedPowerLimit(self, h: dict) -> int:
        return h["limit"]

    def nvmlDeviceGetCudaComputeCapability(self, h: dict) -> tuple[int, int]:
        return h["cc"]

    def nvmlDeviceGetMemoryInfo(self, h: dict, version: int | None = None) -> SimpleNamespace:
        assert version == self.nvmlMemory_v2
        free = h["total"] - h["used"] - h["reserved"]
        return SimpleNamespace(total=h["total"], used=h["used"], free=free, reserved=h["reserved"])

    def nvmlDeviceGetUtilizationRates(self, h: dict) -> SimpleNamespace:
        return SimpleNamespace(gpu=h["util"], memory=h["mem"])

    def nvmlDeviceGetTemperature(self, h: dict, sensor: int) -> int:
        return h["temp"]

    def nvmlDeviceGetPowerUsage(self, h: dict) -> int:
        if h["power"] is None:
            raise self.NVMLError("Not Supported")
        return h["power"]

    def nvmlDeviceGetComputeRunningProcesses(self, h: dict) -> list[SimpleNamespace]:
        return [SimpleNamespace(pid=p, usedGpuMemory=m) for p, m in h["procs"]]

    def nvmlDeviceGetGraphicsRunningProcesses(self, h: dict) -> list[SimpleNamespace]:
        raise self.NVMLError("Not Supported")

    def nvmlSystemGetProcessName(self, pid: int) -> bytes:
        if pid == 77:
            raise self.NVMLError("No permission")
        return b"python3"


def test_multi_gpu_snapshot_from_fake_nvml() -> None:
    snap = read_snapshot(FakeNvml())
    assert snap.available and snap.error is None
    assert snap.summary() == "2 NVIDIA GPU(s), driver 580.159.04"
    h200, l4 = snap.gpus
    assert (h200.index, h200.name, l4.name) == (0, "NVIDIA H200", "NVIDIA L4")  # bytes decoded
    assert h200.used_bytes == 4_100 * MiB and h200.reserved_bytes == 615 * MiB
    assert h200.free_bytes == (143_771 - 4_100 - 615) * MiB
    assert h200.cuda_total_bytes == (143_771 - 615) * MiB  # what torch/vLLM call total
    assert h200.power_w == 250.5 and h200.power_limit_w == 700.0
    assert h200.compute_capability == (9, 0)
    assert l4.power_w is None  # unsupported reading is None, not an error
    assert [(p.pid, p.name, p.used_bytes) for p in h200.processes] == [
        (4242, "python3", 4_096 * MiB),
        (77, "?", None),
    ]
    lines = snap.lines()
    assert lines[1] == (
        "GPU 0: NVIDIA H200, 4,100 / 143,771 MiB used, 615 MiB reserved, 37% util, 41 °C, "
        "250 / 700 W, 2 process(es)"
    )
    assert lines[2] == "    pid 4242 python3: 4,096 MiB"
    assert lines[3] == "    pid 77 ?: ?"
    assert lines[4] == (
        "GPU 1: NVIDIA L4, 100 / 23,034 MiB used, 400 MiB reserved, 0% util, 30 °C, 0 process(es)"
    )


def test_v1_fallback_when_v2_is_missing() -> None:
    fake = FakeNvml()
    del FakeNvml.nvmlMemory_v2  # an old nvidia-ml-py
    try:
        fake.nvmlDeviceGetMemoryInfo = lambda h, version=None: SimpleNamespace(  # type: ignore[method-assign]
            total=h["total"], used=h["used"] + h["reserved"], free=h["total"] - h["used"]
        )
        gpu = read_snapshot(fake).gpus[0]
    finally:
        FakeNvml.nvmlMemory_v2 = 0x02000028
    assert gpu.reserved_bytes is None and gpu.used_bytes == (4_100 + 615) * MiB


def test_broken_nvml_never_raises() -> None:
    fake = FakeNvml()
    fake.nvmlDeviceGetCount = lambda: 1 / 0  # type: ignore[method-assign]
    snap = read_snapshot(fake)
    assert not snap.available and snap.error == "division by zero"


def test_no_driver_here_gives_the_one_line() -> None:
    pynvml = pytest.importorskip("pynvml")
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        pass
    else:
        pynvml.nvmlShutdown()
        pytest.skip("this machine has an NVIDIA driver")
    telemetry.reset()
    snap = read_snapshot()
    assert not snap.available and snap.gpus == ()
    assert snap.summary() == "No NVIDIA GPU (NVML: NVML Shared Library Not Found)"
    assert snap.lines() == [snap.summary()]


def test_history_keeps_the_last_samples_per_gpu() -> None:
    fake = FakeNvml()
    history = History(maxlen=3)
    for used in range(5):
        fake.devices[0]["used"] = used * MiB
        history.add(read_snapshot(fake, with_processes=False))
    rows = list(history.rows())
    assert len(rows) == 6  # 3 samples x 2 GPUs
    assert [r["used_gib"] * 1024 for r in rows if r["gpu"] == 0] == [2.0, 3.0, 4.0]
