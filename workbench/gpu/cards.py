"""A GPU card as a tuning profile names it: its name and its memory.

Every GPU profile (:mod:`workbench.gpu.profiles`) lists the cards it is tuned for; the first
is the one the workbench plans for when no GPU is present, so ``plan``, ``models`` and the GPU
page all plan one profile on the same card (:mod:`workbench.gpu.target`).
"""

from __future__ import annotations

from dataclasses import dataclass

GiB = 1024**3

#: A memory size matches a card within this fraction: CUDA shows 1-2 % less than the size the
#: card is sold with (H200: 139.80 GiB of 141, measured in shared/gpu-lab); NVML's total sits
#: between the two.
MEMORY_TOLERANCE = 0.03


@dataclass(frozen=True)
class Card:
    """A card and its total memory in GiB as sold (an 80 GB H100 is 80). A real card's CUDA
    total is 1-2 % lower, so a plan on the nominal figure is up to that much optimistic about
    the KV cache; a plan on a present GPU uses what CUDA reports instead."""

    key: str  # unique across profiles: ``plan --card KEY``
    name: str
    memory_gib: float

    @property
    def total_bytes(self) -> int:
        return int(self.memory_gib * GiB)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.memory_gib:g} GiB)"

    def matches(self, total_bytes: int) -> bool:
        """Whether a GPU of ``total_bytes`` is this card by its memory size."""
        return abs(total_bytes / GiB - self.memory_gib) <= MEMORY_TOLERANCE * self.memory_gib
