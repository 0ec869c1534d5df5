"""The engine contract: pages in, raw outputs out, batch first.

An engine knows nothing of parsers, the UI or the run store. The pipeline gives it a batch
of :class:`PageRequest` and iterates :meth:`Engine.run`, which yields one
:class:`EngineOutput` per request *as each finishes* (any order; match on ``key``), so the
caller can save and show pages while the rest are still running.

Two kinds of output:

* VLM engines return the model's text in ``raw``; the pipeline picks the parser for the
  model from the spec registry.
* Engines that do their own layout analysis (the embedded CPU engine) also fill ``regions``
  (already in ``page_px``) and leave ``raw`` as a JSON trace; the pipeline then skips parsing.

Faults never escape ``run`` for a single page: a failed page is an output with ``error`` set.
Retries after a repetition loop happen inside the engine (it owns the sampling schedule) and
are recorded in ``attempts``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from PIL import Image

from workbench.schema import Attempt, Region, Sampling


@dataclass(frozen=True)
class PageRequest:
    key: str  # unique within a batch, e.g. "doc.pdf#3"
    image: Image.Image = field(repr=False)
    prompt: str | None = None  # None: image only (LightOnOCR plain mode)
    sampling: Sampling = field(default_factory=Sampling)
    retry_sampling: tuple[Sampling, ...] = ()  # tried in order after a repetition loop
    system: str | None = None
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass
class EngineOutput:
    key: str
    raw: str = ""
    regions: list[Region] | None = None  # set by engines that do their own layout
    tokens: int = 0
    finish_reason: str | None = None
    seconds: float = 0.0
    attempts: list[Attempt] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


#: Called with (pages done, pages total) as outputs complete.
Progress = Callable[[int, int], None]


@runtime_checkable
class Engine(Protocol):
    """A loaded engine. ``name`` is the engine kind ("cpu", "vllm-server", "vllm");
    ``model`` the served model id (or the CPU engine's component summary)."""

    name: str
    model: str
    batch_size: int  # pages the engine wants per run() call (the pipeline chunks by it)

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]: ...

    def describe(self) -> dict[str, str]:
        """Name, model and settings for the sidebar and the run manifest."""
        ...

    def close(self) -> None:
        """Release memory (GPU included). Idempotent."""
        ...
