"""Benchmark inputs built from the real PDFs in tests/data (no network): pages repeated with
pypdfium2 into one long PDF, or into a folder of short PDFs. Deterministic: the same arguments
give the same files.

tests/data holds 36 pages, so a set repeats them. With ``stamp`` every page carries a small
label (``"<stamp> <n>"``, 5 pt, in the bottom-left corner), so no two pages of a set, nor of
two sets with different stamps, are the same image: a server with prefix caching and
vLLM's multimodal cache on (Chandra's recipe) would otherwise answer repeated pages from its
caches (measured on the H100, 2026-12-06: hit rates 65 % and 70 %), which real documents never
allow.

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


def _stamped(target: object, source: object, index: int, text: str) -> None:
    """Page ``index`` of ``source`` appended to ``target`` as a form object on a new page of its
    size, with ``text`` in 5 pt Helvetica at the bottom-left corner. (Regenerating an imported
    page's own content crashed PDFium on one of tests/data's pages: the copy is left as is.)"""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    assert isinstance(target, pdfium.PdfDocument) and isinstance(source, pdfium.PdfDocument)
    width, height = source.get_page_size(index)
    form = source.page_as_xobject(index, target).as_pageobject()
    page = target.new_page(width, height)
    page.insert_obj(form)
    font = raw.FPDFText_LoadStandardFont(target.raw, b"Helvetica")
    obj = raw.FPDFPageObj_CreateTextObj(target.raw, font, 5.0)
    wide = ctypes.create_string_buffer((text + "\0").encode("utf-16-le"))
    raw.FPDFText_SetText(obj, ctypes.cast(wide, raw.FPDF_WIDESTRING))
    raw.FPDFPageObj_Transform(obj, 1, 0, 0, 1, 6, 4)
    raw.FPDFPage_InsertObject(page.raw, obj)
    page.gen_content()
    page.close()


def _write(pages: Sequence[tuple[Path, int]], out: Path, stamp: str = "", first: int = 1) -> Path:
    """``pages`` into the PDF ``out``; with ``stamp`` page i is labelled ``stamp (first+i)``."""
    import pypdfium2 as pdfium

    target = pdfium.PdfDocument.new()
    for n, (path, index) in enumerate(pages):
        source = pdfium.PdfDocument(str(path))
        if stamp:
            _stamped(target, source, index, f"{stamp} {first + n}")
        else:
            target.import_pages(source, [index])
        source.close()
    out.parent.mkdir(parents=True, exist_ok=True)
    target.save(str(out))
    target.close()
    return out


def long_pdf(out: Path, pages: int, stamp: str = "") -> Path:
    """One PDF of ``pages`` pages (tests/data's pages in turn; each labelled with ``stamp``)."""
    source = source_pages()
    return _write([next(source) for _ in range(pages)], out, stamp)


def folder(out: Path, docs: int, sizes: Sequence[int] = (1,), stamp: str = "") -> list[Path]:
    """``docs`` PDFs in ``out`` whose page counts cycle through ``sizes`` (1 and 2: an archive
    of letters and forms); the pages are tests/data's in turn, so the folder's pages are the
    long PDF's first pages when ``sizes`` is (1,)."""
    source = source_pages()
    counts = cycle(sizes)
    made, first = [], 1
    for n in range(docs):
        pages = [next(source) for _ in range(next(counts))]
        made.append(_write(pages, out / f"doc-{n + 1:04d}.pdf", stamp, first))
        first += len(pages)
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
