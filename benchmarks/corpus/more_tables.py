"""More table truth for the development corpus (issue 35, 2026-12-05): tables the source
projects' own tests expect, beyond the CSVs and the two camelot test files ``build.py
--discover`` read. Adds to ``manifest.yaml`` in place; every document or table already there
is left as it is.

    python benchmarks/corpus/more_tables.py [--mirrors DIR] [--dry-run]
    python benchmarks/corpus/build.py       # then rebuild the pages and truth

Rules (fixed before any score was looked at):

* **camelot**: every ``tests/test_*.py`` function that compares ``camelot.read_pdf`` of a file
  with ``DataFrame(data_…)`` from ``tests/data.py`` (read as literals; ``X[a:b]`` and
  ``list(X)`` of a literal are evaluated, nothing is executed), with no table areas or
  regions, column hints, row tolerance, or option that rewrites the cells' text
  (``split_text``, ``strip_text``, ``flag_size``, ``shift_text``, ``copy_text``). A test with
  several DataFrames must read one file once (they are that file's tables in order); a test
  with one DataFrame may read several files (each expects it). Where several tests expect
  tables of one file, the first flavour wins in the order lattice, stream, network, hybrid
  (camelot's original two first), then the test's order in its file.
* **tabula-java**: expected tables written inline in ``src/test/java`` (a ``String[][]
  …_EXPECTED`` array compared with ``assertArrayEquals``, or a ``String expected = "…"`` CSV),
  in a test that opens one PDF. Like the CSVs ``build.py`` reads, some of these were
  extracted from an area of the page (tabula's tests name one), so a table's header rows may
  be left out of its truth.
* **pdfplumber**: none. Its tests assert single cells, row counts and column sums, never a
  whole table.

Only documents without table truth get any; a table lands on the page holding ≥ 80 % of its
words (``build.best_page``), and that page joins the document's pages. A new document (none so
far) takes the corpus's split rule (``build.half``: sha1 of its id) and ``build.py``'s limits.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import io
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build

_STRING = r'"((?:[^"\\]|\\.)*)"'  # a Java string literal; its text in group 1
FLAVOURS = ("lattice", "stream", "network", "hybrid")
CAMELOT_HINTS = re.compile(
    r"table_(areas|regions)|columns=|row_tol|split_text|strip_text|flag_size|shift_text|copy_text"
)


def _literal(node: ast.expr, data: dict[str, list]) -> list | None:
    """A table of data.py: a literal, ``X[a:b]`` or ``list(X)`` of one; None otherwise."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        base, part = data.get(node.value.id), node.slice
        if base is not None and isinstance(part, ast.Slice) and part.step is None:
            bounds = [
                ast.literal_eval(b) if b is not None else None for b in (part.lower, part.upper)
            ]
            return base[bounds[0] : bounds[1]]
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "list"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
    ):
        return data.get(node.args[0].id)
    return None


def camelot_tables(commit: str) -> dict[str, tuple[str, list[list[list[str]]]]]:
    """path -> (the test it comes from, its expected tables), by the rules above."""
    repo = "camelot-dev/camelot"
    data: dict[str, list] = {}
    source = build.git(repo, "show", f"{commit}:tests/data.py").decode()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            value = _literal(node.value, data)
            if value is not None:
                data[node.targets[0].id] = value
    out: dict[str, tuple[str, list[list[list[str]]]]] = {}
    for flavour in FLAVOURS:
        name = f"tests/test_{flavour}.py"
        for func in re.split(r"\ndef ", build.git(repo, "show", f"{commit}:{name}").decode())[1:]:
            dfs = re.findall(r"DataFrame\((data_\w+)\)", func)
            files = list(dict.fromkeys(re.findall(r'"([^"]+\.pdf)"', func)))
            calls = func.count("read_pdf(")
            if not dfs or not files or CAMELOT_HINTS.search(func):
                continue
            if len(dfs) > 1 and (len(files) > 1 or calls > 1):
                continue
            tables = [[[str(c) for c in r] for r in data.get(df) or []] for df in dfs]
            if not all(tables):
                continue
            test = f"{name}::{func.split('(')[0]}"
            for file in files:
                out.setdefault("tests/files/" + file, (test, tables))
    return out


def _java_strings(text: str) -> str:
    """The value of a Java concatenation of string literals."""
    parts = re.findall(_STRING, text)
    escapes = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\", "'": "'"}
    return "".join(re.sub(r"\\(.)", lambda m: escapes.get(m[1], m[1]), p) for p in parts)


