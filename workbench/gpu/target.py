"""Which GPU a plan is for: one rule shared by ``plan``, ``models`` and the GPU page.

A tuning profile names the cards it is tuned for (:class:`workbench.gpu.cards.Card`), so the
memory planned for always follows the profile. Precedence, first that applies:

1. a memory size given (``--gpu-memory``): that size, ``used`` of it held by others; the
   profile is the one named, else the one detected from the size alone (141 GiB: h100-h200);
2. a card named (``--card``, the GPU page's card box): its memory, idle; the profile is the
   one named (it must list the card), else the card's own;
3. the GPU NVML sees, when no profile is named or the one named is that GPU's own: its total
   as CUDA reports it (NVML total minus reserved) and its free memory;
4. otherwise the profile's first card, idle (no profile and no GPU: ``generic-24gb`` and its
   24 GiB card), and the plan says it assumed that card.

:func:`targets` lists the choices the GPU page offers for one profile (the present GPU, then
each of the profile's cards) with the default first-choice index, by the same rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import PlanError
from workbench.gpu.cards import Card, GiB
from workbench.gpu.profiles import PROFILES, Profile, detect_profile, get_profile
from workbench.gpu.telemetry import GpuReading, GpuSnapshot

#: What the workbench plans for when there is no GPU and no profile was chosen.
NO_GPU_PROFILE = "generic-24gb"


@dataclass(frozen=True)
class PlanTarget:
    """One GPU to plan for: the profile, the memory, and where the numbers came from."""

    profile: Profile
    total_bytes: int
    free_bytes: int
    card: Card | None  # the card planned for (None: a bare size, or a GPU no profile names)
    gpu: GpuReading | None  # the present GPU, when the plan is for it
    source: str  # one line: "GPU 0: NVIDIA H200", "assumed H100 (80 GiB), …"

    @property
    def assumed(self) -> bool:
        """True when no GPU was measured: the memory is a card's nominal size or a given one."""
        return self.gpu is None

    @property
    def label(self) -> str:
        """Short name for a choice box: the GPU or the card."""
        if self.gpu is not None:
            return f"this GPU: {self.gpu.name} ({self.total_bytes / GiB:.2f} GiB)"
        return self.card.label if self.card else f"{self.total_bytes / GiB:g} GiB"


def all_cards() -> list[tuple[Card, Profile]]:
    """Every card a profile names, with that profile (card keys are unique)."""
    return [(card, p) for p in PROFILES for card in p.cards]


def card_keys() -> list[str]:
    return [card.key for card, _ in all_cards()]


def find_card(key: str) -> tuple[Card, Profile]:
    for card, profile in all_cards():
        if card.key == key.lower():
            return card, profile
    raise PlanError(f"unknown card {key!r}; known: {', '.join(card_keys())}")


def planning_profile(gpu: GpuReading | None) -> Profile:
    """The profile detected for ``gpu``; with no GPU, :data:`NO_GPU_PROFILE` (the CPU
    profile runs no vLLM, so there is nothing to plan with it)."""
    profile = detect_profile(gpu.name if gpu else None, gpu.total_bytes if gpu else None)
    return get_profile(NO_GPU_PROFILE) if profile.name == "cpu" else profile


def _card_target(profile: Profile, card: Card, why: str) -> PlanTarget:
    source = f"assumed {card.label}, the {profile.name} profile's card ({why})"
    return PlanTarget(profile, card.total_bytes, card.total_bytes, card, None, source)


def _gpu_target(profile: Profile, gpu: GpuReading) -> PlanTarget:
    total = gpu.cuda_total_bytes
    card = profile.card_for_memory(gpu.total_bytes)
    return PlanTarget(profile, total, gpu.free_bytes, card, gpu, f"GPU {gpu.index}: {gpu.name}")


def _no_card_reason(snapshot: GpuSnapshot) -> str:
    gpu = snapshot.first
    if gpu is None:
        return f"no GPU here, NVML: {snapshot.error or 'no devices'}"
    return f"GPU {gpu.index} is a {gpu.name}, another profile's card"


def targets(profile: Profile, snapshot: GpuSnapshot) -> tuple[list[PlanTarget], int]:
    """The GPUs one profile can be planned for (the present GPU first, then the profile's
    cards) and the index of the default: the present GPU when it is this profile's, else the
    profile's first card."""
    gpu = snapshot.first
    out = [_gpu_target(profile, gpu)] if gpu is not None else []
    why = _no_card_reason(snapshot)
    out += [_card_target(profile, card, why) for card in profile.cards]
    own_gpu = gpu is not None and planning_profile(gpu).name == profile.name
    default = 0 if own_gpu or not profile.cards else (1 if gpu is not None else 0)
    return out, default


def resolve_target(
    snapshot: GpuSnapshot,
    profile_name: str | None = None,
    card_key: str | None = None,
    gpu_memory_gib: float | None = None,
    used_gib: float = 0.0,
) -> PlanTarget:
    """The GPU to plan for, by the module's precedence. Raises :class:`PlanError` on bad
    input (a size not above 0, more used than total, a card the named profile does not list,
    an unknown card or profile)."""
    try:
        named = get_profile(profile_name) if profile_name else None
    except KeyError as exc:
        raise PlanError(str(exc.args[0])) from None
    if gpu_memory_gib is not None:
        if gpu_memory_gib <= 0 or not 0 <= used_gib < gpu_memory_gib:
            raise PlanError("--gpu-memory must be > 0 and --used-memory between 0 and it")
        total = int(gpu_memory_gib * GiB)
        profile = named or detect_profile(None, total)
        card = find_card(card_key)[0] if card_key else profile.card_for_memory(total)
        free = int((gpu_memory_gib - used_gib) * GiB)
        return PlanTarget(profile, total, free, card, None, f"--gpu-memory {gpu_memory_gib:g} GiB")
    if card_key:
        card, owner = find_card(card_key)
        profile = named or owner
        if card not in profile.cards:
            names = ", ".join(c.key for c in profile.cards) or "none"
            raise PlanError(
                f"the {profile.name} profile is not tuned for card {card.key!r} "
                f"(its cards: {names}); drop --profile or pick one of its cards"
            )
        return _card_target(profile, card, f"--card {card.key}")
    profile = named or planning_profile(snapshot.first)
    choices, default = targets(profile, snapshot)
    if not choices:  # the CPU profile without a GPU: plan_for_model says why it cannot plan
        return PlanTarget(profile, 0, 0, None, None, _no_card_reason(snapshot))
    return choices[default]
