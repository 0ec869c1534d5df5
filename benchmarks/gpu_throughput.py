"""vLLM's own pages/s against the workbench's, side by side in one run, on the same page requests.

Issue 21: on the H200 vLLM did 5.5 pages/s and the workbench's CLI 0.13 (one document at a
time). This measures, for (a) one long PDF and (b) a folder of one- and two-page PDFs, both
built from tests/data's pages (benchmarks/pdf_sets.py, no network):

* ``server-raw``: a minimal async client (httpx) sending exactly the workbench's request bodies
  (the pages prepared by the workbench's own renderer, :mod:`workbench.engines.messages`'
  messages, the same PNG data URL, ``max_tokens``, streaming fields as the engine sends them
  to this server) at ``--concurrency`` in flight to a running ``vllm serve`` (``--base-url``);
  pages are rendered before the clock starts: this is the server's own rate;
* ``server-cli``: ``python -m workbench ocr INPUT --engine vllm-server --concurrency N
  --max-tokens M`` end to end (render, encode, send, parse, write);
* ``server-chandra``: Chandra's own client (:mod:`benchmarks.chandra_client`): the same pages,
  Chandra's request body, files one after another, each file's pages in batches of
  ``--chandra-batch`` (28) and the next batch only once the whole batch is answered;
* ``server-cli-b``: the same CLI against ``--candidate-url``, a second server of the plan with
  one setting changed (a plan's before and after, both beside the baseline in one run);
* ``local``: :mod:`benchmarks.gpu_inprocess` in a child process (one model load; the GPU is
  given back when it exits): vLLM's own ``LLM.chat`` and the CLI's in-process path on ONE
  engine with the plan's arguments, alternating, medians.

The server modes alternate too: for each of ``--rounds`` rounds, each mode in the order given
(``server-raw, server-chandra, server-cli, server-raw, ...``), and the median of each is
reported, so the first run's warm-up does not decide the ratio. The CLI runs with its default
settings (no ``--concurrency`` unless ``--cli-concurrency`` is given: it keeps as many pages in
flight as the server's KV cache holds); the raw client keeps ``--concurrency`` in flight. The
CLI's pages/s is reported twice: over its whole wall time, and from its ``engine ... ready``
line to its exit (what the client numbers are compared with: neither counts the server's
start-up). Prints a Markdown table with the ratios (CLI / raw client, CLI / Chandra's client)
and writes JSON. The server modes need a running ``vllm serve`` and the local mode a free GPU:
run them in two invocations when the server holds the GPU. vllm and torch are imported only by
the local mode's child.

    python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8000/v1 \\
        --model lightonai/LightOnOCR-2-1B --modes server-raw server-cli \\
        [--modes server-chandra server-cli --chandra-batch 28] \\
        [--sets a b] [--long-pages 256] [--docs 128] [--sizes 1 2] [--max-tokens 128] \\
        [--concurrency 64] [--rounds 2] [--engine-arg load_format=dummy ...] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import chandra_client, vllm_breakdown  # noqa: E402
from benchmarks.gpu_throughput_report import BASELINES, SETS, table  # noqa: E402
from benchmarks.pdf_sets import folder, long_pdf  # noqa: E402

MODES = ("server-raw", "server-chandra", "server-cli", "server-cli-b", "local")


@dataclass(frozen=True)
class Prepared:
    """One page as the workbench sends it: its key, PNG bytes and request."""

    key: str
    png: bytes
    request: Any  # workbench.engines.base.PageRequest


def inputs(args: argparse.Namespace, work: Path, name: str, round_no: int = 0) -> list[Path]:
    """The set's files for one round (built once into ``work``). Every page is labelled with
    its set, round and number (pdf_sets' ``stamp``): no page repeats within a run or across
    rounds, so a server's prefix and multimodal caches (on in Chandra's recipe) cannot answer
    a page it saw before."""
    stamp = f"{name}{round_no + 1}"
    if name == "a":
        path = work / f"long-{args.long_pages}-{stamp}.pdf"
        return [path if path.exists() else long_pdf(path, args.long_pages, stamp)]
    target = work / f"folder-{args.docs}-{'-'.join(map(str, args.sizes))}-{stamp}"
    if not target.exists():
        folder(target, args.docs, args.sizes, stamp)
    return sorted(target.glob("*.pdf"))


def spec_for(args: argparse.Namespace) -> Any:
    from workbench.models.registry import get_spec

    return get_spec(args.spec or args.model).with_max_tokens(args.max_tokens)


def prepare(args: argparse.Namespace, files: list[Path]) -> list[Prepared]:
    """Every page of ``files`` rendered and encoded by the workbench's own preparation."""
    from workbench.documents import open_document
    from workbench.pipeline.feed import prepare_plans
    from workbench.pipeline.process import build_request, page_key
    from workbench.settings import Settings

    spec = spec_for(args)
    docs = [open_document(f.name, f.read_bytes(), Settings()) for f in files]
    items = [(d, d.name, list(range(1, d.page_count + 1))) for d in docs]
    out = []
    for page in prepare_plans(items, spec):
        assert page.png is not None
        key = page_key(page)
        out.append(Prepared(key, page.png, build_request(spec, key, page.image, png=page.png)))
    for doc in docs:
        doc.close()
    return out