def tabula_tables(commit: str) -> dict[str, tuple[str, list[list[list[str]]]]]:
    """path -> (the test it comes from, its expected tables): inline arrays and CSV strings."""
    repo = "tabulapdf/tabula-java"
    names = build.git(repo, "ls-tree", "-r", "--name-only", commit).decode().split()
    out: dict[str, tuple[str, list[list[list[str]]]]] = {}
    for name in names:
        if not (name.startswith("src/test/java/") and name.endswith(".java")):
            continue
        java = build.git(repo, "show", f"{commit}:{name}").decode("utf-8", "replace")
        arrays = {
            m[1]: [re.findall(_STRING, row) for row in re.findall(r"\{([^{}]*)\}", m[2])]
            for m in re.finditer(r"String\[\]\[\]\s+(\w+_EXPECTED)\s*=\s*\{(.*?)\};", java, re.S)
        }
        for method in re.split(r"@Test", java)[1:]:
            pdfs = list(dict.fromkeys(re.findall(r'"(src/test/resources/[^"]+\.pdf)"', method)))
            pdfs += [
                m for ref in re.findall(r"\b([A-Z0-9_]+_PDF)\b", method)
                for m in re.findall(rf'{ref}\s*=\s*"([^"]+\.pdf)"', java)
            ]  # fmt: skip
            if len(set(pdfs)) != 1:
                continue
            tables = [arrays[a] for a in re.findall(r"assertArrayEquals\((\w+_EXPECTED)", method)]
            inline = re.search(rf"String expected\s*=\s*((?:{_STRING}\s*\+?\s*)+);", method)
            if inline:
                rows = list(csv.reader(io.StringIO(_java_strings(inline[1]))))
                tables.append([[c.replace("\r", "\n") for c in r] for r in rows if r])
            tables = [t for t in tables if t]
            if tables:
                test = f"{name}::{method.split('(')[0].split()[-1]}"
                out.setdefault(pdfs[0], (test, tables))
    return out


def add(manifest: dict) -> list[str]:
    """Table truth into the manifest's documents that have none; what was added, as lines."""
    sources = manifest["sources"]
    found = {
        ("camelot", path): hit
        for path, hit in camelot_tables(sources["camelot"]["commit"]).items()
    } | {
        ("tabula-java", path): hit
        for path, hit in tabula_tables(sources["tabula-java"]["commit"]).items()
    }  # fmt: skip
    docs = {(d["source"], d["path"]): d for d in manifest["documents"]}
    added = []
    for (key, path), (test, tables) in sorted(found.items()):
        doc = docs.get((key, path))
        if build.SKIP.search(path) or (doc is not None and doc["tables"]):
            continue
        repo, commit = sources[key]["repo"], sources[key]["commit"]
        pdf = build.git(repo, "show", f"{commit}:{path}")
        texts = build.page_texts(pdf)
        placed: dict[int, list] = {}
        for rows in tables:
            page = build.best_page(rows, texts)
            if page:
                placed.setdefault(page, []).append(rows)
        if not placed:
            added.append(f"{key}:{path}: {test}: no page holds 80 % of its words, left out")
            continue
        if doc is None:  # a document the first discovery left out: the same split rule
            doc_id = f"{key}--{Path(path).stem}".lower()
            doc = {
                "id": doc_id, "source": key, "path": path,
                "sha256": hashlib.sha256(pdf).hexdigest(), "class": "text",
                "pages": [], "half": build.half(doc_id), "outline": bool(build.outline(pdf)),
                "tables": {}, "scans": [],
            }  # fmt: skip
            manifest["documents"].append(doc)
        doc["tables"] = dict(sorted(placed.items()))
        doc["tables_from"] = test
        doc["pages"] = sorted(set(doc["pages"]) | set(placed))
        build.describe(doc)
        shape = ", ".join(f"p{p}: {[len(t) for t in ts]} rows" for p, ts in placed.items())
        added.append(f"{doc['id']} ({doc['half']}): {test}: {shape}")
    return added


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--mirrors", type=Path, default=build.MIRRORS)
    ap.add_argument("--dry-run", action="store_true", help="print, do not write the manifest")
    args = ap.parse_args()
    build.MIRRORS = args.mirrors
    text = build.MANIFEST.read_text()
    header = text.split("\n", 1)[0]
    manifest = yaml.safe_load(text)
    for line in add(manifest):
        print(line)
    if not args.dry_run:
        build.MANIFEST.write_text(
            header + "\n" + yaml.safe_dump(manifest, sort_keys=False, width=100)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
