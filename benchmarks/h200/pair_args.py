"""The two servers of ``pair_stage.sh``: a vendor's recipe and the workbench's plan for one
model, each given UTIL of the GPU (both run at once on one GPU so their clients alternate run
by run), and both given the lab's own arguments (``WORKBENCH_VLLM_ARGS``: ``load_format
dummy``, a backend the lab's site can run). Prints two shell-quoted lines of ``vllm serve``
flags (no ``vllm serve MODEL``): the recipe's, then the plan's (``plan_local_launch`` on this
machine's GPU, as the app and CLI plan it).

    python3 benchmarks/h200/pair_args.py MODEL UTIL "RECIPE FLAGS"
"""

from __future__ import annotations

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


def main(model: str, util: float, recipe: str) -> tuple[list[str], list[str]]:
    lab = serve_argv({"model": model, **extra_args()})[3:]
    recipe_flags = with_util([*shlex.split(recipe), *lab], util)
    launch = plan_local_launch(get_spec(model), None)
    plan = with_util(serve_argv({**launch.kwargs, "gpu_memory_utilization": util})[3:], util)
    return recipe_flags, plan


if __name__ == "__main__":
    recipe_flags, plan_flags = main(sys.argv[1], float(sys.argv[2]), sys.argv[3])
    print(shlex.join(recipe_flags))
    print(shlex.join(plan_flags))
