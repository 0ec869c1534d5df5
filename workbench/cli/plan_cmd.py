"""``python -m workbench plan --model MODEL [--profile NAME] [--gpu-memory GiB]``.

Prints the memory plan as JSON: ``max_model_len``, ``kv_cache_bytes``, ``tokens_per_page``,
``pages_in_flight``, ``engine_args`` (the full ``vllm.LLM`` kwargs), ``serve_command``, the
memory split and, when a page does not fit, ``advice``.

GPU precedence: ``--gpu-memory`` (total GiB; free = total minus ``--used-memory``) > the first
NVIDIA GPU NVML sees (total as CUDA sees it: NVML total minus reserved, which is what vLLM
multiplies by gpu_memory_utilization) > an assumed 24 GiB card. Profile: ``--profile`` >
detected from the GPU name and memory. Exit status 0 when a page fits, 1 when it does not,
2 on bad input.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench.errors import PlanError
from workbench.gpu.commands import engine_kwargs, serve_command
from workbench.gpu.planner import GiB, plan_for_model
from workbench.gpu.profiles import detect_profile, get_profile, profile_names
from workbench.gpu.telemetry import read_snapshot

DEFAULT_GIB = 24.0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("plan", help="plan max_model_len and engine args for a GPU")
    parser.add_argument("--model", required=True, help="model id or alias, e.g. lightonai/…")
    parser.add_argument("--profile", choices=profile_names(), help="tuning profile")
    parser.add_argument("--gpu-memory", type=float, metavar="GiB", help="total GPU memory")
    parser.add_argument(
        "--used-memory", type=float, default=0.0, metavar="GiB", help="held by other processes"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    gpu_name: str | None = None
    if args.gpu_memory is not None:
        if args.gpu_memory <= 0 or args.used_memory < 0 or args.used_memory >= args.gpu_memory:
            raise PlanError("--gpu-memory must be > 0 and --used-memory between 0 and it")
        total = int(args.gpu_memory * GiB)
        free = int((args.gpu_memory - args.used_memory) * GiB)
        source = f"--gpu-memory {args.gpu_memory:g} GiB"
    else:
        snap = read_snapshot(with_processes=False)
        if snap.first is not None:
            gpu = snap.first
            gpu_name, total, free = gpu.name, gpu.cuda_total_bytes, gpu.free_bytes
            source = f"GPU 0: {gpu.name}"
        else:
            total = free = int(DEFAULT_GIB * GiB)
            source = f"assumed {DEFAULT_GIB:g} GiB card ({snap.summary()})"
    profile = get_profile(args.profile) if args.profile else detect_profile(gpu_name, total)
    plan, _arch, spec = plan_for_model(args.model, profile, total, free)
    kwargs = engine_kwargs(plan.model_id, spec, profile, plan)
    out = {"gpu": source, **plan.to_json()}
    out["engine_args"] = kwargs
    out["serve_command"] = serve_command(kwargs)
    print(json.dumps(out, indent=2))
    return 0 if plan.fits else 1