# ---------------------------------------------------------------------- server, raw
def served_model(base_url: str, given: str | None) -> str:
    import httpx

    models = [m["id"] for m in httpx.get(f"{base_url}/models", timeout=30).json()["data"]]
    return given if given is not None and given in models else str(models[0])


def server_bodies(args: argparse.Namespace, pages: list[Prepared]) -> list[bytes]:
    """The exact bytes the server engine posts for each page (first attempt)."""
    import httpx

    from workbench.engines.messages import chat_body, streamed
    from workbench.engines.png import IMAGE_SLOT, json_with_image
    from workbench.engines.server.info import ServerFacts

    facts = ServerFacts()
    with httpx.Client() as client:
        facts.learn_version(client, args.base_url)
    model = served_model(args.base_url, args.model)
    bodies = []
    for page in pages:
        body = facts.fit(
            streamed(chat_body(model, page.request, page.request.sampling, IMAGE_SLOT))
        )
        bodies.append(json_with_image(body, page.png))
    return bodies


async def _send_all(url: str, bodies: list[bytes], concurrency: int) -> tuple[float, int]:
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    gate = asyncio.Semaphore(concurrency)
    failed = 0

    async def one(client: httpx.AsyncClient, body: bytes) -> None:
        nonlocal failed
        async with gate:
            headers = {"Content-Type": "application/json"}
            async with client.stream("POST", url, content=body, headers=headers) as response:
                async for _ in response.aiter_raw():
                    pass
                failed += response.status_code != 200

    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(3600.0)) as client:
        warm = bodies[: min(len(bodies), 4)]  # the server's first requests pay lazy start-up
        await asyncio.gather(*(one(client, b) for b in warm))
        failed = 0
        started = time.perf_counter()
        await asyncio.gather(*(one(client, b) for b in bodies))
        return time.perf_counter() - started, failed


def server_raw(args: argparse.Namespace, pages: list[Prepared]) -> dict[str, Any]:
    bodies = server_bodies(args, pages)
    url = f"{args.base_url}/chat/completions"
    seconds, failed = asyncio.run(_send_all(url, bodies, args.concurrency))
    return {"pages": len(pages), "seconds": seconds, "failed": failed}


def server_chandra(args: argparse.Namespace, docs: list[list[Prepared]]) -> dict[str, Any]:
    """Chandra's CLI's way (module doc) over ``docs``, each one file's pages."""
    model = served_model(args.base_url, args.model)
    pngs = [[page.png for page in doc] for doc in docs]
    prompt = spec_for(args).prompt
    return chandra_client.run(
        args.base_url, model, prompt, pngs, args.max_tokens, batch=args.chandra_batch
    )


# ---------------------------------------------------------------------- in process
def local(args: argparse.Namespace) -> dict[str, Any]:
    """:mod:`benchmarks.gpu_inprocess`'s rates in a child process: its report's ``rates``."""
    result = args.work / "inprocess.json"
    command = [sys.executable, str(ROOT / "benchmarks" / "gpu_inprocess.py"), "--stages", "rates",
               "--json", str(result), "--rounds", str(args.rounds), *_forwarded(args)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=_env(), timeout=args.timeout)
    if done.returncode != 0 or not result.exists():
        return {name: {"error": f"local child exited {done.returncode}"} for name in args.sets}
    rates: dict[str, Any] = json.loads(result.read_text()).get("rates", {})
    return rates


