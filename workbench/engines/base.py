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

A request may carry its page already encoded (``png``, see :mod:`workbench.engines.png`):
engines that send bytes send exactly those (:meth:`PageRequest.encoded`), so the page written
to disk is the page the model saw, encoded once. Pickled (to a worker process) such a request
travels as its PNG, not its pixels; the image is reopened from the bytes on the other side.

A *streaming* engine (``streams = True``: a server, a pool of worker processes) takes any
iterable in :meth:`Engine.run` and pulls the next request only when one of its
``concurrency`` slots frees; the pipeline then makes one call for a whole document, fed as
pages are prepared, instead of batch by batch (no slot idles at a batch's tail).

A *watchable* engine (:func:`watchable`: a server) also lists its pages in flight
(:class:`PageProgress`: since when, tokens so far) and cancels pages by key, so a UI can show
a page that waits with its elapsed time and a cancel button.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard, runtime_checkable

from PIL import Image

from workbench.schema import Attempt, Region, Sampling, TextLayer


@dataclass(frozen=True)
class PageRequest:
    key: str  # unique within a batch, e.g. "doc.pdf#3"
    image: Image.Image = field(repr=False)
    prompt: str | None = None  # None: image only (LightOnOCR plain mode)
    sampling: Sampling = field(default_factory=Sampling)
    retry_sampling: tuple[Sampling, ...] = ()  # tried in order after a repetition loop
    system: str | None = None
    chat_template_kwargs: dict[str, Any] = field(default_factory=dict)
    prompt_first: bool = False  # the text part before the image part (olmOCR's order)
    retry_on_length: bool = False  # also retry an answer cut off by max_tokens (olmOCR)
    text_layer: TextLayer | None = None  # the PDF page's own text (CPU engine; points, scaled)
    png: bytes | None = field(default=None, repr=False)  # ``image`` encoded once, lossless

    def encoded(self) -> bytes:
        """The page as PNG: ``png`` when given, else ``image`` encoded now (once)."""
        if self.png is None:
            from workbench.engines.png import encode_png

            object.__setattr__(self, "png", encode_png(self.image))
        assert self.png is not None
        return self.png

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        if self.png is not None:
            state["image"] = None  # the PNG is the page; pixels would be 10-30x the bytes
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if state.get("image") is None and state.get("png") is not None:
            state["image"] = Image.open(io.BytesIO(state["png"]))  # decoded on first use
        for key, value in state.items():
            object.__setattr__(self, key, value)


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
    notes: list[str] = field(default_factory=list)  # the engine's remarks: PageResult.notes

    @property
    def ok(self) -> bool:
        return self.error is None


#: Pages an engine keeps in flight when nothing says how many its server or GPU can take.
DEFAULT_IN_FLIGHT = 64

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


class StreamingEngine(Engine, Protocol):
    """An engine whose ``run`` takes any iterable and pulls the next request only when one of
    its ``concurrency`` slots frees (class attribute ``streams = True``)."""

    concurrency: int

    def run(self, requests: Iterable[PageRequest]) -> Iterator[EngineOutput]: ...


def streams(engine: Engine) -> TypeGuard[StreamingEngine]:
    """Whether ``engine`` is a :class:`StreamingEngine`."""
    return bool(getattr(engine, "streams", False))


@dataclass(frozen=True)
class PageProgress:
    """One page in flight in a :class:`WatchableEngine`: waiting (no token yet) or streaming."""

    key: str  # the request's key
    started_at: float  # wall clock (time.time()) when this attempt started
    elapsed: float  # seconds since then
    tokens: int  # tokens received so far in this attempt
    attempt: int  # 1 for the first call for this page

    @property
    def waiting(self) -> bool:
        return self.tokens == 0


class WatchableEngine(Engine, Protocol):
    """An engine that lists its pages in flight and can stop some of them at once (a server:
    a page can wait on it for minutes). A stopped page yields an output with ``error``."""

    def in_flight(self) -> list[PageProgress]: ...

    def cancel(self, keys: Iterable[str] | None = None) -> None: ...


def watchable(engine: Engine) -> TypeGuard[WatchableEngine]:
    """Whether ``engine`` is a :class:`WatchableEngine`."""
    return callable(getattr(engine, "in_flight", None)) and callable(
        getattr(engine, "cancel", None)
    )
