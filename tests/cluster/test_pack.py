"""Ray tasks filled across documents (issue 21): :func:`workbench.cluster.ray_run.pack` puts
as many documents' pages in one task as the slot's engine takes, every page in one task."""

from __future__ import annotations

from pathlib import Path

from workbench.cluster.ray_run import pack
from workbench.documents import open_document
from workbench.pipeline.runner import DocumentPlan
from workbench.settings import Settings

DATA = Path(__file__).resolve().parents[1] / "data"


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
