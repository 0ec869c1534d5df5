"""A folder of one-page PDFs against one PDF of as many pages, through the CLI end to end.

Issue 21: documents went through the engine one after another, so a folder of one-page PDFs
kept one request in flight whatever ``--concurrency`` said (0.13 pages/s against vLLM's 5.5 on
the H200). This runs ``python -m workbench ocr`` (a fresh process: start-up, render, encode,
send, parse, write) against the fake OpenAI server (tests/fakes/openai_server.py, its own
process, ``--delay`` seconds a request, as a model that takes that long) on (a) one N-page
PDF and (b) a folder of N one-page PDFs of the same pages (benchmarks/pdf_sets.py), in turn,
``--repeats`` times, and prints the wall times, the most requests the server had in flight
and the ratio folder / one PDF. The floor is the server's own: ceil(N / concurrency) x delay.

    python -m benchmarks.docs_in_flight [--pages 48] [--delay 0.5] [--concurrency 8 32]
        [--repeats 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from benchmarks.pdf_sets import folder, long_pdf  # noqa: E402
from benchmarks.throughput_procs import fake_server  # noqa: E402

MODEL = "lightonai/LightOnOCR-2-1B"  # served by the fake under this name: the CLI matches it


def run_cli(inputs: list[Path], out: Path, base_url: str, concurrency: int) -> float:
    """Seconds for one ``ocr`` command, start to exit (it must exit 0)."""
    command = [sys.executable, "-m", "workbench", "ocr", *map(str, inputs), "--out", str(out),
               "--engine", "vllm-server", "--base-url", base_url,
               "--concurrency", str(concurrency), "--quiet"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"ocr exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def one_case(inputs: list[Path], work: Path, delay: float, concurrency: int) -> dict[str, float]:
    with fake_server(delay, None, "--model", MODEL) as base_url:
        with tempfile.TemporaryDirectory(dir=work) as out:
            seconds = run_cli(inputs, Path(out) / "run", base_url, concurrency)
        root = base_url.removesuffix("/v1")
        stats = httpx.get(f"{root}/fake/stats", timeout=5).json()
    return {"seconds": seconds, "max_in_flight": stats["max_in_flight"],
            "requests": stats["completions"]}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=48)
    parser.add_argument("--delay", type=float, default=0.5, help="fake server seconds a request")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="docs-in-flight-") as tmp:
        work = Path(tmp)
        one = [long_pdf(work / f"one-{args.pages}.pdf", args.pages)]
        many = folder(work / "folder", args.pages)
        for concurrency in args.concurrency:
            runs: dict[str, list[dict[str, float]]] = {"one PDF": [], "folder": []}
            for _ in range(args.repeats):  # in turn, so a busy machine weighs on both alike
                runs["one PDF"].append(one_case(one, work, args.delay, concurrency))
                runs["folder"].append(one_case([work / "folder"], work, args.delay, concurrency))
            floor = math.ceil(args.pages / concurrency) * args.delay
            best = {k: min(r["seconds"] for r in v) for k, v in runs.items()}
            rows.append({"concurrency": concurrency, "pages": args.pages, "delay": args.delay,
                         "server_floor_s": floor, "runs": runs,
                         "ratio_folder_to_one": best["folder"] / best["one PDF"]})  # fmt: skip
    print(f"\n{args.pages} pages, fake server {args.delay:g} s a request, CLI end to end "
          f"(best of {args.repeats}; {len(many)} PDFs in the folder)\n")  # fmt: skip
    print("| concurrency | server floor s | one PDF s | folder s | folder / one | "
          "most in flight (one, folder) |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for row in rows:
        one_s = min(r["seconds"] for r in row["runs"]["one PDF"])
        folder_s = min(r["seconds"] for r in row["runs"]["folder"])
        flight = (max(r["max_in_flight"] for r in row["runs"]["one PDF"]),
                  max(r["max_in_flight"] for r in row["runs"]["folder"]))  # fmt: skip
        print(
            f"| {row['concurrency']} | {row['server_floor_s']:.1f} | {one_s:.2f} | "
            f"{folder_s:.2f} | {row['ratio_folder_to_one']:.2f} | {flight[0]}, {flight[1]} |"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