# ---------------------------------------------------------------------- the CLI
def run_cli(args: argparse.Namespace, files: list[Path], engine: str) -> dict[str, Any]:
    """``python -m workbench ocr --engine vllm-server`` on ``files`` (a folder's files given as
    the folder), with its default settings."""
    target = [str(files[0])] if len(files) == 1 else [str(files[0].parent)]
    out = Path(tempfile.mkdtemp(prefix="gpu-throughput-", dir=args.work))
    command = [sys.executable, "-m", "workbench", "ocr", *target, "--out", str(out / "run"),
               "--engine", engine, "--max-tokens", str(args.max_tokens)]  # fmt: skip
    command += ["--base-url", args.base_url]
    if args.cli_concurrency:
        command += ["--concurrency", str(args.cli_concurrency)]
    if args.model:
        command += ["--model", served_model(args.base_url, args.model)]
    if args.spec:
        command += ["--spec", args.spec]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=_env(), stderr=subprocess.PIPE, text=True)
    ready: list[float] = []
    tail: list[str] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("engine ") and " ready in " in line and not ready:
                ready.append(time.perf_counter())
            tail[:] = [*tail[-20:], line]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    code = process.wait(timeout=args.timeout)
    ended = time.perf_counter()
    reader.join(timeout=10)
    manifest = json.loads((out / "run" / "manifest.json").read_text())
    statuses = [p["status"] for p in manifest.get("pages", [])]
    row = {"pages": len(statuses), "seconds": ended - started, "exit": code,
           "after_ready_s": ended - (ready[0] if ready else started),
           "statuses": {s: statuses.count(s) for s in sorted(set(statuses))}}  # fmt: skip
    if code not in (0, 3):  # 3: pages cut off by max_tokens, as random weights are
        row["error"] = "".join(tail)[-2000:]
    return row


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }


def _forwarded(args: argparse.Namespace) -> list[str]:
    out = ["--model", args.model, "--max-tokens", str(args.max_tokens), "--work", str(args.work)]
    out += ["--sets", *args.sets, "--long-pages", str(args.long_pages), "--docs", str(args.docs)]
    out += ["--sizes", *map(str, args.sizes)]
    if args.spec:
        out += ["--spec", args.spec]
    if args.profile:
        out += ["--profile", args.profile]
    for pair in args.engine_arg:
        out += ["--engine-arg", pair]
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a running vllm serve, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument(
        "--baseline-url",
        help="the baseline clients' server (a vendor's recipe), when not --base-url",
    )  # fmt: skip
    parser.add_argument("--candidate-url", help="server-cli-b's server (the plan, one change)")
    parser.add_argument("--model", help="served model / model id (local mode: required)")
    parser.add_argument("--spec", help="model spec id when the model name does not match one")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=["server-raw", "server-cli"])
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["a", "b"])
    parser.add_argument("--long-pages", type=int, default=256, help="pages of set (a)")
    parser.add_argument("--docs", type=int, default=128, help="PDFs in set (b)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2], help="pages per PDF (b)")
    parser.add_argument("--max-tokens", type=int, default=128, help="every answer, all modes")
    parser.add_argument("--concurrency", type=int, default=64, help="the raw client's in flight")
    parser.add_argument("--cli-concurrency", type=int, help="the CLI's (default: its own)")
    parser.add_argument(
        "--chandra-batch", type=int, default=chandra_client.BATCH,
        help="server-chandra: pages a batch, each batch waits for all its pages (Chandra: 28)",
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=2, help="raw/workbench pairs, alternated")
    parser.add_argument(
        "--engine-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="vllm.LLM keyword for the local mode, e.g. load_format=dummy",
    )
    parser.add_argument("--profile", help="GPU tuning profile (local mode)")
    parser.add_argument("--work", type=Path, help="where inputs and runs go (default: a temp dir)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per CLI/child run")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)
    from workbench.engines.server.engine import normalize_base_url

    for key in ("base_url", "baseline_url", "candidate_url"):
        if getattr(args, key):
            setattr(args, key, normalize_base_url(getattr(args, key)))
    if any(m.startswith("server") for m in args.modes) and not args.base_url:
        parser.error("the server modes need --base-url")
    if "server-cli-b" in args.modes and not args.candidate_url:
        parser.error("server-cli-b needs --candidate-url")
    if "local" in args.modes and not args.model:
        parser.error("the local mode needs --model")
    return args


