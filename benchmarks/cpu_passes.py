"""What each pass of the CPU reader is worth: the scores with every pass minus the scores with
that one pass switched off (issue 22).

Pages and scoring are those of ``benchmarks/cpu_textlayer.py`` (the born-digital pages in
tests/data, each scored against its own text layer with :mod:`workbench.evaluate.metrics`):
character accuracy ``1 - CER`` pooled over pages, word F1 from pooled counts, heading recall
and table recall on the hand-listed headings and tables. Each page is read twice, as the
engine reads it with its text layer (``auto``) and rasterized (``never``: what a scan of it
gets), and the two are scored apart.

The readers (Tesseract, CDLA, RapidOCR, the text layer) run once per page and read: the
engine's call to :func:`~workbench.engines.cpu.compose.compose` is recorded and replayed, on
fresh copies of its lines and boxes, once with every pass and once without each pass
(:data:`~workbench.engines.cpu.passes.NAMES`; the ``FRAME`` passes are the skeleton and are
not measured). The replay with every pass must give the engine's own output (checked).
``reads changed``: reads whose regions (label, box, text) the pass changes at all, scores or
not, of all reads; a pass that changes labels or boxes only (furniture, boxes grown) shows
here and not in the scores, which read the Markdown with furniture included.

    python benchmarks/cpu_passes.py [--dpi 200]
"""

from __future__ import annotations

import argparse
import copy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from cpu_textlayer import PAGES, heading_found, table_found

from workbench.documents import open_document
from workbench.documents.textlayer import pdf_text_layer
from workbench.engines.base import PageRequest
from workbench.engines.cpu import engine as engine_module
from workbench.engines.cpu import passes
from workbench.engines.cpu.compose import compose
from workbench.evaluate.metrics import CharErrors, WordF1, char_errors, plain_text, word_f1
from workbench.markdown.assemble import assemble_page
from workbench.schema import Region

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
MODES = ("auto", "never")


@dataclass
class Score:
    errors: list[CharErrors] = field(default_factory=list)
    words: list[WordF1] = field(default_factory=list)
    headings: list[bool] = field(default_factory=list)
    tables: list[bool] = field(default_factory=list)

    def add(self, md: str, ref: str, headings: list[str], tables: list[list[str]]) -> None:
        text = plain_text(md)
        self.errors.append(char_errors(text, ref))
        self.words.append(word_f1(text, ref))
        self.headings += [heading_found(md, h) for h in headings]
        self.tables += [table_found(md, t) for t in tables]

    def values(self) -> tuple[float, float, float, float]:
        edits = sum(e.edits for e in self.errors)
        chars = sum(e.reference_chars for e in self.errors)
        f1 = WordF1(
            sum(w.common for w in self.words),
            sum(w.hypothesis_words for w in self.words),
            sum(w.reference_words for w in self.words),
        ).f1
        h = sum(self.headings) / max(len(self.headings), 1)
        t = sum(self.tables) / max(len(self.tables), 1)
        return 1 - edits / max(chars, 1), f1, h, t


@dataclass
class Read:
    """One page read in one mode: what compose was called with, and the page's reference."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    markdown: str
    regions: list[tuple[str, list[float], str]]
    ref: str
    headings: list[str]
    tables: list[list[str]]

    def replay(self, off: frozenset[str]) -> tuple[str, list[tuple[str, list[float], str]]]:
        args, kwargs = copy.deepcopy((self.args[:6], self.kwargs))
        kwargs["off"] = off
        regions = compose(*args, *self.args[6:], **kwargs)  # the image is shared, not copied
        return assemble_page(regions, include_furniture=True), shape(regions)


def shape(regions: list[Region]) -> list[tuple[str, list[float], str]]:
    """What a pass may change on a page: each region's label, box and text, in order."""
    return [(r.label.value, r.bbox.as_list() if r.bbox else [], r.text) for r in regions]


def read_pages(dpi: int) -> dict[str, list[Read]]:
    """Every benchmark page read in each mode, with the compose call recorded."""
    base = engine_module.get_cpu_engine()
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = engine_module.compose

    def recorder(*args: Any, **kwargs: Any) -> Any:
        calls.append((copy.deepcopy(args[:6]) + args[6:], copy.deepcopy(kwargs)))
        return real(*args, **kwargs)

    reads: dict[str, list[Read]] = {m: [] for m in MODES}
    engine_module.compose = recorder
    try:
        for (name, index), (headings, tables) in PAGES.items():
            data = (DATA / name).read_bytes()
            page = open_document(name, data).page(index, dpi=dpi)
            ref = pdf_text_layer(data, index, name)
            for mode in MODES:
                engine = base.configured(text_layer=mode)
                layer = page.text_layer if mode == "auto" else None
                calls.clear()
                out = next(
                    iter(engine.run([PageRequest(key="p", image=page.image, text_layer=layer)]))
                )
                if out.error or len(calls) != 1:
                    raise RuntimeError(f"{name}#{index} {mode}: {out.error or 'no compose call'}")
                md = assemble_page(out.regions or [], include_furniture=True)
                args, kwargs = calls[0]
                shaped = shape(out.regions or [])
                reads[mode].append(Read(args, kwargs, md, shaped, ref, headings, tables))
                print(f"read {name}#{index} {mode}", file=sys.stderr)
    finally:
        engine_module.compose = real
    return reads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=200)
    args = parser.parse_args()
    reads = read_pages(args.dpi)
    measured = [n for n in passes.NAMES if n not in passes.FRAME]
    full: dict[str, Score] = {}
    for mode, rs in reads.items():
        full[mode] = Score()
        for r in rs:
            md, regions = r.replay(frozenset())
            assert (md, regions) == (r.markdown, r.regions), (
                f"replay differs from the engine's output ({mode})"
            )
            full[mode].add(md, r.ref, r.headings, r.tables)
    n_reads = sum(len(rs) for rs in reads.values())
    print(f"{len(PAGES)} pages at {args.dpi} DPI, read with the text layer (auto) and rasterized")
    print("(never); each cell: score with every pass minus score with this pass off\n")
    for mode in MODES:
        acc, f1, h, t = full[mode].values()
        print(f"all passes, {mode}: char accuracy {acc:.4f}, word F1 {f1:.4f}, "
              f"heading recall {h:.2f}, table recall {t:.2f}")  # fmt: skip
    print()
    head = " | ".join(
        f"{k} {m}" for m in MODES for k in ("Δ char acc", "Δ word F1", "Δ headings", "Δ tables")
    )
    print(f"| pass | {head} | reads changed |")
    print("|---|" + "---|" * 8 + "---|")
    for name in measured:
        cells: list[str] = []
        changed = 0
        for mode in MODES:
            without = Score()
            for r in reads[mode]:
                md, regions = r.replay(frozenset({name}))
                changed += regions != r.regions
                without.add(md, r.ref, r.headings, r.tables)
            with_all = full[mode].values()
            cells += [f"{a - b:+.4f}" for a, b in zip(with_all, without.values(), strict=True)]
        print(f"| {name} | " + " | ".join(cells) + f" | {changed}/{n_reads} |", flush=True)


if __name__ == "__main__":
    main()
