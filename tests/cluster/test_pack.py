"""Ray tasks filled across documents (issue 21): :func:`workbench.cluster.ray_run.pack` puts
as many documents' pages in one task as the slot's engine takes, every page in one task."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from workbench.cluster import ray_run
from workbench.cluster.ray_run import pack
from workbench.documents import open_document
from workbench.engines.factory import LocalOptions
from workbench.models import ModelSpec
from workbench.pipeline.request import RunRequest
from workbench.pipeline.runner import DocumentPlan
from workbench.settings import Settings

DATA = Path(__file__).resolve().parents[1] / "data"
MODEL = "lightonai/LightOnOCR-2-1B"


def plan(name: str, todo: list[int]) -> DocumentPlan:
    doc = open_document(name, (DATA / name).read_bytes(), Settings())
    return DocumentPlan(doc, name, todo, todo)


def test_tasks_span_documents_and_hold_every_page_once() -> None:
    a, b, c = (
        plan("census_12s0324.pdf", [1]),
        plan("pdflatex_outline.pdf", [1, 2, 3, 4]),
        plan("sf424_page2.pdf", [1]),
    )
    tasks = pack([a, b, plan("va210966_p1.pdf", []), c], 3)
    assert [[(name, pages) for name, _, pages in task] for task in tasks] == [
        [("census_12s0324.pdf", [1]), ("pdflatex_outline.pdf", [1, 2])],
        [("pdflatex_outline.pdf", [3, 4]), ("sf424_page2.pdf", [1])],
    ]
    assert tasks[0][0][1] == a.document.sha256
    one_each = pack([a, c], 64)  # one task for two one-page documents: one server, both pages
    assert [[n for n, _, _ in t] for t in one_each] == [["census_12s0324.pdf", "sf424_page2.pdf"]]


def test_a_gpu_worker_plans_its_own_engine_and_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--ray --engine vllm``: the worker plans for its GPU, ``--engine-arg`` over the plan,
    the engine built once per worker (LocalOptions holds a dict: it was used as a dict key)."""
    built: list[LocalOptions] = []

    class Loaded:
        name, model = "vllm", MODEL

    def build(options: LocalOptions, **_: object) -> Loaded:
        built.append(options)
        return Loaded()

    plan = SimpleNamespace(
        kwargs={"gpu_memory_utilization": 0.9, "max_num_batched_tokens": 16384},
        plan=SimpleNamespace(pages_in_flight=8),
        spec=None,
    )

    def launch(spec: ModelSpec, profile: object) -> SimpleNamespace:
        plan.spec = spec  # the spec it was planned for (its samplings warm the sampler)
        return plan

    monkeypatch.setattr("workbench.pipeline.request.build_engine", build)
    monkeypatch.setattr("workbench.gpu.launch.plan_local_launch", launch)
    monkeypatch.setattr(ray_run, "_ENGINES", {})
    options = LocalOptions(model=MODEL, engine_args={"max_num_batched_tokens": 4096})
    work = RunRequest(options, spec_id=MODEL, dpi=100.0, max_tokens=128)
    for _ in range(2):
        engine, spec = ray_run._engine(work)
    assert engine.model == MODEL and spec.max_tokens == 128
    assert [b.engine_args for b in built] == [
        {"gpu_memory_utilization": 0.9, "max_num_batched_tokens": 4096}
    ]
    assert built[0].samplings == (spec.sampling, *spec.retry_sampling[:1])
