"""The development set's page list, written out as ``manifest.json`` (dev tool).

    python benchmarks/devset/pages.py     # rewrites manifest.json (keeps recorded built_sha256)

One place to read what the set holds and why; ``manifest.json`` is what ``build.py``, the
scorer and the tests read. Member sha256s are taken from the sdists in the cache
(``build.py`` downloads them), so this runs after one build of the sources.
"""

# ruff: noqa: E501 - the page tables below read best one entry a line

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build import MANIFEST, sdist_path, sha256

PYPI = "https://pypi.org/project/{package}/{version}/"
SOURCES = {
    "black": {"package": "black", "version": "26.10.1", "sdist": "black-26.10.1.tar.gz",
              "licence": "MIT"},
    "pip": {"package": "pip", "version": "26.3", "sdist": "pip-26.3.tar.gz", "licence": "MIT"},
    "sympy": {"package": "sympy", "version": "1.14.0", "sdist": "sympy-1.14.0.tar.gz",
              "licence": "BSD-3-Clause"},
    "ocrmypdf": {"package": "ocrmypdf", "version": "17.13.0", "sdist": "ocrmypdf-17.13.0.tar.gz",
                 "licence": "see per page (test resources, ocrmypdf REUSE.toml)"},
    "tabula": {"package": "tabula-py", "version": "2.10.0", "sdist": "tabula_py-2.10.0.tar.gz",
               "licence": "MIT"},
}  # fmt: skip
SHA = {
    "black": "5f9f83beae62437e060dafd53d7f1fc327e3d3494f74d72ee5c2b73eb90fc4e7",
    "pip": "6c36ae7da8695be67e3cd9f7d87919667ced53f57ce2ede75d89b5912ed2bc4c",
    "sympy": "d3d3fe8df1e5a0b42f0e7bdf50541697dbe7d23746e894990c030e2b05e72517",
    "ocrmypdf": "151c35d810eb628fbc5cb9bbe80b834ecf094737efa0e7a2e9e1fac3c730ed49",
    "tabula": "75968a83fe978e5d56ccf23f0f0255a459c256b7b52db7cabe5ac795bb3b12df",
}

BD, HD, TB, MA, MC, SC, RC = (
    "born-digital", "headings", "tables", "math", "multi-column", "scanned", "receipts",
)  # fmt: skip
B = "black-26.10.1/docs/"
P = "pip-26.3/docs/html/"
S = "sympy-1.14.0/doc/src/"

# id, source, member, start heading, options, classes
CUTS = [
    ("black-getting-started", "black", B + "getting_started.md", None, {}, [BD, HD]),
    ("black-usage-basics", "black", B + "usage_and_configuration/the_basics.md", None, {}, [BD, HD]),
    ("black-contributing", "black", B + "contributing/the_basics.md", None, {}, [BD, HD]),
    ("black-release", "black", B + "contributing/release_process.md", None, {"numbered": True}, [BD, HD]),
    ("black-gauging", "black", B + "contributing/gauging_changes.md", None, {}, [BD, HD]),
    ("black-file-discovery", "black", B + "usage_and_configuration/file_collection_and_discovery.md", None, {"fontsize": "11pt"}, [BD, HD]),
    ("pip-caching", "pip", P + "topics/caching.md", None, {}, [BD, HD]),
    ("pip-authentication", "pip", P + "topics/authentication.md", None, {"numbered": True}, [BD, HD]),
    ("pip-repeatable", "pip", P + "topics/repeatable-installs.md", None, {}, [BD, HD]),
    ("pip-secure", "pip", P + "topics/secure-installs.md", None, {"fontsize": "11pt"}, [BD, HD]),
    ("pip-dependency-resolution", "pip", P + "topics/dependency-resolution.md", None, {"numbered": True}, [BD, HD]),
    ("pip-vcs", "pip", P + "topics/vcs-support.md", None, {}, [BD, HD]),
    ("black-future-2col", "black", B + "the_black_code_style/future_style.md", None, {"columns": 2}, [BD, HD, MC]),
    ("pip-more-resolution-2col", "pip", P + "topics/more-dependency-resolution.md", None, {"columns": 2, "numbered": True}, [BD, HD, MC]),
    ("pip-workflow-2col", "pip", P + "topics/workflow.md", None, {"columns": 2}, [BD, HD, MC]),
    # (not black's current_style.md in 3 columns: its code lines overrun the columns, no reader can be right)
    ("pip-docs-research-3col", "pip", P + "ux-research-design/research-results/improving-pips-documentation.md", None, {"columns": 3}, [BD, HD, MC]),
    ("pip-guidance-3col", "pip", P + "ux-research-design/guidance.md", None, {"columns": 3}, [BD, HD, MC]),
    ("sympy-gfunctions", "sympy", S + "modules/integrals/g-functions.rst", "Polar Numbers", {}, [BD, MA, HD]),
    ("sympy-gfunctions-2col", "sympy", S + "modules/integrals/g-functions.rst", "Applying the Integral", {"columns": 2, "numbered": True}, [BD, MA, MC, HD]),
    ("sympy-vectors", "sympy", S + "explanation/modules/physics/vector/vectors/vectors.rst", None, {}, [BD, MA, HD]),
    ("sympy-kinematics-2col", "sympy", S + "explanation/modules/physics/vector/kinematics/kinematics.rst", None, {"columns": 2}, [BD, MA, MC, HD]),
    ("sympy-units", "sympy", S + "modules/physics/units/philosophy.rst", None, {}, [BD, MA, HD]),
    ("sympy-finite-diff", "sympy", S + "explanation/special_topics/finite_diff_derivatives.rst", None, {}, [BD, MA, HD]),
    ("sympy-masses", "sympy", S + "explanation/modules/physics/mechanics/masses.rst", None, {"fontsize": "11pt"}, [BD, MA, HD]),
]  # fmt: skip

