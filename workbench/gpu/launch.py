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
class Launch:
    """One model's launch as the planner decides it, the value every reader takes whole (the
    ``plan`` and ``models`` commands, the GPU page, the probe, the in-process engine): the
    spec it was resolved to once, the profile, the memory plan, the ``vllm.LLM`` keyword
    arguments (``model`` included), and what follows from them (:attr:`serve_command`, the
    example calls). ``gpu``: the GPU it was planned on (:func:`plan_local_launch`), else
    empty."""

    spec: ModelSpec
    profile: Profile
    plan: MemoryPlan
    kwargs: dict[str, Any]
    gpu: str = ""

    @classmethod
    def of(
        cls, spec: ModelSpec, profile: Profile, plan: MemoryPlan, *, gpu: str = "",
        extra: dict[str, Any] | None = None,
    ) -> Launch:  # fmt: skip
        """The launch of ``plan`` (made for ``spec`` with ``profile``); ``extra`` goes over
        its ``vllm.LLM`` arguments."""
        kwargs = {**commands.engine_kwargs(spec.id, spec, plan), **(extra or {})}
        return cls(spec=spec, profile=profile, plan=plan, kwargs=kwargs, gpu=gpu)

    @property
    def serve_command(self) -> str:
        """The ``vllm serve`` line that starts this launch as a server (with the profile's
        ``vllm serve``-only flags)."""
        return commands.serve_command({**self.kwargs, **self.profile.serve_args()})

    @property
    def example_curl(self) -> str:
        return commands.example_curl(self.spec)

    @property
    def example_python(self) -> str:
        return commands.example_python(self.spec)

    def predicted(self) -> dict[str, str]:
        """The planner's numbers, to set beside what vLLM reports once it has started."""
        gib = 1024**3
        return {
            "planned max_model_len": str(self.plan.max_model_len),
            "planned KV cache": f"{self.plan.kv_cache_bytes / gib:.1f} GiB",
            "planned pages in flight": str(self.plan.pages_in_flight),
        }


def plan_launch(
    model: str,
    profile: Profile,
    total_bytes: int,
    free_bytes: int | None = None,
    *,
    vllm_version: str | None = None,
) -> Launch:
    """The launch of ``model`` (id, alias or served name) with ``profile`` on a card of
    ``total_bytes`` with ``free_bytes`` free (:func:`~workbench.gpu.planner.plan_for_model`);
    raises :class:`PlanError` when there is no plan (the CPU profile, an unknown model)."""
    plan, _arch, spec = planner.plan_for_model(
        model, profile, total_bytes, free_bytes, vllm_version=vllm_version
    )
    return Launch.of(spec, profile, plan)


def plan_local_launch(
    spec: ModelSpec,
    profile: Profile | str | None = None,
    snapshot: telemetry.GpuSnapshot | None = None,
) -> Launch:
    """The launch of ``spec`` on this machine's first GPU (module doc)."""
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
    return Launch.of(spec, profile, plan, gpu=gpu.name, extra=extra_args())


def planned_options(options: LocalOptions, launch: Launch) -> LocalOptions:
    """``options`` as ``launch`` plans them, the one rule for every front end: the plan's
    ``vllm.LLM`` arguments under the options' own (``--engine-arg`` goes over the plan), and
    pages in flight from the plan unless the options give a number; the model's samplings
    (first try and first retry) to warm its sampler with."""
    spec = launch.spec
    return replace(
        options,
        engine_args={**launch.kwargs, **options.engine_args},
        concurrency=options.concurrency or launch.plan.pages_in_flight,
        samplings=options.samplings or (spec.sampling, *spec.retry_sampling[:1]),
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
