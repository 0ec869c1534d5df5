"""A GPU card as a tuning profile names it: its name and its memory.

Every GPU profile (:mod:`workbench.gpu.profiles`) lists the cards it is tuned for; the first
is the one the workbench plans for when no GPU is present, so ``plan``, ``models`` and the GPU
page all plan one profile on the same card (:mod:`workbench.gpu.target`).

The CUDA totals are the "total capacity" PyTorch reports on each card; the ``probe`` command
simulates the cards from this same list (:data:`workbench.gpu.probe.cases.CARDS`; H200 139.80 GiB
measured in shared/gpu-lab).
"""

from __future__ import annotations

from dataclasses import dataclass

GiB = 1024**3

#: A memory size matches a card's size as sold or as CUDA reports it within this fraction.
MEMORY_TOLERANCE = 0.03


@dataclass(frozen=True)
class Card:
    """A card: its memory as sold (``memory_gib``: an 80 GB H100 is 80) and the total CUDA
    reports on it (``cuda_gib``: what vLLM multiplies by gpu_memory_utilization, 2-9 % less;
    an L4 sold as 24 GB shows 22.03 GiB). Plans use the CUDA figure, as they do on a present
    GPU; where it is not known here (A6000, A40, A10, T4, V100) the figure as sold, which is
    that much optimistic about the KV cache."""

    key: str  # unique across profiles: ``plan --card KEY``
    name: str
    memory_gib: float
    cuda_gib: float | None = None

    @property
    def total_bytes(self) -> int:
        """The total a plan for this card uses (CUDA's where known)."""
        return int((self.cuda_gib or self.memory_gib) * GiB)

    @property
    def label(self) -> str:
        cuda = f", {self.cuda_gib:.2f} GiB to CUDA" if self.cuda_gib else ""
        return f"{self.name} ({self.memory_gib:g} GB{cuda})"

    def matches(self, total_bytes: int) -> bool:
        """Whether a GPU of ``total_bytes`` is this card by its memory size (as sold, as CUDA
        reports it, or NVML's total between the two)."""
        gib = total_bytes / GiB
        sizes = [self.memory_gib, *([self.cuda_gib] if self.cuda_gib else [])]
        return any(abs(gib - size) <= MEMORY_TOLERANCE * size for size in sizes)