# LaTeX pages of ours (src/<id>.tex, truth/<id>.md by hand): id, classes, licence, provenance
LATEX = [
    ("table-mtcars-two-level", [BD, TB], "tabula-py data.csv figures (Motor Trend 1974, via R's mtcars)"),
    ("table-mtcars-dot-leaders", [BD, TB], "tabula-py data.csv figures (Motor Trend 1974, via R's mtcars)"),
    ("table-borderless-stacked", [BD, TB], "tabula-py data.csv figures (Motor Trend 1974, via R's mtcars)"),
    ("table-paper-multiline-header", [BD, TB, MA], "ours: a paper-style results table (numbers from sympy/pip docs pages' own counts)"),
    ("receipt-grocery", [BD, RC], "ours (invented receipt, CC0)"),
    ("receipt-hardware", [BD, RC], "ours (invented receipt, CC0)"),
    ("form-pkginfo-black", [BD, RC], "black 26.10.1 PKG-INFO metadata, laid out as a key/value form"),
    ("form-pkginfo-sympy", [BD, RC], "sympy 1.14.0 PKG-INFO metadata, laid out as a key/value form"),
]  # fmt: skip

# page images of the pages above: id, base, dpi, skew (degrees), noise, seed, extra classes
RASTERS = [
    ("scan-black-getting-started", "black-getting-started", 150, 1.5, 0.002, 1, [HD]),
    ("scan-pip-caching", "pip-caching", 200, -2.0, 0.003, 2, [HD]),
    ("scan-sympy-vectors", "sympy-vectors", 200, 1.0, 0.002, 3, [MA, HD]),
    ("scan-black-future-2col", "black-future-2col", 200, 2.5, 0.002, 4, [MC, HD]),
    ("scan-pip-guidance-3col", "pip-guidance-3col", 200, -3.0, 0.002, 5, [MC, HD]),
    ("scan-sympy-gfunctions-2col", "sympy-gfunctions-2col", 150, -1.2, 0.002, 6, [MA, MC, HD]),
    ("scan-table-mtcars-two-level", "table-mtcars-two-level", 200, 1.5, 0.002, 7, [TB]),
    ("scan-table-borderless-stacked", "table-borderless-stacked", 150, -1.0, 0.003, 8, [TB]),
    ("scan-receipt-grocery", "receipt-grocery", 200, 2.0, 0.004, 9, [RC]),
    ("scan-receipt-hardware", "receipt-hardware", 150, -1.5, 0.003, 10, [RC]),
    ("scan-form-pkginfo-black", "form-pkginfo-black", 200, 1.0, 0.002, 11, [RC]),
]  # fmt: skip

