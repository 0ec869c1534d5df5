"""The development corpus of issue 35: real pages with source ground truth, built outside the
repository (``~/.cache/ocr-workbench/corpus``, or ``$OCR_WORKBENCH_CORPUS``).

    python benchmarks/corpus/build.py --discover   # once: writes manifest.yaml (frozen, split)
    python benchmarks/corpus/build.py              # pages + truth into the cache
    python benchmarks/corpus/score.py ...          # the scorer

Sources are public GitHub repositories, read at the commit the manifest names from a git
mirror (``/work/.mirror/<owner>+<name>/repo``, what the session's ``fetch`` brings, or any bare
clone given by ``--mirrors``). Nothing fetched is committed: the manifest lists repository,
commit, path, licence, the page numbers, the kind of ground truth and the half.

Ground truth kinds (a page may have several):

``text``
    The page's text as pdfminer.six lays it out (``extract_text``, default LAParams: text boxes
    in its column-aware order). Source truth from the PDF's own characters, read by a library
    the engine does not use; not a human reading (reading order on unusual layouts may be
    pdfminer's mistake, so order is the weakest of the text metrics here).
``table``
    A table the source project's own tests expect from that page: tabula-java's expected CSVs
    and camelot's lattice-test data (``tests/data.py``), as HTML tables. The page is the one
    whose text holds most of the table's words.
``outline``
    The PDF's bookmarks pointing at the page, as Markdown headings (depth = level). Only
    documents with an outline; a heading the outline leaves out counts against precision. An
    outline none of whose titles is on the page it points to is no heading truth (py-pdf's
    mistitled_outlines_example: "First", "Second" over pages headed "1 Foo", "2 Bar").
A page whose images hold text the layer lacks (a figure of a scanned form, a page image with
    no OCR layer under it) has no text truth and is left out: images without layer text cover
    ``MIN_IMAGE_SHARE`` of it or more and Tesseract reads ``IMAGE_WORDS`` words or more in them
    (:func:`text_in_images`); both engines would be scored against a truth missing what they
    rightly read (federal-register-2020-17221's pages of aircraft-manual figures: word F1
    0.06-0.27 for both). Its table and outline truth, if any, still count (an outline page
    without a heading still counts the headings an engine finds there against precision).
    Nor has a page whose text runs up or down it: pdfminer (``detect_vertical`` off) writes
    such text a character a line, often backwards (:func:`vertical_text`: ``VERTICAL_SHARE``
    of ``VERTICAL_LINES`` lines or more; pdfplumber's rotated-text tests, camelot's turned
    tables); word F1 against it was 0.01 for a reading of every word.
``scan``
    A page of the document rasterised (benchmarks/devset's ``rasterise``: 200 dpi grey, a small
    skew, grain and specks): the same truth as its born-digital page.

The split: a document's half is ``checking`` when the first byte of sha1(document id) is odd,
else ``tuning``; computed once by ``--discover`` and stored; whole documents, never pages of one
document on both sides.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import html
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _devset_build():
    """benchmarks/devset/build.py (one home for cutting and rasterising a page), by path: both
    scripts are named build.py."""
    spec = importlib.util.spec_from_file_location("devset_build", HERE.parent / "devset/build.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_DEVSET = _devset_build()
one_page, rasterise = _DEVSET.one_page, _DEVSET.rasterise

MANIFEST = HERE / "manifest.yaml"
CACHE = Path(os.environ.get("OCR_WORKBENCH_CORPUS", Path.home() / ".cache/ocr-workbench/corpus"))
MIRRORS = Path("/work/.mirror")
MAX_PAGES = 12  # per document: no document outweighs the rest
SCAN_EVERY = 4  # every 4th document also gives scans of its first 2 text pages
SOURCES = {
    "tabula-java": {"repo": "tabulapdf/tabula-java", "licence": "MIT (test resources)"},
    "camelot": {"repo": "camelot-dev/camelot", "licence": "MIT (test files)"},
    "pdfplumber": {"repo": "jsvine/pdfplumber", "licence": "MIT (test PDFs)"},
    "pdfminer": {
        "repo": "pdfminer/pdfminer.six",
        "licence": "samples/README: 'can be distributed freely' (incl. nonfree/); MIT code",
    },
    "sample-files": {"repo": "py-pdf/sample-files", "licence": "CC-BY-SA-4.0"},
}
# Forms among the documents (class ``form``); everything else born-digital is ``text``.
FORMS = re.compile(r"acroform|forms?\.pdf|f1040nr|pdffill|libreoffice-form|warn-report", re.I)
SKIP = re.compile(
    r"icdar2013|encrypt|password|empty|arabic|habibi|kampo|/jo\.pdf|china|malformed|"
    r"campaign_donors|MultiColumn|12s0324|us-0\d\d|eu-0\d\d|image|jbig2|jb2|GeoTopo\.pdf|issue-948|"
    r"unreadable|only_page_number|AnimalSounds1|sampleOneByte|font-size-test",
    re.I,
)


def git(repo: str, *args: str) -> bytes:
    gitdir = MIRRORS / repo.replace("/", "+") / "repo"
    if not gitdir.exists():
        raise SystemExit(f"{gitdir} missing: fetch github:{repo} first")
    return subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], check=True, capture_output=True
    ).stdout


def half(doc_id: str) -> str:
    return "checking" if hashlib.sha1(doc_id.encode()).digest()[0] % 2 else "tuning"


def page_texts(pdf: bytes) -> list[str]:
    from pdfminer.high_level import extract_text
    from pdfminer.pdfpage import PDFPage

    n = sum(1 for _ in PDFPage.get_pages(io.BytesIO(pdf)))
    return [extract_text(io.BytesIO(pdf), page_numbers=[i]) for i in range(n)]


def outline(pdf: bytes) -> dict[int, list[tuple[int, str]]]:
    """Bookmarks by 1-based page: (depth from 1, title), read by PDFium."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    found: dict[int, list[tuple[int, str]]] = {}
    try:
        for item in doc.get_toc():
            title = " ".join((item.get_title() or "").split())
            dest = item.get_dest()
            index = dest.get_index() if dest is not None else None
            if title and index is not None:
                found.setdefault(index + 1, []).append((item.level + 1, title))
    except Exception:  # a broken outline is no outline
        return {}
    finally:
        doc.close()
    return found


