"""Would a well-kept library's table finder beat the CPU engine's tables? (issue 35, step 3)

    python benchmarks/corpus/score.py --json full.json          # the engine's pages, saved
    python benchmarks/corpus/tables_library.py full.json --half tuning
    python benchmarks/corpus/tables_library.py full.json --half checking   # judged here only

On every born-digital page of the corpus with a table truth, TEDS
(:func:`workbench.evaluate.structure.page_teds`) of: the engine's page Markdown as saved by
score.py; pdfplumber's ``extract_tables`` (MIT; cell grids from the PDF's ruling lines, its
default ``lines`` strategy, and its ``text`` strategy from word alignment); and the engine's
Markdown with its tables replaced by pdfplumber's where pdfplumber finds a ruled table (what
using the library for ruled tables would give). pdfplumber is not a workbench dependency:
this only measures.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import heldout  # noqa: E402  (the same text folding as score.py)
from build import CACHE, html_table  # noqa: E402  (corpus/build.py: one home for the HTML)

from workbench.evaluate.structure import page_teds  # noqa: E402

_TABLE = re.compile(r"<table.*?</table>|(?:^\|.*\|[ \t]*\n?)+", re.S | re.M)
TEXT = {"vertical_strategy": "text", "horizontal_strategy": "text"}


def library_tables(pdf: Path, settings: dict | None = None) -> list[str]:
    import pdfplumber

    with pdfplumber.open(pdf) as doc:
        found = doc.pages[0].extract_tables(settings or {})
    return [html_table([[c or "" for c in r] for r in t]) for t in found if t and len(t) > 1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("saved", type=Path, help="score.py --json output (workbench pages)")
    ap.add_argument("--half", choices=("tuning", "checking"), required=True)
    args = ap.parse_args()
    rows = json.loads(args.saved.read_text())["scores"]
    pages = [
        r
        for r in rows
        if r["engine"] == "workbench" and r["half"] == args.half and "table" in r["classes"]
    ]
    cols = ("engine", "pdfplumber lines", "pdfplumber text", "engine + ruled tables")
    print(f"| page ({args.half} half) | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    sums: dict[str, list[float]] = {c: [] for c in cols}
    for r in pages:
        truth = heldout.fold(
            json.loads((CACHE / "truth" / f"{r['page']}.json").read_text())["tables"]
        )
        pdf = CACHE / "pages" / f"{r['page']}.pdf"
        ruled = [heldout.fold(t) for t in library_tables(pdf)]
        text = [heldout.fold(t) for t in library_tables(pdf, TEXT)]
        markdown = heldout.fold(r["markdown"])
        mixed = _TABLE.sub("", markdown) + "\n\n" + "\n\n".join(ruled) if ruled else None
        got = {
            "engine": page_teds(markdown, truth),
            "pdfplumber lines": page_teds("\n\n".join(ruled), truth),
            "pdfplumber text": page_teds("\n\n".join(text), truth),
            "engine + ruled tables": page_teds(mixed or markdown, truth),
        }
        for c in cols:
            sums[c].append(got[c] or 0.0)
        print(f"| {r['page']} | " + " | ".join(f"{100 * (got[c] or 0):.1f}" for c in cols) + " |")
    means = " | ".join(f"**{100 * statistics.mean(v):.1f}**" if v else "–" for v in sums.values())
    print(f"| mean of {len(pages)} | " + means + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