def on_server(args: argparse.Namespace, mode: str) -> argparse.Namespace:
    """``args`` for one server mode: a baseline client (raw, Chandra's) goes to
    ``--baseline-url`` when given (a vendor's recipe served beside the workbench's plan on the
    same GPU, so the two alternate run by run), the CLI to ``--base-url``, server-cli-b to
    ``--candidate-url``."""
    url = args.baseline_url if mode in BASELINES and args.baseline_url else args.base_url
    url = args.candidate_url if mode == "server-cli-b" else url
    return argparse.Namespace(**{**vars(args), "base_url": url})


def _save(args: argparse.Namespace, results: dict[str, Any]) -> dict[str, Any]:
    report = {"max_tokens": args.max_tokens, "concurrency": args.concurrency,
              "cli_concurrency": args.cli_concurrency, "rounds": args.rounds,
              "model": args.model, "results": results}  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return report


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    holder = None
    if args.work is None:
        holder = tempfile.TemporaryDirectory(prefix="gpu-throughput-")
        args.work = Path(holder.name)
    args.work.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, Any]] = {}
    if "local" in args.modes:
        print("local (all sets, one model load) ...", file=sys.stderr, flush=True)
        for name, row in local(args).items():
            results.setdefault(name, {})["local"] = row
        _save(args, results)
    server_modes = [m for m in args.modes if m.startswith("server")]
    for name in args.sets:
        modes = results.setdefault(name, {})
        for round_no in range(args.rounds if server_modes else 0):
            files = inputs(args, args.work, name, round_no)  # pages new to both servers
            pages = prepare(args, files) if "server-raw" in server_modes else []
            docs = [prepare(args, [f]) for f in files] if "server-chandra" in server_modes else []
            for mode in server_modes:  # alternated: raw, cli, raw, cli, ...
                print(f"{name}: {mode} round {round_no + 1} ...", file=sys.stderr, flush=True)
                run = on_server(args, mode)
                before = vllm_breakdown.read(run.base_url)
                try:
                    if mode == "server-raw":
                        row = server_raw(run, pages)
                    elif mode == "server-chandra":
                        row = server_chandra(run, docs)
                    else:
                        row = run_cli(run, files, "vllm-server")
                except Exception as exc:  # a server that died (a recipe's OOM): keep going
                    row = {"pages": len(pages) or None, "error": f"{type(exc).__name__}: {exc}"}
                    print(f"  {mode} failed: {row['error']}", file=sys.stderr, flush=True)
                after = vllm_breakdown.read(run.base_url)
                row["vllm"] = vllm_breakdown.between(before, after, row.get("seconds", 0.0))
                modes.setdefault(mode, []).append(row)
                _save(args, results)  # after each run: a run cut off leaves what it measured
    report = _save(args, results)
    print(f"\nmax_tokens {args.max_tokens}, raw client in flight {args.concurrency}, "
          f"Chandra's client batches of {args.chandra_batch}, "
          f"CLI in flight {args.cli_concurrency or 'its default'}, model {args.model}, "
          f"{args.rounds} round(s), medians\n")  # fmt: skip
    print(table(results))
    for name, modes in results.items():  # what the medians left out, and why
        for mode, rows in modes.items():
            for k, row in enumerate(rows if isinstance(rows, list) else []):
                if row.get("error") or row.get("failed"):
                    why = row.get("error") or f"{row['failed']} page(s) failed"
                    print(f"not in the medians: {name} {mode} round {k + 1}: {why}")
    if holder is not None:
        holder.cleanup()
    return report


if __name__ == "__main__":
    main()
