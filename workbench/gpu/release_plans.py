"""One model on one card planned for each release users run, and what the plan for one
release would change on the others (``plan`` and the GPU page show it).

:func:`which_vllm` says which release a plan is made for and how it was known (given,
installed here, or assumed: :data:`workbench.gpu.vllm_versions.DEFAULT`).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import PlanError
from workbench.gpu import vllm_versions
from workbench.gpu.planner import GiB, MemoryPlan, plan_memory
from workbench.gpu.profiles import Profile
from workbench.models.registry import ModelSpec


@dataclass(frozen=True)
class WhichVllm:
    version: str
    how: str  # "given", "installed here", "assumed (none installed)"

    @property
    def supported(self) -> bool:
        return vllm_versions.supported(self.version)


def which_vllm(given: str | None) -> WhichVllm:
    """``given`` (a version like ``0.34.0``; anything else is a :class:`PlanError`), else the
    installed one, else the assumed default."""
    if given:
        if vllm_versions.version_key(given) == (0, 0, 0):
            raise PlanError(f"--vllm-version {given!r} is not a vLLM version like 0.34.0")
        return WhichVllm(vllm_versions.normalise(given), "given")
    here = vllm_versions.installed_version()
    if here:
        return WhichVllm(vllm_versions.normalise(here), "installed here")
    return WhichVllm(vllm_versions.DEFAULT, "assumed (no vLLM installed here)")


@dataclass(frozen=True)
class ReleaseRow:
    version: str
    fits: bool
    max_model_len: int
    kv_cache_bytes: int
    max_num_batched_tokens: int
    gpu_memory_utilization: float | None  # None: not passed (the release's default)
    pages_in_flight: int

    def as_dict(self) -> dict[str, object]:
        return dict(vars(self))


def row(plan: MemoryPlan) -> ReleaseRow:
    util = plan.engine_args.get("gpu_memory_utilization")
    return ReleaseRow(
        plan.vllm_version, plan.fits, plan.max_model_len, plan.kv_cache_bytes,
        int(plan.engine_args["max_num_batched_tokens"]),
        None if util is None else float(util), plan.pages_in_flight,
    )  # fmt: skip


def compare(spec: ModelSpec, profile: Profile, total: int, free: int) -> list[ReleaseRow]:
    """The plan's key numbers for every release in ``PLANNED_RELEASES``."""
    return [
        row(plan_memory(spec, profile, total, free, vllm_version=v, _advise=False))
        for v in vllm_versions.PLANNED_RELEASES
    ]


def differences(plan: MemoryPlan, rows: list[ReleaseRow]) -> list[str]:
    """One line per other release whose plan differs from ``plan``'s, saying how."""
    mine = row(plan)
    lines = []
    for other in rows:
        if other.version == mine.version:
            continue
        changed = [
            f"{label} {fmt(getattr(mine, name))} → {fmt(getattr(other, name))}"
            for name, label, fmt in _FIELDS
            if getattr(mine, name) != getattr(other, name)
        ]
        if changed:
            lines.append(f"vLLM {other.version}: " + ", ".join(changed))
    return lines


def _util(value: object) -> str:
    return "unset (1.0)" if value is None else f"{value}"


def _n(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


_FIELDS = (
    ("fits", "fits", str),
    ("max_model_len", "max_model_len", _n),
    ("kv_cache_bytes", "KV", lambda b: f"{int(str(b)) / GiB:.1f} GiB"),
    ("max_num_batched_tokens", "max_num_batched_tokens", _n),
    ("gpu_memory_utilization", "gpu_memory_utilization", _util),
    ("pages_in_flight", "pages in flight", _n),
)
