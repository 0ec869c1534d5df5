"""What the in-process vLLM engine is started with, decided before anything is loaded.

:func:`plan_local_launch` reads the first GPU (NVML), takes the tuning profile (named, or
detected from the GPU's name and memory), runs the memory planner for the model and merges
spec, profile and plan into ``vllm.LLM`` keyword arguments (:mod:`workbench.gpu.commands`
gives the precedence). When one page cannot fit it raises :class:`PlanError` with the
planner's advice, so the user hears it before vLLM touches the GPU. Shared by the app's
sidebar and ``python -m workbench ocr --engine vllm`` (:func:`planned_options`).

The plan is made for the vLLM installed here (:func:`workbench.gpu.vllm_versions.installed_version`:
its encoder profiling decides ``max_num_batched_tokens``). ``WORKBENCH_VLLM_ARGS``, a JSON
object, is merged last into the ``vllm.LLM`` arguments: what the planner does not decide
(``{"load_format": "dummy"}`` to run a model's architecture without its weights, a
``quantization``), or an override the user owns (it is their plan then).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any

from workbench.engines.factory import LocalOptions
from workbench.errors import EngineUnavailable, PlanError
from workbench.gpu import commands, planner, profiles, telemetry, vllm_versions
from workbench.gpu.planner import MemoryPlan
from workbench.gpu.profiles import Profile
from workbench.models.registry import ModelSpec


@dataclass(frozen=True)
class LocalLaunch:
    kwargs: dict[str, Any]  # vllm.LLM(**kwargs), "model" included
    plan: MemoryPlan
    profile: Profile
    gpu: str

    def predicted(self) -> dict[str, str]:
        """The planner's numbers, to set beside what vLLM reports once it has started."""
        gib = 1024**3
        return {
            "planned max_model_len": str(self.plan.max_model_len),
            "planned KV cache": f"{self.plan.kv_cache_bytes / gib:.1f} GiB",
            "planned pages in flight": str(self.plan.pages_in_flight),
        }


def plan_local_launch(
    spec: ModelSpec,
    profile: Profile | str | None = None,
    snapshot: telemetry.GpuSnapshot | None = None,
) -> LocalLaunch:
    snapshot = snapshot or telemetry.read_snapshot(with_processes=False)
    gpu = snapshot.first
    if gpu is None:
        raise EngineUnavailable(
            f"vLLM in-process needs an NVIDIA GPU; {snapshot.summary().lower()}"
        )
    if profile is None:
        profile = profiles.detect_profile(gpu.name, gpu.total_bytes)
    elif isinstance(profile, str):
        profile = profiles.get_profile(profile)
    plan, _, _ = planner.plan_for_model(
        spec.id, profile, gpu.cuda_total_bytes, gpu.free_bytes,
        vllm_version=vllm_versions.installed_version(),
    )  # fmt: skip
    if not plan.fits:
        raise PlanError(
            f"{spec.display} cannot fit one page on {gpu.name} with the {profile.name} "
            "profile. " + " ".join(plan.advice)
        )
    kwargs = {**commands.engine_kwargs(spec.id, spec, profile, plan), **extra_args()}
    return LocalLaunch(kwargs=kwargs, plan=plan, profile=profile, gpu=gpu.name)


def planned_options(options: LocalOptions, launch: LocalLaunch) -> LocalOptions:
    """``options`` as ``launch`` plans them, the one rule for every front end: the plan's
    ``vllm.LLM`` arguments under the options' own (``--engine-arg`` goes over the plan), and
    pages in flight from the plan unless the options give a number."""
    return replace(
        options,
        engine_args={**launch.kwargs, **options.engine_args},
        concurrency=options.concurrency or launch.plan.pages_in_flight,
    )


def extra_args() -> dict[str, Any]:
    """``WORKBENCH_VLLM_ARGS`` (module doc), or {} when unset; a bad value is an error."""
    raw = os.environ.get("WORKBENCH_VLLM_ARGS", "").strip()
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise PlanError(f"WORKBENCH_VLLM_ARGS is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise PlanError("WORKBENCH_VLLM_ARGS must be a JSON object of vllm.LLM arguments")
    return value
