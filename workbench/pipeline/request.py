"""The run request: what one run asks for, as one typed value every front end builds once.

A front end reads its own input (the CLI's arguments, the sidebar, the Batch form) into a
:class:`RunRequest` in one place and passes nothing else on: argparse namespaces and widget
values stop at the front end. The Ray path ships the request itself to its workers (it is
small and picklable). From the request alone come:

* the engine, through one rule (:meth:`RunRequest.build`): the engine kind's builder in
  :data:`workbench.engines.factory.ENGINE_KINDS`; an in-process vLLM engine is planned first
  for the GPU of the machine that loads it (:func:`workbench.gpu.launch.planned_options`);
* the model spec the engine runs (:func:`engine_spec`, the one spec decision) bounded by the
  request's ``max_tokens`` (:meth:`RunRequest.spec_of`);
* the manifest head of the run (:meth:`RunRequest.run_info`: its DPI, profile,
  ``max_tokens`` and page range recorded with the engine's own settings); the pages a stored
  run was asked for come back from it by :func:`planned_pages`;
* what it states about the run's output (:meth:`RunShape.stated`), compared on resume with a
  run's record (:meth:`RunShape.of`) by the one comparison :meth:`RunShape.differences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from workbench import __version__
from workbench.documents import parse_page_range
from workbench.engines.base import Engine
from workbench.engines.factory import CpuOptions, EngineOptions, LocalOptions, build_engine
from workbench.errors import EngineUnavailable, PageRangeError
from workbench.gpu.inflight import fit_in_flight
from workbench.models.registry import CPU_SPEC, ModelSpec, get_spec, match_served_model
from workbench.pipeline.prepare import render_dpi
from workbench.schema import DocumentInfo, RunInfo
from workbench.settings import Settings

#: The manifest setting holding the page range a run was asked for (absent: every page).
PAGES_SETTING = "pages"


@dataclass(frozen=True)
class RunRequest:
    """One run's engine, model, sampling bound, pages, DPI and engine settings.

    ``options`` is the engine kind and its settings (:mod:`workbench.engines.factory`);
    ``spec_id`` the model spec (None: the one matching the served model); ``max_tokens``
    bounds every answer (None: the model's own); ``pages`` a page range such as ``1,3-5``
    (None: all); ``dpi`` the PDF rendering DPI (None: the model's rule); ``profile`` the GPU
    tuning profile of an in-process engine (None: detected)."""

    options: EngineOptions = field(default_factory=CpuOptions)
    spec_id: str | None = None
    max_tokens: int | None = None
    pages: str | None = None
    dpi: float | None = None
    profile: str | None = None
    settings: Settings = field(default_factory=Settings)

    @property
    def kind(self) -> str:
        return self.options.kind

    # ------------------------------------------------------------------ the engine
    def planned(self) -> RunRequest:
        """This request with an in-process engine planned for this machine's first GPU (its
        ``vllm.LLM`` arguments under the request's own, pages in flight from the plan unless
        given); any other engine as it is. Refuses, with the planner's advice, a model that
        cannot fit one page."""
        if not isinstance(self.options, LocalOptions):
            return self
        from workbench.gpu.launch import plan_local_launch, planned_options

        # Planned for the run's own output bound: pages in flight depend on it.
        spec = get_spec(self.spec_id or self.options.model).with_max_tokens(self.max_tokens)
        launch = plan_local_launch(spec, self.profile)
        return replace(self, options=planned_options(self.options, launch))

    def build(self, *, own_process: bool = False) -> Engine:
        """The engine this request names, planned here (:meth:`planned`) and loaded."""
        return build_engine(self.planned().options, own_process=own_process)

    def spec_of(self, engine: Engine) -> ModelSpec:
        """The model spec ``engine`` runs for this request, its answers bounded by
        ``max_tokens``."""
        return engine_spec(engine, self.spec_id).with_max_tokens(self.max_tokens)

    def open(self, *, own_process: bool = False) -> tuple[Engine, ModelSpec]:
        """The engine and its spec; a server engine given no concurrency is sized to what its
        server's KV cache holds. Raises :class:`EngineUnavailable` (the engine is closed)
        when no spec matches the served model. ``own_process``: see
        :func:`~workbench.engines.factory.build_engine`."""
        engine = self.build(own_process=own_process)
        try:
            spec = self.spec_of(engine)
        except BaseException:
            engine.close()
            raise
        fit_in_flight(engine, spec)  # no concurrency given: as many as the KV cache holds
        return engine, spec

    # ------------------------------------------------------------------ the run
    def render_dpi(self, spec: ModelSpec | None) -> float:
        """The DPI PDF pages are rendered at: the request's, else the model's rule."""
        if self.dpi:
            return float(self.dpi)
        return float(render_dpi(spec, self.settings.dpi) if spec else self.settings.dpi)

    def run_info(
        self,
        engine: Engine,
        spec: ModelSpec,
        *,
        name: str,
        documents: Sequence[DocumentInfo],
        source: str,
        run_id: str = "",
    ) -> RunInfo:
        """The manifest head of this request's run (:func:`run_info`)."""
        return run_info(
            engine,
            spec,
            name=name,
            run_id=run_id,
            documents=documents,
            dpi=self.render_dpi(spec),
            source=source,
            profile=self.profile,
            max_tokens=self.max_tokens,
            pages=self.pages,
        )


def engine_spec(engine: Engine, spec_id: str | None = None) -> ModelSpec:
    """The model spec ``engine`` runs: ``spec_id`` when given, else the engine's own
    ``spec``, the CPU engine's, or the spec matching the served model's name. Raises
    :class:`EngineUnavailable` when none matches."""
    if spec_id:
        return get_spec(spec_id)
    own = getattr(engine, "spec", None)
    if isinstance(own, ModelSpec):
        return own
    if engine.name == "cpu":
        return CPU_SPEC
    found = match_served_model(engine.model)
    if found is not None:
        return found
    raise EngineUnavailable(
        f"no model spec matches the served model {engine.model!r}; "
        "name one (--spec MODEL_ID on the command line)"
    )


#: Engine facts that do not change what a page reads (or are recorded elsewhere).
NOT_SHAPING = frozenset(
    {"name", "engine", "model", "workers", "concurrency", "timeout_s", "idle_timeout_s"}
)


def run_info(
    engine: Engine,
    spec: ModelSpec,
    *,
    name: str,
    documents: Sequence[DocumentInfo],
    dpi: float,
    source: str,
    run_id: str = "",
    profile: str | None = None,
    max_tokens: int | None = None,
    pages: str | None = None,
) -> RunInfo:
    """The manifest head every caller writes: same fields, same settings keys. The engine's
    own settings that shape its output (:meth:`Engine.describe`: the CPU engine's text layer
    mode, table detection...) are recorded too, so two runs that differ in them say how;
    ``max_tokens``, when the run bounds its answers, and ``pages``, when it asks for a page
    range (:data:`PAGES_SETTING`; what :func:`planned_pages` reads back), too."""
    described = engine.describe()
    shaping = {k: v for k, v in described.items() if k not in NOT_SHAPING}
    settings: dict[str, Any] = {**shaping, "spec": spec.id, "dpi": float(dpi), "source": source}
    if max_tokens:
        settings["max_tokens"] = max_tokens
    if pages:
        settings[PAGES_SETTING] = pages
    return RunInfo(
        id=run_id,
        name=name,
        engine=engine.name,
        model=engine.model,
        profile=profile,
        settings=settings,
        versions={"workbench": __version__},
        documents=list(documents),
    )


def planned_pages(doc: DocumentInfo, info: RunInfo) -> list[int]:
    """The pages of ``doc`` its run was asked for: the page range recorded with the run
    (:data:`PAGES_SETTING`), else (none recorded, or one the document cannot hold) every page."""
    asked = info.settings.get(PAGES_SETTING)
    if isinstance(asked, str) and asked:
        try:
            return parse_page_range(asked, doc.pages)
        except PageRangeError:
            pass
    return list(range(1, doc.pages + 1))


#: recorded settings that decide what a page's output is (a server's address, memory and
#: concurrency knobs do not: a run may resume with other ones); the Runs list shows them
SHAPING_SETTINGS = (
    "spec", "dpi", "max_tokens", "text_layer", "detect_tables", "handwriting_threshold",
)  # fmt: skip

#: the CPU engine's settings that shape its output, as its options name them
_CPU_SHAPING = ("text_layer", "detect_tables", "handwriting_threshold")


@dataclass(frozen=True)
class RunShape:
    """What decides a run's pages (engine, model and :data:`SHAPING_SETTINGS`), each as the
    manifest records it; a key left out is not known (a run written before it was recorded,
    or a request that does not state it)."""

    values: dict[str, str]

    @classmethod
    def of(cls, info: RunInfo) -> RunShape:
        kept = {k: str(info.settings[k]) for k in SHAPING_SETTINGS if k in info.settings}
        return cls({"engine": info.engine, "model": info.model, **kept})

    @classmethod
    def stated(cls, request: RunRequest) -> RunShape:
        """What ``request`` states before its engine is built (the served model and the
        model's DPI rule are known only then)."""
        values = {"engine": request.kind}
        if request.spec_id:
            values["spec"] = request.spec_id
        if request.dpi:
            values["dpi"] = str(float(request.dpi))
        if request.max_tokens:
            values["max_tokens"] = str(request.max_tokens)
        if isinstance(request.options, CpuOptions):
            for key in _CPU_SHAPING:
                value = getattr(request.options, key)
                values[key] = str(value).lower() if isinstance(value, bool) else str(value)
        return cls(values)

    def differences(self, now: RunShape) -> list[tuple[str, str, str]]:
        """(key, this value, ``now``'s) for every key both know and give differently."""
        was, new = self.values, now.values
        return [(k, was[k], new[k]) for k in sorted(set(was) & set(new)) if was[k] != new[k]]