# pages taken whole from sdists (truth by hand): id, source, kind, member, extra, classes, licence
TAKEN = [
    ("tabula-data-p1", "tabula", "sdist-pdf", "tabula_py-2.10.0/tests/resources/data.pdf", {"page": 1}, [BD, TB], "MIT (tabula-py test resource)"),
    ("tabula-multicolumn", "tabula", "sdist-pdf", "tabula_py-2.10.0/tests/resources/MultiColumn.pdf", {"page": 1}, [BD, TB, MC], "MIT (tabula-py test resource)"),
    ("tabula-campaign-donors", "tabula", "sdist-pdf", "tabula_py-2.10.0/tests/resources/campaign_donors.pdf", {"page": 1}, [BD, TB], "MIT (tabula-py test resource); US campaign finance filing, public record"),
    ("real-scan-linn", "ocrmypdf", "sdist-pdf", "ocrmypdf-17.13.0/tests/resources/linn.pdf", {"page": 1}, [SC, MC, HD], "Wikimedia Commons LinnSequencer brochure scan (ocrmypdf REUSE.toml)"),
    ("real-scan-typewriter", "ocrmypdf", "sdist-image", "ocrmypdf-17.13.0/tests/resources/typewriter.png", {"dpi": 300}, [SC], "Wikimedia Commons 'Triumph typewriter text Linzensoep' (ocrmypdf REUSE.toml)"),
    ("real-scan-epson-wikipedia", "ocrmypdf", "sdist-pdf", "ocrmypdf-17.13.0/tests/resources/epson.pdf", {"page": 1}, [SC, HD], "CC-BY-SA (printout of the Wikipedia article 'Optical character recognition', scanned)"),
]  # fmt: skip


def member_sha(src: dict, member: str) -> str:
    with tarfile.open(sdist_path(src)) as tar:
        handle = tar.extractfile(tar.getmember(member))
        assert handle is not None
        return sha256(handle.read())


def main() -> int:
    old = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {"pages": []}
    built = {e["id"]: e.get("built_sha256") for e in old["pages"]}
    sources = {}
    for key, src in SOURCES.items():
        entry = {**src, "url": PYPI.format(**src)}
        path = Path(__file__).resolve().parent / "cache" / "sdist" / src["sdist"]
        entry["sha256"] = sha256(path.read_bytes()) if path.exists() else SHA[key]
        sources[key] = entry
    pages = []
    for pid, src, member, start, options, classes in CUTS:
        pages.append({
            "id": pid, "classes": classes, "source": src, "licence": SOURCES[src]["licence"],
            "origin": f"pip sdist {SOURCES[src]['sdist']}: {member}" + (f" from '{start}'" if start else ""),
            "page": 1, "truth": f"truth/{pid}.md",
            "cut": {"member": member, "start": start, "default_math": src == "sympy"},
            "member_sha256": member_sha(sources[src], member),
            "recipe": {"kind": "pandoc", "options": options},
        })  # fmt: skip
    for pid, classes, origin in LATEX:
        pages.append({
            "id": pid, "classes": classes, "source": "ours", "licence": "CC0-1.0 (ours)",
            "origin": origin, "page": 1, "truth": f"truth/{pid}.md",
            "recipe": {"kind": "latex", "tex": f"src/{pid}.tex"},
        })  # fmt: skip
    for pid, src, kind, member, extra, classes, licence in TAKEN:
        sha = member_sha(sources[src], member)
        pages.append({
            "id": pid, "classes": classes, "source": src, "licence": licence,
            "origin": f"pip sdist {SOURCES[src]['sdist']}: {member}", "page": extra.get("page", 1),
            "truth": f"truth/{pid}.md", "member_sha256": sha,
            "recipe": {"kind": kind, "member": member, "member_sha256": sha, **extra},
        })  # fmt: skip
    by_id = {p["id"]: p for p in pages}
    for pid, base, dpi, skew, noise, seed, extra in RASTERS:
        b = by_id[base]
        classes = [SC, *dict.fromkeys(extra)]  # a page image is not born-digital any more
        pages.append({
            "id": pid, "classes": classes, "source": b["source"], "licence": b["licence"],
            "origin": f"page image of {base}: {dpi} dpi, {skew} deg skew, noise {noise}, seed {seed}",
            "page": 1, "truth": b["truth"],
            "recipe": {"kind": "raster", "base": base, "dpi": dpi, "skew": skew, "noise": noise, "seed": seed},
        })  # fmt: skip
    for p in pages:
        if built.get(p["id"]):
            p["built_sha256"] = built[p["id"]]
    manifest = {"classes": ["born-digital", "tables", "math", "multi-column", "headings",
                            "scanned", "receipts"], "sources": sources, "pages": pages}  # fmt: skip
    MANIFEST.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(pages)} pages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
