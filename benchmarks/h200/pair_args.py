"""The two servers of ``pair_stage.sh``: a vendor's recipe and the workbench's plan for one
model, each given UTIL of the GPU (both run at once on one GPU so their clients alternate run
by run), and both given the lab's own arguments (``WORKBENCH_VLLM_ARGS``: ``load_format
dummy``, a backend the lab's site can run). Prints two shell-quoted lines of ``vllm serve``
flags (no ``vllm serve MODEL``): the recipe's, then the plan's (``plan_local_launch`` on this
machine's GPU, as the app and CLI plan it). Given CANDIDATE (a JSON object of engine
arguments), a third line: the plan with those arguments changed (a plan's before and after
served beside the recipe in one run).

    python3 benchmarks/h200/pair_args.py MODEL UTIL "RECIPE FLAGS" [CANDIDATE]
    (CANDIDATE e.g. '{"max_num_batched_tokens": 16384}')
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from workbench.gpu.commands import serve_argv
from workbench.gpu.launch import extra_args, plan_local_launch
from workbench.models.registry import get_spec

UTIL_FLAGS = ("--gpu-memory-utilization", "--gpu_memory_utilization")


def with_util(flags: list[str], util: float) -> list[str]:
    """``flags`` with the GPU share set to ``util`` (replaced where the recipe names one)."""
    out: list[str] = []
    skip = False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag in UTIL_FLAGS:
            skip = True
            continue
        if flag.split("=", 1)[0] in UTIL_FLAGS:
            continue
        out.append(flag)
    return [*out, "--gpu-memory-utilization", str(util)]


def main(model: str, util: float, recipe: str, candidate: str = "") -> list[list[str]]:
    """The recipe's flags, the plan's, and (given ``candidate``) the plan's with
    ``candidate``'s engine arguments changed."""
    lab = serve_argv({"model": model, **extra_args()})[3:]
    recipe_flags = with_util([*shlex.split(recipe), *lab], util)
    launch = plan_local_launch(get_spec(model), None)  # its serve-only flags too (profile's)
    kwargs = {**launch.kwargs, **launch.profile.serve_args(), "gpu_memory_utilization": util}
    out = [recipe_flags, with_util(serve_argv(kwargs)[3:], util)]
    if candidate:
        out.append(with_util(serve_argv({**kwargs, **json.loads(candidate)})[3:], util))
    return out


if __name__ == "__main__":
    for flags in main(sys.argv[1], float(sys.argv[2]), sys.argv[3], *sys.argv[4:5]):
        print(shlex.join(flags))
