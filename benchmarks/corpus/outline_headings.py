"""Headings from the PDF's outline (issue 35): heading precision and recall on the corpus pages
of documents with an outline, read from the *whole source document* (the corpus's one-page PDFs
carry no bookmarks, so ``score.py`` cannot see this rule), with the ``outline_headings`` pass on
and off, per half.

    python benchmarks/corpus/outline_headings.py   # needs build.py's mirrors (README.md here)

Circular by construction: the corpus's heading truth *is* the outline (build.py), so recall
here says the rule copies the outline faithfully, not that headings generalize; precision
counts the headings the engine adds that the outline does not list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import heldout  # noqa: E402
from build import CACHE, git  # noqa: E402

from workbench.documents import open_document  # noqa: E402
from workbench.engines.cpu import get_cpu_engine  # noqa: E402
from workbench.evaluate.structure import heading_match  # noqa: E402
from workbench.models.registry import CPU_SPEC  # noqa: E402
from workbench.pipeline.process import process_document  # noqa: E402


def main() -> int:
    from workbench.logs import quiet_libraries

    quiet_libraries()
    manifest = yaml.safe_load((HERE / "manifest.yaml").read_text())
    sources = manifest["sources"]
    docs = {d["id"]: d for d in manifest["documents"]}
    index = json.loads((CACHE / "index.json").read_text())
    with_outline = {p["doc"] for p in index if "headings" in p["classes"]}
    engine = get_cpu_engine()
    engines = {"on": engine, "off": engine.without("outline_headings")}
    totals = {(h, k): [0, 0, 0] for h in ("tuning", "checking") for k in engines}
    for doc_id in sorted(with_outline):
        d = docs[doc_id]
        src = sources[d["source"]]
        data = git(src["repo"], "show", f"{src['commit']}:{d['path']}")
        document = open_document(Path(d["path"]).name, data)
        for p in (p for p in index if p["doc"] == doc_id and "scan" not in p["classes"]):
            number = int(p["id"].rsplit("-p", 1)[1])
            truth = json.loads((CACHE / "truth" / f"{p['id']}.json").read_text())["headings"]
            for k, e in engines.items():
                [item] = list(process_document(e, CPU_SPEC, document, [number], workers=0))
                m = heading_match(heldout.fold(item.result.markdown), heldout.fold(truth or ""))
                t = totals[(p["half"], k)]
                t[0], t[1], t[2] = t[0] + m.matched, t[1] + m.hypothesis, t[2] + m.truth
    print("| half | outline_headings | precision | recall |")
    print("|---|---|---|---|")
    for (half, k), (hit, got, want) in totals.items():
        print(f"| {half} | {k} | {100 * hit / max(got, 1):.0f} % ({hit}/{got}) "
              f"| {100 * hit / max(want, 1):.0f} % ({hit}/{want}) |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
