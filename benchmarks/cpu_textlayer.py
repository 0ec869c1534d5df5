"""The CPU engine with the PDF text layer vs on rasterized copies vs Tesseract alone (issue 12).

Side by side in one process, page by page, on the born-digital pages in tests/data:

* ``engine + text layer``  — the engine in ``auto`` mode, given the page image and its layer;
* ``engine, rasterized``   — the same engine on the rendered image only (the layer removed:
  what a scan of the page gets), scored against the original layer;
* ``tesseract alone``      — Tesseract's lines in its own order, no layout.

Reference: each page's own text layer (:func:`workbench.documents.textlayer.pdf_text_layer`).
Scores from
:mod:`workbench.evaluate.metrics`: CER pooled over pages (summed edits / summed reference
characters) and word F1 from pooled counts, on the page Markdown read as plain text (furniture
included, as the layer has it). CER depends on reading order: on forms (DD 293, VA 21-0966) the
layer's order is the authoring order, so word F1 is the number to read there. Heading recall:
share of the hand-listed headings below found as a Markdown heading line. Table recall: share
of the hand-listed tables found as a pipe table holding their key cells. Seconds: median per
page after one warm-up page, wall clock and CPU time of the process (all threads: ONNX Runtime
uses up to 4, Tesseract 1; on a busy shared machine the CPU time is the steadier number).

    python benchmarks/cpu_textlayer.py [--dpi 200]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.documents import open_document
from workbench.documents.textlayer import pdf_text_layer
from workbench.engines.base import PageRequest
from workbench.engines.cpu.engine import get_cpu_engine
from workbench.evaluate.metrics import CharErrors, WordF1, char_errors, plain_text, word_f1
from workbench.markdown.assemble import assemble_page

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"

#: (file, page): headings a careful reader marks, and tables as key cells they must hold
PAGES: dict[tuple[str, int], tuple[list[str], list[list[str]]]] = {
    ("financial_statement.pdf", 1): (
        ["Note 2 - Business Combination", "Recently Issued Accounting Pronouncements"],
        [["Revenue", "1,204", "Gross margin", "85.7"]],
    ),
    ("two_column_article.pdf", 1): (
        [
            "Reading Order in Two-Column Articles",
            "Abstract",
            "1 Introduction",
            "2 Method",
            "3 Results",
            "4 Conclusion",
        ],
        [],
    ),
    ("census_12s0324.pdf", 1): (
        ["Table 324. Arrests by Sex and Age: 2009", "Table 325. Arrests by Race: 2009"],
        [["Total", "11,062.6", "Runaways"], ["Total", "10,690,561", "Runaways"]],
    ),
    ("pdflatex_outline.pdf", 2): (["1 Foo", "2 Bar", "3 Baz", "4 Foo"], []),
    ("pdflatex_outline.pdf", 3): ([], []),
    ("superscript_pdftex.pdf", 1): ([], []),
    ("sf424_page2.pdf", 1): ([], []),
    ("dd0293_p1-2.pdf", 2): ([], []),
    ("va210966_p1.pdf", 1): ([], []),
}


@dataclass
class Score:
    errors: list[CharErrors] = field(default_factory=list)
    words: list[WordF1] = field(default_factory=list)
    headings: list[bool] = field(default_factory=list)
    tables: list[bool] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)

    def row(self, name: str) -> str:
        edits = sum(e.edits for e in self.errors)
        chars = sum(e.reference_chars for e in self.errors)
        pooled = WordF1(
            sum(w.common for w in self.words),
            sum(w.hypothesis_words for w in self.words),
            sum(w.reference_words for w in self.words),
        )
        h = sum(self.headings) / len(self.headings) if self.headings else float("nan")
        t = sum(self.tables) / len(self.tables) if self.tables else float("nan")
        s = statistics.median(self.seconds) if self.seconds else float("nan")
        c = statistics.median(self.cpu) if self.cpu else float("nan")
        return (
            f"| {name} | {edits / max(chars, 1):.3f} | {pooled.f1:.3f} | {h:.2f} | {t:.2f} "
            f"| {s:.2f} | {c:.2f} |"
        )


def _norm(s: str) -> str:
    return re.sub(r"[\s\\*#]+", " ", s).strip().casefold()


def heading_found(md: str, heading: str) -> bool:
    lines = [_norm(ln) for ln in md.splitlines() if ln.lstrip().startswith("#")]
    return any(_norm(heading) in ln for ln in lines)


def table_found(md: str, keys: list[str]) -> bool:
    tables = re.findall(r"(?:^\|.*\|\s*$\n?)+", md, re.M)
    tables += re.findall(r"<table>.*?</table>", md.replace("&#36;", "$"), re.S)  # spanning cells
    return any(all(k in t.replace("\\", "") for k in keys) for t in tables)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=200)
    args = parser.parse_args()
    engine = get_cpu_engine()
    auto, raster = engine.configured(text_layer="auto"), engine.configured(text_layer="never")
    tess = engine.tess
    assert tess is not None, "Tesseract is needed for the comparison"
    scores = {k: Score() for k in ("engine + text layer", "engine, rasterized", "tesseract alone")}
    warm = True
    for (name, index), (headings, tables) in PAGES.items():
        data = (DATA / name).read_bytes()
        page = open_document(name, data).page(index, dpi=args.dpi)
        ref = pdf_text_layer(data, index, name)
        runs = {
            "engine + text layer": lambda p=page: _engine(auto, p.image, p.text_layer),
            "engine, rasterized": lambda p=page: _engine(raster, p.image, None),
            "tesseract alone": lambda p=page: "\n".join(ln.text for ln in tess.read(p.image)[0]),
        }
        if warm:
            for run in runs.values():
                run()
            warm = False
        for key, run in runs.items():
            start, cpu = time.perf_counter(), time.process_time()
            md = run()
            seconds = time.perf_counter() - start
            sc = scores[key]
            sc.seconds.append(seconds)
            sc.cpu.append(time.process_time() - cpu)
            text = plain_text(md) if key != "tesseract alone" else md
            sc.errors.append(char_errors(text, ref))
            sc.words.append(word_f1(text, ref))
            sc.headings += [heading_found(md, h) for h in headings]
            sc.tables += [table_found(md, t) for t in tables]
            print(
                f"{name}#{index} {key}: CER {sc.errors[-1].cer:.3f} "
                f"F1 {sc.words[-1].f1:.3f} {seconds:.2f}s",
                file=sys.stderr,
            )
    print(f"{len(PAGES)} pages at {args.dpi} DPI; reference: each page's own text layer\n")
    print(
        "| reader | CER (pooled) | word F1 | heading recall | table recall "
        "| s/page wall (median) | CPU s/page (median) |"
    )
    print("|---|---|---|---|---|---|---|")
    for key, sc in scores.items():
        print(sc.row(key))


def _engine(engine, image, layer) -> str:  # type: ignore[no-untyped-def]
    out = next(iter(engine.run([PageRequest(key="p", image=image, text_layer=layer)])))
    if out.error:
        raise RuntimeError(out.error)
    return assemble_page(out.regions or [], include_furniture=True)


if __name__ == "__main__":
    main()
