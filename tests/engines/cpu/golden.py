"""The CPU engine's output on every page in tests/data, as a snapshot that proves a refactor
changed nothing (issue 22).

Every page of every PDF in ``tests/data`` is opened as the pipeline opens it
(:func:`~workbench.documents.open_document`, 200 DPI, with its text layer) and read by the
engine in ``auto`` mode; a page that has a text layer is read a second time with
``text_layer="never"`` so that the OCR path (tables, figures, furniture on scans) is pinned
too. The signature pages (``tests/data/signatures``) are read once, as scans. For each read
the snapshot holds the page Markdown (furniture included) and every region: label, native
label, box (page pixels, rounded to 0.1 px: rounding is only there to keep the JSON short,
the boxes are sums of Tesseract/PDF coordinates), text, reader, confidence and score.

    python3 tests/engines/cpu/golden.py --write      # regenerate tests/data/golden/cpu/
    python3 tests/engines/cpu/golden.py              # compare, print the first differences

One JSON file per PDF; :func:`snapshot` is what the slow test compares byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from workbench.documents import open_document  # noqa: E402
from workbench.engines.base import PageRequest  # noqa: E402
from workbench.engines.cpu.engine import CpuEngine, get_cpu_engine  # noqa: E402
from workbench.markdown.assemble import assemble_page  # noqa: E402
from workbench.schema import Region  # noqa: E402

DATA = ROOT / "tests" / "data"
GOLDEN = DATA / "golden" / "cpu"
DPI = 200


def sources() -> list[Path]:
    """The PDFs the snapshot covers, in a fixed order."""
    return sorted(DATA.glob("*.pdf")) + sorted((DATA / "signatures").glob("*.pdf"))


def _region(r: Region) -> dict[str, Any]:
    box = [round(v, 1) for v in r.bbox.as_list()] if r.bbox is not None else None
    return {
        "label": r.label.value,
        "native": r.native_label,
        "box": box,
        "text": r.text,
        "source": r.source,
        "confidence": r.confidence,
        "score": r.score,
    }


def _read(engine: CpuEngine, page: Any, layer: Any) -> dict[str, Any]:
    out = next(iter(engine.run([PageRequest(key="p", image=page.image, text_layer=layer)])))
    if out.error:
        return {"error": out.error}
    regions = out.regions or []
    return {
        "markdown": assemble_page(regions, include_furniture=True),
        "regions": [_region(r) for r in regions],
    }


def snapshot(path: Path, engine: CpuEngine | None = None) -> dict[str, Any]:
    """Every page of ``path`` read as the module docstring says."""
    base = engine or get_cpu_engine()
    auto, never = base.configured(text_layer="auto"), base.configured(text_layer="never")
    doc = open_document(path.name, path.read_bytes())
    pages: list[dict[str, Any]] = []
    try:
        for index in range(1, doc.page_count + 1):
            page = doc.page(index, dpi=DPI)
            entry: dict[str, Any] = {"page": index, "size": list(page.image.size)}
            entry["auto"] = _read(auto, page, page.text_layer)
            if page.text_layer is not None and page.text_layer.words:
                entry["never"] = _read(never, page, None)
            pages.append(entry)
    finally:
        doc.close()
    return {"file": str(path.relative_to(DATA)), "dpi": DPI, "pages": pages}


def dump(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def golden_path(path: Path) -> Path:
    return GOLDEN / (str(path.relative_to(DATA)).replace("/", "__") + ".json")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="regenerate the snapshot")
    parser.add_argument("only", nargs="*", help="file names to restrict to")
    args = parser.parse_args()
    GOLDEN.mkdir(parents=True, exist_ok=True)
    differ = 0
    for path in sources():
        if args.only and path.name not in args.only:
            continue
        text = dump(snapshot(path))
        target = golden_path(path)
        if args.write:
            target.write_text(text, encoding="utf-8")
            print("wrote", target.relative_to(ROOT))
        elif not target.exists() or target.read_text(encoding="utf-8") != text:
            differ += 1
            print("DIFFERS", path.name)
            old = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
            import difflib

            for ln in list(difflib.unified_diff(old, text.splitlines(), lineterm="", n=1))[:40]:
                print("   ", ln)
        else:
            print("same", path.name)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
