"""``python -m workbench models [--json] [--model M] [--profile P] [--card K] [--gpu-memory GiB]``.

Every model the workbench knows (the one registry, :mod:`workbench.models`) and exactly what
is sent to it: prompt, prompt order, page sizing, sampling, retry sampling, max tokens, output
format, coordinate scale, context length, and the engine arguments it would start with on a
GPU (``vllm.LLM`` keyword arguments for the in-process engine and the ``vllm serve`` command
for a server; the plan of :mod:`workbench.gpu.planner`).

The GPU for the engine arguments is chosen as ``plan`` chooses it (:mod:`workbench.gpu.target`):
``--gpu-memory`` > ``--card`` > the first NVIDIA GPU NVML sees > the profile's own card (no
profile and no GPU: generic-24gb's 24 GiB card); ``engine.gpu`` and ``engine.card`` say which.
``--json`` prints a list of objects, one a model, for tools; without it, a short text block a
model.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from workbench.errors import PlanError
from workbench.gpu.launch import plan_launch
from workbench.gpu.profiles import profile_names
from workbench.gpu.target import PlanTarget, card_keys, resolve_target
from workbench.gpu.telemetry import read_snapshot
from workbench.models import ModelSpec, all_specs, get_spec
from workbench.schema import Sampling


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("models", help="list every model and what is sent to it")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--model", help="only this model (id or alias)")
    parser.add_argument("--profile", choices=profile_names(), help="tuning profile for engine args")
    parser.add_argument("--card", choices=card_keys(), help="plan for this card's memory")
    parser.add_argument("--gpu-memory", type=float, metavar="GiB", help="total GPU memory")
    parser.set_defaults(func=run)


def _sampling(s: Sampling) -> dict[str, Any]:
    out: dict[str, Any] = {"temperature": s.temperature, "top_p": s.top_p}
    out["max_tokens"] = s.max_tokens
    if s.repetition_penalty is not None:
        out["repetition_penalty"] = s.repetition_penalty
    return {**out, **s.extra}


def _engine(spec: ModelSpec, target: PlanTarget) -> dict[str, Any] | None:
    if spec.arch is None:
        return None
    profile = target.profile
    card = target.card.key if target.card else None
    out: dict[str, Any] = {"gpu": target.source, "card": card, "profile": profile.name}
    try:
        launch = plan_launch(spec.id, profile, target.total_bytes, target.free_bytes)
    except PlanError as exc:  # the CPU profile, T4, V100: no vLLM plan, and why
        return {**out, "fits": False, "advice": [str(exc)]}
    out["fits"] = launch.plan.fits
    if not launch.plan.fits:
        return {**out, "advice": list(launch.plan.advice)}
    return {**out, "llm_kwargs": launch.kwargs, "serve_command": launch.serve_command}


def describe(spec: ModelSpec, engine: dict[str, Any] | None) -> dict[str, Any]:
    """One model as a JSON-ready dict (the ``--json`` record)."""
    return {
        "id": spec.id,
        "display": spec.display,
        "family": spec.family,
        "aliases": list(spec.aliases),
        "prompt": spec.prompt,
        "system": spec.system,
        "prompt_order": (
            "image only"
            if spec.prompt is None
            else "text, image"
            if spec.prompt_first
            else "image, text"
        ),
        "chat_template_kwargs": spec.chat_template_kwargs,
        "page_sizing": dataclasses.asdict(spec.sizing),
        "sampling": _sampling(spec.sampling),
        "retry_sampling": [_sampling(s) for s in spec.retry_sampling],
        "retry_on": ["repetition loop"] + (["max_tokens cut-off"] if spec.retry_on_length else []),
        "max_tokens": spec.max_tokens,
        "generation_config": spec.generation_config,
        "parser": spec.parser,
        "output_format": spec.output_format,
        "boxes": spec.boxes,
        "coord_scale": spec.coord_scale or None,
        "context_length": spec.context_length,
        "vllm_args": spec.vllm_args,
        "serve_only_args": spec.serve_args,
        "engine": engine,
        "notes": spec.notes,
        "sources": list(spec.sources),
    }


def _text(record: dict[str, Any]) -> str:
    sizing = {k: v for k, v in record["page_sizing"].items() if v is not None}
    retries = ", ".join(f"{s['temperature']:g}" for s in record["retry_sampling"]) or "none"
    prompt = record["prompt"]
    shown = (
        "(image only)"
        if prompt is None
        else json.dumps(prompt[:120]) + (f" … ({len(prompt)} chars)" if len(prompt) > 120 else "")
    )
    lines = [
        f"{record['id']}  ({record['display']})",
        f"  prompt: {shown}  order: {record['prompt_order']}",
        f"  page sizing: {sizing}",
        f"  sampling: {record['sampling']}",
        f"  retries at temperature: {retries}  on: {', '.join(record['retry_on'])}",
        f"  max tokens: {record['max_tokens']}  context: {record['context_length']}",
        f"  output: {record['output_format']}  coords: {record['coord_scale'] or '-'}",
    ]
    engine = record["engine"]
    if engine and engine.get("fits"):
        lines.append(
            f"  vllm serve ({engine['profile']}, {engine['gpu']}): {engine['serve_command']}"
        )
    elif engine:
        why = engine["advice"][0] if engine.get("advice") else ""
        lines.append(f"  does not fit ({engine['profile']}, {engine['gpu']}): {why}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        specs = [get_spec(args.model)] if args.model else all_specs()
    except KeyError as exc:
        raise PlanError(str(exc.args[0])) from None
    target = resolve_target(
        read_snapshot(with_processes=False), args.profile, args.card, args.gpu_memory
    )
    records = [describe(s, _engine(s, target)) for s in specs]
    if args.json:
        print(json.dumps(records, indent=2, default=str))
    else:
        print("\n\n".join(_text(r) for r in records))
    return 0
