"""``python -m workbench gpu``: detected NVIDIA GPUs, live readings and the matching profile.

Exit status 0 with or without a GPU ("No NVIDIA GPU (NVML: …)" is an answer, not an error).
The last line says what ``plan`` and the GPU page plan for by default (without a GPU: the
generic-24gb profile's 24 GiB card; :mod:`workbench.gpu.target`).
``--json`` prints the snapshot as JSON (bytes, W, °C, %).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from typing import Any

from workbench.gpu.profiles import detect_profile
from workbench.gpu.target import resolve_target
from workbench.gpu.telemetry import read_snapshot


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("gpu", help="show NVIDIA GPUs, memory in use and the profile")
    parser.add_argument("--json", action="store_true", help="print the readings as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    snap = read_snapshot()
    first = snap.first
    profile = detect_profile(first.name if first else None, first.total_bytes if first else None)
    target = resolve_target(snap)
    if args.json:
        data = asdict(snap)
        data["profile"] = profile.name
        data["plans_for"] = {"profile": target.profile.name, "gpu": target.source}
        print(json.dumps(data, indent=2))
        return 0
    for line in snap.lines():
        print(line)
    print(f"profile: {profile.name} ({profile.label})")
    print(f"plans for: {target.profile.name} on {target.source}")
    return 0
