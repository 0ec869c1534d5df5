"""Benchmark inputs built from the real PDFs in tests/data (no network): pages repeated with
pypdfium2 into one long PDF, or into a folder of short PDFs. Deterministic: the same arguments
give the same files.

    python -m benchmarks.pdf_sets OUT_DIR [--pages 48] [--docs 48] [--sizes 1]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


def source_pages() -> Iterator[tuple[Path, int]]:
    """(PDF, page index) over every page of tests/data's PDFs, cycled without end."""
    import pypdfium2 as pdfium

    pages: list[tuple[Path, int]] = []
    for path in sorted(DATA.glob("*.pdf")):
        pdf = pdfium.PdfDocument(str(path))
        pages.extend((path, i) for i in range(len(pdf)))
        pdf.close()
    return cycle(pages)


def _write(pages: Sequence[tuple[Path, int]], out: Path) -> Path:
    import pypdfium2 as pdfium

    target = pdfium.PdfDocument.new()
    for path, index in pages:
        source = pdfium.PdfDocument(str(path))
        target.import_pages(source, [index])
        source.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    target.save(str(out))
    target.close()
    return out


def long_pdf(out: Path, pages: int) -> Path:
    """One PDF of ``pages`` pages (tests/data's pages in turn)."""
    source = source_pages()
    return _write([next(source) for _ in range(pages)], out)


def folder(out: Path, docs: int, sizes: Sequence[int] = (1,)) -> list[Path]:
    """``docs`` PDFs in ``out`` whose page counts cycle through ``sizes`` (1 and 2: an archive
    of letters and forms); the pages are tests/data's in turn, so the folder's pages are the
    long PDF's first pages when ``sizes`` is (1,)."""
    source = source_pages()
    counts = cycle(sizes)
    made = []
    for n in range(docs):
        pages = [next(source) for _ in range(next(counts))]
        made.append(_write(pages, out / f"doc-{n + 1:04d}.pdf"))
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=48, help="pages of the long PDF")
    parser.add_argument("--docs", type=int, default=48, help="PDFs in the folder")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1], help="pages per PDF, cycled")
    args = parser.parse_args(argv)
    print(long_pdf(args.out / f"long-{args.pages}.pdf", args.pages))
    print(len(folder(args.out / "folder", args.docs, args.sizes)), "PDFs in", args.out / "folder")


if __name__ == "__main__":
    main()
