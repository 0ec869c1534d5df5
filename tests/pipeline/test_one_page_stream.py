"""One page stream (issue 32.3): ``prepare_pages`` is the cross-document feed for one
document, and the pipeline's modules use each other through public names only."""

from __future__ import annotations

import ast
from pathlib import Path

from workbench.documents import open_document
from workbench.models.registry import CPU_SPEC
from workbench.pipeline import feed
from workbench.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
PIPELINE = ROOT / "workbench" / "pipeline"


def test_prepare_pages_is_the_feed_for_one_document(monkeypatch) -> None:
    doc = open_document("p.pdf", (ROOT / "tests/data/census_12s0324.pdf").read_bytes(), Settings())
    seen: list[object] = []
    real = feed.prepare_plans

    def plans(items, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(items)
        return real(items, *args, **kwargs)

    monkeypatch.setattr(feed, "prepare_plans", plans)
    [page] = list(feed.prepare_pages(doc, [1], CPU_SPEC, 50, workers=0))
    assert page.index == 1 and page.document == "p.pdf"
    assert seen == [[(doc, "p.pdf", [1])]]


def test_no_private_name_is_imported_across_pipeline_modules() -> None:
    taken = []
    for path in sorted(PIPELINE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("workbench"):
                taken += [
                    f"{path.name}: {node.module}.{a.name}"
                    for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")
                ]
    assert taken == []