MIN_IMAGE_SHARE = 0.05  # images holding no layer text, this share of the page or more...
IMAGE_WORDS = 20  # ...in which Tesseract reads this many words of three letters: text
LAYER_CHARS = 20  # an image with fewer layer characters over it holds no layer text


VERTICAL_SHARE = 0.9  # lines of one character, this share of the page's lines or more...
VERTICAL_LINES = 20  # ...of at least this many lines: text set up or down the page


def vertical_text(text: str) -> bool:
    """pdfminer wrote ``text`` a character a line: the page's text runs up or down it."""
    lines = [line for line in text.splitlines() if line.strip()]
    single = sum(len("".join(line.split())) <= 1 for line in lines)
    return len(lines) >= VERTICAL_LINES and single >= VERTICAL_SHARE * len(lines)


def text_in_images(single: bytes) -> int:
    """Words of three letters or more Tesseract (English) reads in the images of a one-page
    PDF that hold no layer text (0 when they cover less than ``MIN_IMAGE_SHARE`` of it)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c
    import tesserocr

    from workbench.engines.cpu.readers.ocr import tessdata_dir

    doc = pdfium.PdfDocument(single)
    try:
        page = doc[0]
        w, h = page.get_size()
        chars = page.get_textpage()
        boxes = [chars.get_charbox(i) for i in range(chars.count_chars())]
        empty = []
        for obj in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=3):
            x0, y0, x1, y1 = obj.get_bounds()
            x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            inside = sum(a >= x0 - 1 and c <= x1 + 1 and b >= y0 - 1 and d <= y1 + 1
                         for a, b, c, d in boxes)  # fmt: skip
            if x1 > x0 and y1 > y0 and inside < LAYER_CHARS:
                empty.append((x0, y0, x1, y1))
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in empty) < MIN_IMAGE_SHARE * w * h:
            return 0
        scale = 150 / 72
        image = page.render(scale=scale).to_pil().convert("L")
        with tesserocr.PyTessBaseAPI(path=str(tessdata_dir()), lang="eng") as api:
            words = 0
            for x0, y0, x1, y1 in empty:
                crop = [int(v) for v in (x0, h - y1, x1, h - y0)]
                if min(crop[2] - crop[0], crop[3] - crop[1]) < 8:
                    continue  # a rule or a dot drawn as an image
                api.SetImage(image.crop(tuple(int(v * scale) for v in crop)))
                words += len(re.findall(r"[A-Za-z]{3,}", api.GetUTF8Text()))
            return words
    finally:
        doc.close()


def shows(text: str, title: str) -> bool:
    """Every word of ``title`` is on the page whose text is ``text``."""
    words = _words(title)
    return bool(words) and words <= _words(text)


def html_table(rows: list[list[str]]) -> str:
    cells = ["<table>"]
    for row in rows:
        tds = "".join(f"<td>{html.escape(' '.join(c.split()))}</td>" for c in row)
        cells.append(f"<tr>{tds}</tr>")
    return "".join(cells) + "</table>"


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def best_page(rows: list[list[str]], texts: list[str]) -> int | None:
    """1-based page whose text holds most of the table's words (None: under 80 %)."""
    want = _words(" ".join(" ".join(r) for r in rows))
    if len(want) < 4:
        return None
    shares = [len(want & _words(t)) / len(want) for t in texts]
    best = max(range(len(shares)), key=shares.__getitem__)
    return best + 1 if shares[best] >= 0.8 else None


