"""Batch OCR on a Ray cluster: the local CLI's work, spread over a pool of Ray workers.

``python -m workbench ocr INPUT... --out DIR --ray [ADDRESS]`` runs here. ADDRESS is
``auto`` (the cluster this machine belongs to, ``ray start`` or ``RAY_ADDRESS``), ``local``
(a Ray instance started for this command on this machine) or ``host:port`` of a head node.

How the work flows
------------------
* The driver (this process) reads and opens the inputs exactly as the local CLI does (same
  ``error:`` lines), and opens the run folder through the single run writer
  (:class:`~workbench.pipeline.runner.RunJob`): resume, document identity by content and the
  final status are the local rules. Each document's bytes go to Ray's object store once.
* Work is split into tasks of a few pages (:func:`pack`), filled *across documents*: a task
  for a server carries ``concurrency`` pages, an in-process vLLM task a whole batch, whichever
  documents they come from (an archive of one-page documents keeps each slot's server as busy
  as one long document would). A task prepares its pages (rendered at the model's size,
  encoded once: :func:`~workbench.pipeline.feed.prepare_plans`) and runs them through
  :func:`~workbench.pipeline.process.process` on the worker's engine as one stream.
  A worker process builds its engine once and keeps it (:func:`_engine`): the CPU engine's
  models load once per worker, a server engine keeps its connection pool, the in-process
  vLLM engine its GPU (one task per GPU: ``num_gpus=1``).
* Results come back to the driver, which writes each page through
  :meth:`RunJob.write_one` the moment its task finishes: the folder is the local CLI's,
  byte for byte (timings aside), whether ``DIR`` is local or a shared filesystem path.
* At most ``2 × cluster CPUs`` tasks are in flight, so a thousand-page archive never sits in
  the object store whole.

Faults
------
Tasks are plain Ray tasks with ``max_retries``: when a worker process or a whole node dies,
Ray runs the lost tasks again elsewhere. A page is written only if it is not finished
already (:meth:`RunJob.write_one`), so a retried or duplicated task never duplicates a page
and never rewrites one. If the driver itself dies, rerunning the same command resumes.
"""

from __future__ import annotations

import io
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from workbench.documents import Document, open_document
from workbench.engines.base import DEFAULT_IN_FLIGHT, EngineOutput, PageRequest
from workbench.engines.factory import CpuOptions, EngineOptions, LocalOptions
from workbench.errors import EngineUnavailable, WorkbenchError
from workbench.models.registry import ModelSpec, get_spec
from workbench.pipeline.feed import prepare_plans
from workbench.pipeline.process import OnPage, Processed, process
from workbench.pipeline.request import RunRequest
from workbench.pipeline.runner import DocumentPlan, RunJob, RunOutcome
from workbench.schema import PageResult
from workbench.settings import Settings

INSTALL_HINT = "Ray is not installed: pip install -e '.[ray]'"
TASK_RETRIES = 5  # attempts after a worker or node is lost
OPEN_DOCUMENTS = 4  # documents a worker keeps open between tasks (a batch moves on)

#: One task's share of one document: (its name in the run, sha256, pages)
Part = tuple[str, str, list[int]]


@dataclass(frozen=True)
class Identity:
    """The engine as the run manifest names it, read off a worker's engine."""

    name: str
    model: str
    spec_id: str


class _NamedEngine:
    """Stands in for the engine on the driver: the run writer needs only its name and model
    (pages are processed on the workers, never here)."""

    batch_size = 1

    def __init__(self, identity: Identity) -> None:
        self.name = identity.name
        self.model = identity.model

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        raise WorkbenchError("pages of a cluster run are processed on the Ray workers")

    def describe(self) -> dict[str, str]:
        return {"engine": self.name, "model": self.model}

    def close(self) -> None:
        return None


# ---------------------------------------------------------------------- on the workers
#: by ``repr(options)``: LocalOptions holds a dict (its engine arguments) and cannot be hashed
_ENGINES: dict[str, Any] = {}
_DOCS: OrderedDict[str, Document] = OrderedDict()
_LOCK = threading.Lock()


def _engine(request: RunRequest) -> tuple[Any, ModelSpec]:
    """This worker process's engine for ``request`` (built on first use, then kept: an
    in-process vLLM engine planned for this worker's GPU) and the spec it runs."""
    key = repr(request.options)
    with _LOCK:
        if key not in _ENGINES:
            _ENGINES[key] = request.build()
        engine = _ENGINES[key]
    return engine, request.spec_of(engine)


def _document(
    name: str, sha256: str, data: bytes, settings: Settings, keep: int = OPEN_DOCUMENTS
) -> Document:
    """The document, opened once per worker; the ``keep`` most recent stay open (a task
    keeps all of its own documents open: ``keep`` is at least their number)."""
    with _LOCK:
        doc = _DOCS.pop(sha256, None) or open_document(name, data, settings)
        _DOCS[sha256] = doc
        while len(_DOCS) > max(keep, OPEN_DOCUMENTS):
            _DOCS.popitem(last=False)[1].close()
        return doc


def identify(request: RunRequest) -> Identity:
    engine, spec = _engine(request)
    return Identity(engine.name, engine.model, spec.id)


def ocr_pages(
    request: RunRequest, parts: list[Part], *datas: bytes
) -> list[tuple[PageResult, bytes]]:
    """Pages of several documents (``parts``, each document's bytes in ``datas`` in the same
    order: top-level arguments, so Ray hands over the objects) through the pipeline on this
    worker as one stream: (result, page PNG) each."""
    engine, spec = _engine(request)
    items = [
        (_document(name, sha, data, request.settings, keep=len(parts)), name, pages)
        for (name, sha, pages), data in zip(parts, datas, strict=True)
    ]
    # A task holds one CPU and renders there; the in-process vLLM task holds a GPU, whose
    # batch is rendered by this node's pool (one such task per GPU: few pools)
    workers = None if isinstance(request.options, LocalOptions) else 0
    images = prepare_plans(items, spec, request.render_dpi(spec), workers=workers)
    total = sum(len(pages) for _, _, pages in parts)
    return [
        (item.result, item.png or _encode(item.image))
        for item in process(engine, spec, images, total=total)
    ]


