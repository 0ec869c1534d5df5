"""Heading precision and recall of the CPU engine on born-digital PDFs whose outline
(bookmarks) lists their sections: the outline is the ground truth, set by the documents'
own authoring tools (LaTeX's hyperref, Texinfo, DocBook), not by anyone here.

For each PDF, up to ``--pages`` pages that outline entries point to (spread over the
document) are read by the engine in ``auto`` mode (200 DPI, its text layer). A heading is a
Markdown line starting with ``#``. A heading is right when it matches an outline entry of the
same page or of the pages either side (an outline's destination may be a page off), or the
document's Title (its metadata); an outline entry is found when a heading of its page matches
it. Matching compares letters and digits only, case-folded, without a leading section number
or chapter label ("1.2 Modes" = "Modes", "Chapter 5 Fonts" = "5 Fonts"); a heading
that is the start of an entry (or the reverse), 8 characters or more, matches too (an entry
wrapped over two lines, a long title cut short by the outline). The outline's entries are
its sections at every depth it lists; a document that leaves its lowest levels out of the
outline counts their headings as wrong, so precision here is a lower bound: the per-page
listing (``--show``) says which.

    python benchmarks/headings_outline.py [PDF ...] [--pages 4] [--show]

The PDFs used for the numbers in the report: TeX Live's and Debian's documentation on this
machine (``/usr/share/doc``), listed in ``DEFAULT``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pypdfium2 as pdfium

from workbench.documents import open_document
from workbench.engines.base import PageRequest
from workbench.engines.cpu.engine import get_cpu_engine
from workbench.markdown.assemble import assemble_page

DEFAULT = [
    "/usr/share/doc/texlive-doc/kpathsea/kpathsea.pdf",
    "/usr/share/doc/texlive-doc/support/texdoc/texdoc.pdf",
    "/usr/share/doc/texlive-doc/generic/iftex/iftex.pdf",
    "/usr/share/doc/texlive-doc/texlive/texlive-en/texlive-en.pdf",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",
    "/usr/share/doc/texlive-doc/dvipdfmx/dvipdfmx.pdf",
    "/usr/share/doc/texlive-doc/texlive/tlbuild/tlbuild.pdf",
    "/usr/share/doc/texlive-doc/fonts/amsfonts/amsfndoc.pdf",
    "/usr/share/doc/texlive-doc/web2c/web2c.pdf",
]
_LEAD = re.compile(
    r"^\s*(?:(?:chapter|appendix|part)\s+\w+|\d+(?:\.\d+)*\.?|[A-Z]\.?(?:\d+\.?)*)\s+",
    re.IGNORECASE,
)


def norm(text: str) -> str:
    text = _LEAD.sub("", text.replace("\\", ""))
    return "".join(c for c in text.casefold() if c.isalnum())


def matches(a: str, b: str) -> bool:
    x, y = norm(a), norm(b)
    if not x or not y:
        return False
    return x == y or (min(len(x), len(y)) >= 8 and (x.startswith(y) or y.startswith(x)))


def outline(path: str) -> dict[int, list[str]]:
    pdf = pdfium.PdfDocument(path)
    try:
        out: dict[int, list[str]] = {}
        for item in pdf.get_toc():
            dest = item.get_dest()
            if dest is not None and dest.get_index() is not None:
                out.setdefault(dest.get_index() + 1, []).append(item.get_title())
        return out
    finally:
        pdf.close()


def metadata_title(path: str) -> str:
    pdf = pdfium.PdfDocument(path)
    try:
        return str(pdf.get_metadata_dict().get("Title", ""))
    finally:
        pdf.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pdfs", nargs="*", default=DEFAULT)
    ap.add_argument("--pages", type=int, default=4)
    ap.add_argument("--show", action="store_true")
    args = ap.parse_args()
    engine = get_cpu_engine().configured(text_layer="auto")
    right = preds = found = truths = 0
    for path in args.pdfs:
        toc = outline(path)
        pages = sorted(toc)
        if len(pages) > args.pages:
            step = (len(pages) - 1) / (args.pages - 1)
            pages = sorted({pages[round(i * step)] for i in range(args.pages)})
        title = metadata_title(path)
        doc = open_document(Path(path).name, Path(path).read_bytes())
        for index in pages:
            page = doc.page(index, dpi=200)
            req = PageRequest(key="p", image=page.image, text_layer=page.text_layer)
            out = next(iter(engine.run([req])))
            md = assemble_page(out.regions or [], include_furniture=False)
            heads = [ln.lstrip("#").strip() for ln in md.splitlines() if re.match(r"#{1,6} ", ln)]
            truth = toc[index]
            near = truth + toc.get(index - 1, []) + toc.get(index + 1, []) + [title]
            ok = [h for h in heads if any(matches(h, t) for t in near)]
            hit = [t for t in truth if any(matches(h, t) for h in heads)]
            right, preds = right + len(ok), preds + len(heads)
            found, truths = found + len(hit), truths + len(truth)
            if args.show:
                print(f"== {Path(path).name} p{index}")
                for h in heads:
                    print(("   ok  " if h in ok else "   XX  ") + h[:90])
                for t in truth:
                    if t not in hit:
                        print("   MISS " + t[:90])
    p = right / preds if preds else 0.0
    r = found / truths if truths else 0.0
    print(f"headings: precision {p:.1%} ({right}/{preds}), recall {r:.1%} ({found}/{truths})")


if __name__ == "__main__":
    main()
