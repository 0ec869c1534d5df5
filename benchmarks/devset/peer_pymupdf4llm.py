"""Run pymupdf4llm on PDFs and write {path: {markdown, seconds, error}} as JSON (peer runner).

    benchmarks/.venv-peers/bin/python benchmarks/devset/peer_pymupdf4llm.py OUT.json PDF...

Runs only inside the benchmark-only virtual environment made by ``peers.sh``: pymupdf4llm is
AGPL and is never imported by the workbench or its tests. Each PDF is given whole, as a user
would give it (an image-only page included: pymupdf4llm decides itself whether to OCR it,
with the Tesseract data named by TESSDATA_PREFIX). One warm-up call before the timed ones.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time

with contextlib.suppress(ImportError):  # the layout model, when installed, is used on import
    import pymupdf.layout  # noqa: F401
import pymupdf4llm


def main() -> int:
    out, pdfs = sys.argv[1], sys.argv[2:]
    results: dict[str, dict] = {}
    if pdfs:
        with contextlib.suppress(Exception):  # warm-up; the timed call reports a failure
            pymupdf4llm.to_markdown(pdfs[0])
    for path in pdfs:
        t0 = time.perf_counter()
        try:
            md, err = pymupdf4llm.to_markdown(path), None
        except Exception as exc:  # a peer's failure is a result, not a crash
            md, err = "", f"{type(exc).__name__}: {exc}"
        results[path] = {"markdown": md, "seconds": time.perf_counter() - t0, "error": err}
        print(f"{path} {results[path]['seconds']:.2f}s", file=sys.stderr, flush=True)
    with open(out, "w") as fh:
        json.dump(results, fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
