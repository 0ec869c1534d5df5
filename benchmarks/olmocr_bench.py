"""Our readers on olmOCR-bench's public sample, scored by olmOCR-bench's own scorer, side by
side in one run (issue 12: a benchmark of real pages we did not choose).

The sample (allenai/olmocr, ``olmocr/bench/sample_data``) is 23 real PDFs — a 10-K statement,
multi-column articles, arXiv math, a textbook page, a handwritten letter and notes, data
tables, manuals with headers and footers — and about 120 unit tests on the Markdown of each
page: ``present`` (a sentence read right), ``absent`` (furniture left out), ``order``,
``table`` (a cell's neighbours and headings), ``math`` (KaTeX renders our formula like the
printed one) and ``baseline`` (something readable, no repetition loop).

Readers, each through its whole path:

* ``engine, text layer``  — ``python -m workbench ocr --text-layer auto`` (the CLI a user runs:
  render, read, write the run folder), Markdown from its page files;
* ``engine, rasterized``  — the same with ``--text-layer never``: every page read as a scan;
* ``tesseract alone``     — Tesseract's lines on the page drawn at 200 DPI, no layout;
* ``olmOCR 7B (stored)``  — the olmOCR pipeline's answers stored in the sample, for reference.

Nothing of olmOCR is in this repository. Point ``--olmocr`` at a checkout
(``git clone https://github.com/allenai/olmocr``) and ``--python`` at an interpreter with its
scorer's packages (``pip install fuzzysearch rapidfuzz tqdm pypdf pillow playwright
beautifulsoup4 lxml && python -m playwright install chromium``; the math tests render with
KaTeX in Chromium). Without a checkout the script says so and exits 0.

    python benchmarks/olmocr_bench.py --olmocr ~/src/olmocr --python ~/olmb/bin/python

Prints, per reader: the score of ``dataset.jsonl`` (the sample's tests; the scorer's own
"average" also counts its per-page baseline file), each test type's pass rate, and for our
readers the wall seconds a page of the CLI run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("present", "absent", "order", "table", "math", "baseline")
READERS = {
    "ours_layer": "engine, text layer",
    "ours_raster": "engine, rasterized",
    "tesseract": "tesseract alone",
    "olmocr_pipeline": "olmOCR 7B (stored)",
}


def pdfs(sample: Path) -> list[Path]:
    return sorted((sample / "pdfs").rglob("*.pdf"))


def _group(sample: Path, pdf: Path) -> str:
    """The run a PDF goes to: one per sample sub-folder, so names stay apart."""
    return pdf.parent.relative_to(sample / "pdfs").as_posix().replace("/", "_") or "top"


def lay_out(run_dir: Path, sample: Path, cand: Path) -> None:
    """The runs' page Markdown as the scorer's candidate files:
    ``<pdf path without .pdf>_pg<page>_repeat1.md``."""
    for pdf in pdfs(sample):
        rel = pdf.relative_to(sample / "pdfs").with_suffix("")
        for md in sorted((run_dir / _group(sample, pdf) / pdf.stem).glob("page-*.md")):
            target = cand / f"{rel}_pg{int(md.stem.split('-')[1])}_repeat1.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(md, target)


def ours(sample: Path, run_dir: Path, mode: str) -> tuple[float, int]:
    """The CLI on every sample PDF; wall seconds and pages written."""
    groups: dict[str, list[str]] = {}
    for pdf in pdfs(sample):
        groups.setdefault(_group(sample, pdf), []).append(str(pdf))
    start = time.perf_counter()
    for group, files in groups.items():
        cmd = [sys.executable, "-m", "workbench", "ocr", *files, "--out", str(run_dir / group)]
        subprocess.run([*cmd, "--text-layer", mode, "--quiet"], cwd=ROOT, check=False)
    return time.perf_counter() - start, len(list(run_dir.rglob("page-*.md")))


def tesseract_alone(sample: Path, cand: Path) -> None:
    import pypdfium2 as pdfium

    from workbench.engines.cpu.engine import get_cpu_engine

    tess = get_cpu_engine().tess
    assert tess is not None, "Tesseract is needed for the comparison"
    for pdf in pdfs(sample):
        rel = pdf.relative_to(sample / "pdfs").with_suffix("")
        doc = pdfium.PdfDocument(pdf)
        for i in range(len(doc)):
            image = doc[i].render(scale=200 / 72).to_pil().convert("RGB")
            text = "\n".join(line.text for line in tess.read(image)[0])
            target = cand / f"{rel}_pg{i + 1}_repeat1.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        doc.close()


def score(python: str, olmocr: Path, bench: Path, candidate: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(olmocr)}
    cmd = [python, "-m", "olmocr.bench.benchmark", "--dir", str(bench), "--candidate", candidate]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False).stdout
    summary = out.split("Final Summary", 1)[-1]
    found = {t: m.group(1) for t in TYPES if (m := re.search(rf"\n\s+{t}\s*: ([\d.]+%)", summary))}
    m = re.search(r"dataset\.jsonl\s*: ([\d.]+% \(\d+/\d+ tests\))", summary)
    found["dataset"] = m.group(1) if m else "?"
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--olmocr", type=Path, required=True, help="a checkout of allenai/olmocr")
    parser.add_argument("--python", default=sys.executable, help="interpreter for its scorer")
    args = parser.parse_args()
    sample = args.olmocr / "olmocr" / "bench" / "sample_data"
    if not (sample / "dataset.jsonl").exists():
        print(f"skipped: no olmOCR-bench sample at {sample}")
        return
    with tempfile.TemporaryDirectory(prefix="olmocr-bench-") as tmp:
        work, bench = Path(tmp), Path(tmp) / "bench"
        bench.mkdir()
        for item in [*sample.glob("*.jsonl"), sample / "pdfs", sample / "olmocr_pipeline"]:
            (bench / item.name).symlink_to(item)
        timing: dict[str, str] = {}
        for key, mode in (("ours_layer", "auto"), ("ours_raster", "never")):
            seconds, pages = ours(sample, work / key, mode)
            lay_out(work / key, sample, bench / key)
            timing[key] = f"{seconds / max(pages, 1):.2f}"
        tesseract_alone(sample, bench / "tesseract")
        rows = {key: score(args.python, args.olmocr, bench, key) for key in READERS}
    print(f"olmOCR-bench sample ({len(pdfs(sample))} PDFs), scored by its own scorer\n")
    print("| reader | dataset.jsonl | " + " | ".join(TYPES) + " | s/page (CLI wall) |")
    print("|---|---|" + "---|" * len(TYPES) + "---|")
    for key, label in READERS.items():
        row = rows[key]
        cells = " | ".join(row.get(t, "?") for t in TYPES)
        print(f"| {label} | {row['dataset']} | {cells} | {timing.get(key, '—')} |")


if __name__ == "__main__":
    main()
