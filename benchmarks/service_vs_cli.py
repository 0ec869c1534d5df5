"""The OCR service serving a folder of PDFs against the CLI on the same folder and engine,
in turns, medians and their ratio (issue 36: the API at >= 0.95x the CLI's pages/s).

    python benchmarks/service_vs_cli.py [--rounds 3] [--engine cpu | --engine vllm-server
        --base-url URL] [PDF ...]

One ``python -m workbench serve`` is started once (its engine loads once, as a service's
does) with the folder under ``--folder-root``; each round then, in turns:

* **service**: ``POST /v1/runs/folder`` and its Server-Sent Events read to ``end``; timed from
  the request to the last event (the whole path: checks, rendering, engine, run writer).
* **CLI**: ``python -m workbench ocr FOLDER --out DIR`` (a new run folder each round), timed
  from its "engine ... ready" line to its exit (the same work, without the engine's start-up
  that a service pays once); its whole process time is printed too.

Both write the same run folder layout through the same run writer. Prints each round, the
medians and ``service / CLI`` in pages/s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.service.conftest import start_service, stop_service  # noqa: E402
from workbench.cli.ocr.job import EXIT_OK, EXIT_UNCLEAN  # noqa: E402

DEFAULT = (  # 5 PDFs, 6 pages: the set benchmarks/batch_page.py times the Batch page on
    "financial_statement.pdf", "group_header_table.pdf", "two_column_article.pdf",
    "furniture_pages.pdf", "born_digital_formulas.pdf",
)  # fmt: skip


def engine_flags(args: argparse.Namespace) -> list[str]:
    flags = ["--engine", args.engine]
    if args.base_url:
        flags += ["--base-url", args.base_url]
    if args.model:
        flags += ["--model", args.model]
    if args.max_tokens:  # random weights answer until the bound: the same bound on both sides
        flags += ["--max-tokens", str(args.max_tokens)]
    return flags


def service_round(url: str, folder: Path) -> tuple[float, int]:
    """Seconds from the request to the run's ``end`` event, and its pages."""
    started = time.perf_counter()
    with httpx.Client(base_url=url, timeout=3600) as client:
        answer = client.post("/v1/runs/folder", json={"path": str(folder)})
        answer.raise_for_status()
        run_id = answer.json()["id"]
        last: dict = {}
        with client.stream("GET", f"/v1/runs/{run_id}/events") as events:
            for line in events.iter_lines():
                if line.startswith("data:"):
                    last = json.loads(line[5:])
    took = time.perf_counter() - started
    if last.get("status") != "done":
        raise SystemExit(f"service run ended {last.get('status')}: {last}")
    return took, int(last["pages_done"])


def cli_round(folder: Path, out: Path, flags: list[str]) -> tuple[float, float, int]:
    """Seconds from the CLI's "engine ready" line to its exit, its whole process, its pages."""
    command = [sys.executable, "-m", "workbench", "ocr", str(folder), "--out", str(out)]
    # the project first, what the caller had after it (the GPU lab's site: vLLM, pydantic)
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    started = time.perf_counter()
    process = subprocess.Popen(
        [*command, *flags], cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True
    )
    ready: list[float] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("engine ") and " ready in " in line and not ready:
                ready.append(time.perf_counter())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code = process.wait(timeout=3600)
    ended = time.perf_counter()
    reader.join(timeout=10)
    # 3: every page read, some cut off at max_tokens (random weights run every page to it)
    if code not in (EXIT_OK, EXIT_UNCLEAN) or not ready:
        raise SystemExit(f"the CLI exited {code} (ready line seen: {bool(ready)})")
    pages = len(json.loads((out / "manifest.json").read_text())["pages"])
    return ended - ready[0], ended - started, pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pdfs", nargs="*", default=list(DEFAULT))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", default="cpu", choices=["cpu", "vllm-server"])
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--max-tokens", type=int)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="service-vs-cli-"))
    folder = work / "in"
    folder.mkdir()
    for name in args.pdfs:
        source = Path(name) if Path(name).is_file() else ROOT / "tests" / "data" / name
        shutil.copy(source, folder / source.name)
    flags = engine_flags(args)
    service = start_service(work / "store", "--folder-root", str(folder), *flags)
    rows: list[tuple[float, float, float]] = []  # service s, CLI s (from ready), CLI whole s
    try:
        for n in range(args.rounds):
            service_s, service_pages = service_round(service.url, folder)
            cli_s, whole_s, cli_pages = cli_round(folder, work / f"cli-{n}", flags)
            assert service_pages == cli_pages, (service_pages, cli_pages)
            rows.append((service_s, cli_s, whole_s))
            print(
                f"round {n + 1}: {service_pages} pages  service {service_s:.2f} s  "
                f"CLI {cli_s:.2f} s from engine ready ({whole_s:.2f} s whole process)",
                flush=True,
            )
    finally:
        stop_service(service)
        shutil.rmtree(work, ignore_errors=True)
    service_med, cli_med, whole_med = (statistics.median(c) for c in zip(*rows, strict=True))
    pages = service_pages
    print(
        f"medians: service {service_med:.2f} s ({pages / service_med:.2f} pages/s), CLI "
        f"{cli_med:.2f} s from ready ({pages / cli_med:.2f} pages/s), {whole_med:.2f} s whole"
    )
    print(
        f"service / CLI pages/s: {cli_med / service_med:.2f} (CLI from engine ready), "
        f"{whole_med / service_med:.2f} (CLI whole process)"
    )


if __name__ == "__main__":
    main()