def _encode(image: Image.Image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


# ---------------------------------------------------------------------- on the driver
def connect(address: str) -> Any:
    """Join (or start, for ``local``) the Ray cluster; returns the ``ray`` module."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address == "local":
        # A one-machine instance on loopback: Ray otherwise announces the machine's public
        # address. (Read by Ray at import.)
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT) from None
    kwargs: dict[str, Any] = {
        "ignore_reinit_error": True,
        "log_to_driver": False,
        "logging_level": "ERROR",
        "configure_logging": False,
    }
    try:
        if address == "local":
            ray.init(**kwargs)
        else:
            host = address.rpartition(":")[0]
            if host.startswith("127."):  # a cluster on loopback (tests): stay on it
                kwargs["_node_ip_address"] = host
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise EngineUnavailable(f"cannot join the Ray cluster at {address!r}: {exc}") from None
    return ray


def chunk_pages(pages: Sequence[int], size: int) -> list[list[int]]:
    return [list(pages[i : i + size]) for i in range(0, len(pages), size)]


def pack(plans: Sequence[DocumentPlan], size: int) -> list[list[Part]]:
    """Tasks of at most ``size`` pages, filled in order across documents: a document's pages
    may end one task and begin the next; every page to do is in exactly one task."""
    tasks: list[list[Part]] = []
    current: list[Part] = []
    room = size
    for plan in plans:
        for chunk in _cut(plan.todo, room, size):
            current.append((plan.name, plan.document.sha256, chunk))
            room -= len(chunk)
            if room == 0:
                tasks.append(current)
                current, room = [], size
    if current:
        tasks.append(current)
    return tasks


def _cut(pages: Sequence[int], first: int, size: int) -> list[list[int]]:
    """``pages`` cut into a piece of ``first`` pages, then pieces of ``size``."""
    if not pages:
        return []
    return [list(pages[:first]), *chunk_pages(pages[first:], size)]


def _resources(options: EngineOptions) -> dict[str, float]:
    if isinstance(options, LocalOptions):
        return {"num_cpus": 1, "num_gpus": 1}  # one in-process vLLM engine per GPU
    return {"num_cpus": 1}  # a CPU engine per slot; a server client per slot


def _chunk_size(options: EngineOptions) -> int:
    if isinstance(options, CpuOptions):
        return 1  # spread pages over every CPU slot
    if isinstance(options, LocalOptions):
        return 256  # one batched generate call per task (the engine's own batch)
    return max(
        1, 2 * (options.concurrency or DEFAULT_IN_FLIGHT)
    )  # the slots full, and the next pages


def run_on_ray(
    address: str,
    request: RunRequest,
    out: Path,
    run_name: str,
    wanted: Sequence[tuple[Document, list[int]]],
    *,
    failed_inputs: int = 0,
    on_plan: Callable[[DocumentPlan, RunJob], None] | None = None,
    on_page: OnPage | None = None,
) -> RunOutcome:
    """Process ``wanted`` (documents and their pages) on the cluster into the run at ``out``."""
    ray = connect(address)
    opts = {**_resources(request.options), "max_retries": TASK_RETRIES}
    identify_task = ray.remote(**opts)(identify)
    ocr_task = ray.remote(**opts)(ocr_pages)
    try:
        identity: Identity = ray.get(identify_task.remote(request))
    except ray.exceptions.RayTaskError as exc:
        raise EngineUnavailable(f"a Ray worker cannot start the engine: {exc.cause}") from None
    spec = get_spec(identity.spec_id)
    info = request.run_info(
        _NamedEngine(identity),  # name and model are all it reads
        spec,
        name=run_name,
        run_id=run_name,
        documents=[d.info() for d, _ in wanted],
        source="cli-ray",
    )
    job = RunJob.start(out, _NamedEngine(identity), spec, info)
    job.failed_inputs = failed_inputs
    plans = [job.plan(doc, pages) for doc, pages in wanted]
    for plan in plans:
        if on_plan is not None:
            on_plan(plan, job)
    tasks = pack(plans, _chunk_size(request.options))
    total = sum(len(pages) for parts in tasks for _, _, pages in parts)
    job.outcome.total += total
    opened = {p.name: p.document for p in plans if p.todo and isinstance(p.document, Document)}
    refs = {name: ray.put(doc.data) for name, doc in opened.items()}  # the CLI opens them all
    limit = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: dict[Any, list[Part]] = {}
    done = 0
    interrupted = True
    try:
        queue = iter(tasks)
        while True:
            while len(pending) < limit and (task := next(queue, None)) is not None:
                ref = ocr_task.remote(request, task, *(refs[name] for name, _, _ in task))
                pending[ref] = task
            if not pending:
                break
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                parts = pending.pop(ref)
                try:
                    results = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:  # the page's own error, not a lost node
                    names = ", ".join(name for name, _, _ in parts)
                    raise WorkbenchError(f"{names}: {exc.cause}") from None
                for result, png in results:
                    job.write_one(Processed(result, Image.open(io.BytesIO(png)), png))
                    job.outcome.processed += 1
                    done += 1
                    if on_page is not None:
                        on_page(done, total, result)
        interrupted = False
    finally:
        job.finish(interrupted=interrupted)
    return job.outcome