def table_truths(commit: dict[str, str]) -> dict[tuple[str, str], list[list[list[str]]]]:
    """(source, path) -> expected tables, from tabula-java's CSVs and camelot's lattice tests."""
    out: dict[tuple[str, str], list[list[list[str]]]] = {}
    base = "src/test/resources/technology/tabula/"
    names = git("tabulapdf/tabula-java", "ls-tree", "-r", "--name-only", commit["tabula-java"])
    for name in names.decode().split():
        if name.startswith(base + "csv/") and name.endswith(".csv"):
            pdf = base + Path(name).stem + ".pdf"
            text = git("tabulapdf/tabula-java", "show", f"{commit['tabula-java']}:{name}")
            rows = list(csv.reader(io.StringIO(text.decode("utf-8", "replace"))))
            out.setdefault(("tabula-java", pdf), []).append(rows)
    data_src = git("camelot-dev/camelot", "show", f"{commit['camelot']}:tests/data.py").decode()
    data = {}
    for node in ast.parse(data_src).body:  # literals only: the file's code is never run
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                data[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:  # a slice of another list: not a table of its own
                continue
    tests = b"".join(
        git("camelot-dev/camelot", "show", f"{commit['camelot']}:tests/test_{flavor}.py")
        for flavor in ("lattice", "stream")
    )
    for func in re.split(r"\ndef ", tests.decode())[1:]:
        dfs = re.findall(r"DataFrame\((data_\w+)\)", func)
        files = set(re.findall(r'"([^"]+\.pdf)"', func))
        if (
            len(dfs) != 1
            or len(files) != 1
            or re.search(r"table_(areas|regions)|columns=|row_tol|split_text", func)
        ):
            continue
        rows = [[str(c) for c in r] for r in data.get(dfs[0], [])]
        if rows:
            out.setdefault(("camelot", "tests/files/" + files.pop()), []).append(rows)
    return out


def discover(out: Path) -> None:
    commit = {k: git(v["repo"], "rev-parse", "HEAD").decode().strip() for k, v in SOURCES.items()}
    tested = {hashlib.sha256(p.read_bytes()).hexdigest() for p in (ROOT / "tests").rglob("*.pdf")}
    tables = table_truths(commit)
    wanted = {
        "tabula-java": "src/test/resources/technology/tabula/",
        "camelot": "tests/files/",
        "pdfplumber": "tests/pdfs/",
        "pdfminer": "samples/",
        "sample-files": "",
    }
    docs, seen = [], set(tested)
    for key, prefix in wanted.items():
        repo = SOURCES[key]["repo"]
        names = git(repo, "ls-tree", "-r", "--name-only", commit[key]).decode().split("\n")
        for path in sorted(n for n in names if n.startswith(prefix) and n.endswith(".pdf")):
            if SKIP.search(path):
                continue
            pdf = git(repo, "show", f"{commit[key]}:{path}")
            digest = hashlib.sha256(pdf).hexdigest()
            if digest in seen:  # in tests/ (tuned on) or already taken from another repo
                continue
            seen.add(digest)
            try:
                texts = page_texts(pdf)
                heads = outline(pdf)
            except Exception as exc:  # an unreadable test PDF is a test of errors, not a page
                print(f"skip {key}:{path}: {type(exc).__name__}", file=sys.stderr)
                continue
            doc_id = f"{key}--{Path(path).stem}".lower()
            truth_tables = {}
            for rows in tables.get((key, path), []):
                page = best_page(rows, texts)
                if page:
                    truth_tables.setdefault(page, []).append(rows)
            pages = [i + 1 for i, t in enumerate(texts) if len(_words(t)) >= 20]
            pages = sorted(set(pages[:MAX_PAGES]) | set(truth_tables))
            if not pages:
                continue
            kind = "form" if FORMS.search(path) else "text"
            docs.append({
                "id": doc_id, "source": key, "path": path, "sha256": digest,
                "class": kind, "pages": pages, "half": half(doc_id),
                "outline": bool(heads),
                "tables": {p: rows for p, rows in sorted(truth_tables.items())},
                "scans": [],
            })  # fmt: skip
    for i, doc in enumerate(docs):
        if i % SCAN_EVERY == 0:
            doc["scans"] = doc["pages"][:2]
        describe(doc)
    sources = {k: {**v, "commit": commit[k]} for k, v in SOURCES.items()}
    out.write_text(
        "# Written once by `python benchmarks/corpus/build.py --discover`; see build.py.\n"
        + yaml.safe_dump({"sources": sources, "documents": docs}, sort_keys=False, width=100)
    )
    print(f"{len(docs)} documents, {sum(len(d['pages']) + len(d['scans']) for d in docs)} pages")


def describe(doc: dict) -> dict:
    """The document's licence (its source's) and kinds of ground truth, written beside it."""
    doc["licence"] = SOURCES[doc["source"]]["licence"]
    doc["truth"] = ["text"] + ["table"] * bool(doc["tables"]) + ["outline"] * doc["outline"]
    doc["truth"] += ["scan"] * bool(doc["scans"])
    return doc


def page_classes(doc: dict, page: int, heads: dict, scan: bool) -> list[str]:
    if scan:
        return ["scan"]
    classes = ["table" if page in doc["tables"] else doc["class"]]
    if heads.get(page):
        classes.append("headings")
    return classes


def build(manifest: dict) -> None:
    """Every page of the manifest as ``pages/<id>.pdf`` and its truth as ``truth/<id>.json``."""
    (CACHE / "pages").mkdir(parents=True, exist_ok=True)
    (CACHE / "truth").mkdir(parents=True, exist_ok=True)
    index = []
    for doc in manifest["documents"]:
        src = manifest["sources"][doc["source"]]
        pdf = git(src["repo"], "show", f"{src['commit']}:{doc['path']}")
        if hashlib.sha256(pdf).hexdigest() != doc["sha256"]:
            raise SystemExit(f"{doc['id']}: sha256 differs from the manifest's")
        texts = page_texts(pdf)
        heads = outline(pdf) if doc["outline"] else {}
        titles = [(n, t) for n, hs in heads.items() for _, t in hs]
        mistitled = titles and not any(shows(texts[n - 1], t) for n, t in titles)
        if mistitled:  # a mistitled outline ("First", "Second" over "1 Foo"): not the headings
            print(f"{doc['id']}: no bookmark's title is on its page; no heading truth")
            heads, doc = {}, {**doc, "outline": False}
        for page in doc["pages"] + [-p for p in doc["scans"]]:
            scan, number = page < 0, abs(page)
            pid = f"{doc['id']}-p{number}" + ("-scan" if scan else "")
            single = one_page(pdf, number)
            blind = (words := text_in_images(single)) >= IMAGE_WORDS
            if blind:
                print(f"{pid}: {words} words in images its layer lacks; no text truth")
            elif vertical_text(texts[number - 1]):
                blind = True
                print(f"{pid}: text set up or down the page, a character a line; no text truth")
            # its tables and outline are still truth; with neither it is left out
            if blind and number not in doc["tables"] and not doc["outline"]:
                continue
            if scan:
                seed = int(hashlib.sha1(pid.encode()).hexdigest()[:8], 16)
                single = rasterise(single, 200, (seed % 5 - 2) * 0.5, 0.002, seed)
            (CACHE / "pages" / f"{pid}.pdf").write_bytes(single)
            truth = {
                "text": "" if blind else texts[number - 1],
                "tables": "\n\n".join(html_table(t) for t in doc["tables"].get(number, [])),
                "headings": (
                    "\n\n".join("#" * min(d, 6) + " " + t for d, t in heads.get(number, []))
                    if doc["outline"]
                    else None
                ),
            }
            (CACHE / "truth" / f"{pid}.json").write_text(json.dumps(truth))
            index.append({
                "id": pid, "doc": doc["id"], "half": doc["half"],
                "classes": page_classes(doc, number, heads, scan),
            })  # fmt: skip
        print(f"{doc['id']}: {len(doc['pages']) + len(doc['scans'])} pages", file=sys.stderr)
    (CACHE / "index.json").write_text(json.dumps(index, indent=1))
    print(f"{len(index)} pages into {CACHE}")


def main() -> int:
    global MIRRORS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--discover", action="store_true", help="write manifest.yaml (once)")
    ap.add_argument("--mirrors", type=Path, default=MIRRORS, help="folder of <owner>+<name>/repo")
    args = ap.parse_args()
    MIRRORS = args.mirrors
    if args.discover:
        discover(MANIFEST)
    build(yaml.safe_load(MANIFEST.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
