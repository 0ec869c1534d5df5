"""Real-GPU checks (marker ``gpu``; skipped without NVML/driver):

1. the workbench's NVML readings agree with ``nvidia-smi --query-gpu`` (total exactly; used
   within 32 MiB, as v2 ``used`` or v1 ``used + reserved``; temperature within 3 °C);
2. a KV cache of N blocks as vLLM allocates it (one ``torch.zeros(N x bytes_per_block,
   dtype=int8)``) raises NVML "used" by exactly the planner's bytes (2 MiB allocator rounding);
3. the planner's whole budget for this GPU (weights + activation peak + CUDA graphs + KV
   cache, as plain tensors) can actually be allocated, and stays under util_eff x total
   plus the CUDA context.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from workbench.gpu.planner import MiB, bytes_per_block, plan_memory
from workbench.gpu.profiles import detect_profile
from workbench.gpu.telemetry import read_snapshot
from workbench.models import get_spec

SNAP = read_snapshot()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not SNAP.available, reason=SNAP.summary()),
]
FIELDS = "index,name,memory.total,memory.used,memory.reserved,temperature.gpu,power.draw"


def _smi() -> list[dict[str, str]]:
    if shutil.which("nvidia-smi") is None:
        pytest.skip("nvidia-smi not on PATH")
    out = subprocess.run(
        ["nvidia-smi", f"--query-gpu={FIELDS}", "--format=csv,noheader,nounits"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print("nvidia-smi:", out.strip())
    keys = FIELDS.split(",")
    return [
        dict(zip(keys, (v.strip() for v in line.split(",")), strict=True))
        for line in out.strip().splitlines()
    ]


def test_gpu_readings_match_nvidia_smi() -> None:
    rows = _smi()
    snap = read_snapshot()
    print("\n".join(snap.lines()))
    assert len(rows) == len(snap.gpus)
    for row, gpu in zip(rows, snap.gpus, strict=True):
        assert row["name"] == gpu.name
        assert int(row["memory.total"]) == gpu.total_bytes // MiB
        smi_used = int(row["memory.used"])
        ours = {gpu.used_bytes // MiB, (gpu.used_bytes + (gpu.reserved_bytes or 0)) // MiB}
        assert min(abs(smi_used - v) for v in ours) <= 32, (smi_used, ours)
        if gpu.temperature_c is not None and row["temperature.gpu"].isdigit():
            assert abs(int(row["temperature.gpu"]) - gpu.temperature_c) <= 3


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def _used(index: int = 0) -> int:
    return read_snapshot(with_processes=False).gpus[index].used_bytes


def test_gpu_kv_cache_allocation_matches_planner() -> None:
    torch = _torch()
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    bpb = bytes_per_block(arch.arch, 16, "auto")
    assert bpb == 1_835_008  # 1.75 MiB, vllm.md §4
    torch.zeros(1, device="cuda")  # create the CUDA context first: it is not KV cache
    torch.cuda.synchronize()
    for blocks in (512, 2048, 9363):
        before = _used()
        kv = torch.zeros(blocks * bpb, dtype=torch.int8, device="cuda")
        torch.cuda.synchronize()
        delta = _used() - before
        planned = blocks * bpb / MiB
        print(f"{blocks} blocks: planner {planned:.2f} MiB, NVML delta {delta / MiB:.2f} MiB")
        assert abs(delta - blocks * bpb) <= 2 * MiB
        del kv
        torch.cuda.empty_cache()


def test_gpu_planned_budget_allocates_within_util() -> None:
    torch = _torch()
    gpu = read_snapshot(with_processes=False).gpus[0]
    free, total = torch.cuda.mem_get_info()  # what vLLM sees (NVML total minus reserved)
    profile = detect_profile(gpu.name, total)
    arch = get_spec("lightonai/LightOnOCR-2-1B")
    assert arch is not None
    plan = plan_memory(arch, profile, total, free)
    assert plan.fits
    before = _used()
    parts = [plan.weights_bytes, plan.activation_bytes, plan.cuda_graph_bytes, plan.kv_cache_bytes]
    tensors = [torch.empty(n, dtype=torch.int8, device="cuda") for n in parts if n]
    torch.cuda.synchronize()
    grown = _used() - before
    print(
        f"profile {profile.name}: util_eff {plan.util_eff:.4f}, "
        f"KV {plan.kv_cache_bytes / MiB:,.0f} MiB, {plan.num_blocks} blocks, "
        f"max_model_len {plan.max_model_len}, planned total "
        f"{sum(parts) / MiB:,.0f} MiB, NVML grew {grown / MiB:,.0f} MiB, "
        f"cap {plan.util_eff * total / MiB:,.0f} MiB"
    )
    assert abs(grown - sum(parts)) <= 2 * MiB * len(tensors)
    assert sum(parts) <= plan.util_eff * total
    del tensors
    torch.cuda.empty_cache()


def test_gpu_plan_beside_a_cotenant_fits_in_a_fresh_process() -> None:
    """Another process holds most of the card; the plan made from NVML's free memory must
    still be allocatable by a *new* process (which pays its own CUDA context, ~0.5 GiB: the
    planner's 1 GiB margin is there for that), and must request no more than is free."""
    import json
    import sys

    torch = _torch()
    free, _total = torch.cuda.mem_get_info()
    cotenant = torch.empty(int(free * 0.7), dtype=torch.int8, device="cuda")
    torch.cuda.synchronize()
    gpu = read_snapshot(with_processes=False).gpus[0]
    total = gpu.cuda_total_bytes
    arch = get_spec("allenai/olmOCR-2-7B-1025")
    assert arch is not None
    plan = plan_memory(arch, detect_profile(gpu.name, total), total, gpu.free_bytes)
    parts = plan.weights_bytes + plan.activation_bytes + plan.cuda_graph_bytes
    parts += plan.kv_cache_bytes
    code = (
        "import torch,sys,json; free0=torch.cuda.mem_get_info()[0]; "
        "t=torch.empty(int(sys.argv[1]),dtype=torch.int8,device='cuda'); "
        "torch.cuda.synchronize(); print(json.dumps([free0, torch.cuda.mem_get_info()[0]]))"
    )
    child = subprocess.run(
        [sys.executable, "-c", code, str(parts)], capture_output=True, text=True, timeout=300
    )
    print(
        f"co-tenant {cotenant.numel() / MiB:,.0f} MiB; NVML free {gpu.free_bytes / MiB:,.0f} MiB; "
        f"util_eff {plan.util_eff:.4f}; planned {parts / MiB:,.0f} MiB "
        f"(KV {plan.kv_cache_bytes / MiB:,.0f} MiB, max_model_len {plan.max_model_len}); "
        f"child: {child.stdout.strip()} {child.stderr.strip()[-200:]}"
    )
    del cotenant
    torch.cuda.empty_cache()
    assert child.returncode == 0, child.stderr[-500:]
    free0, free1 = json.loads(child.stdout)
    assert plan.util_eff * total <= free0  # vLLM's start-up check: free >= util x total
    assert free1 >= 0
