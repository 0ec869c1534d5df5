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
* ``local-raw``: ``vllm.LLM.chat`` on the same prepared pages, one call a set, in a child
  process (one model load for all sets; the GPU is given back when it exits), with the engine
  arguments the CLI would use (the planner's for this GPU, then ``--engine-arg``); timed from
  after the model is loaded (the load is reported as ``load_s``);
* ``local-cli``: ``python -m workbench ocr INPUT --engine vllm --model ID --max-tokens M``.

The CLI's pages/s is reported twice: over its whole wall time, and from its ``engine ... ready``
line to its exit (what the raw numbers are compared with: neither counts the model load or the
server's start-up). Prints a Markdown table with the ratios (CLI / raw) and writes JSON.
The server modes need a running ``vllm serve`` and the local modes a free GPU: run them in two
invocations when the server holds the GPU. Everything heavy (vllm, torch) is imported only by
the local modes, in their own processes.

    python3 benchmarks/gpu_throughput.py --base-url http://127.0.0.1:8000/v1 \\
        --model lightonai/LightOnOCR-2-1B --modes server-raw server-cli \\
        [--sets a b] [--long-pages 256] [--docs 128] [--sizes 1 2] [--max-tokens 128] \\
        [--concurrency 64] [--engine-arg load_format=dummy ...] [--json out.json]
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

from benchmarks.pdf_sets import folder, long_pdf  # noqa: E402

MODES = ("server-raw", "server-cli", "local-raw", "local-cli")
SETS = {"a": "one long PDF", "b": "folder of short PDFs"}


@dataclass(frozen=True)
class Prepared:
    """One page as the workbench sends it: its key, PNG bytes and request."""

    key: str
    png: bytes
    request: Any  # workbench.engines.base.PageRequest


def inputs(args: argparse.Namespace, work: Path, name: str) -> list[Path]:
    """The set's files (built once into ``work``)."""
    if name == "a":
        path = work / f"long-{args.long_pages}.pdf"
        return [path if path.exists() else long_pdf(path, args.long_pages)]
    target = work / f"folder-{args.docs}-{'-'.join(map(str, args.sizes))}"
    if not target.exists():
        folder(target, args.docs, args.sizes)
    return sorted(target.glob("*.pdf"))


def spec_for(args: argparse.Namespace) -> Any:
    from workbench.models.registry import get_spec
    from workbench.pipeline.runner import with_max_tokens

    return with_max_tokens(get_spec(args.spec or args.model), args.max_tokens)


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
    return given if given in models else models[0]


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


# ---------------------------------------------------------------------- in process, raw
def local_raw(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """``vllm.LLM.chat`` over every set's prepared pages in one child process (one model load
    for all sets; the GPU is free again when it exits): a row per set."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        result = Path(handle.name)
    command = [sys.executable, str(Path(__file__).resolve()), "--local-child", str(result),
               *_forwarded(args)]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, env=_env(), timeout=args.timeout)
    if done.returncode != 0:
        return {name: {"error": f"local-raw child exited {done.returncode}"} for name in args.sets}
    data: dict[str, dict[str, Any]] = json.loads(result.read_text())
    result.unlink(missing_ok=True)
    return data


def _local_child(args: argparse.Namespace, result: Path) -> None:
    from workbench.cli.ocr.job import extra_engine_args, local_engine_args
    from workbench.engines.messages import build_messages, image_pil_part, sampling_params_kwargs
    from workbench.engines.vllm_local import import_vllm

    spec = spec_for(args)
    engine_args = {"max_model_len": -1, **local_engine_args(spec, args.profile)}
    engine_args.update(extra_engine_args(args.engine_arg))  # as the CLI: --engine-arg last
    vllm = import_vllm()
    started = time.perf_counter()
    llm = vllm.LLM(model=spec.id, **engine_args)
    rows: dict[str, dict[str, Any]] = {}
    load_s = time.perf_counter() - started
    params = vllm.SamplingParams(**sampling_params_kwargs(spec.sampling))
    template = dict(spec.chat_template_kwargs) or None
    for name in args.sets:
        pages = prepare(args, inputs(args, args.work, name))
        conversations = [build_messages(p.request, image_pil_part(p.request.image)) for p in pages]
        started = time.perf_counter()
        outputs = llm.chat(conversations, params, use_tqdm=False, chat_template_kwargs=template)
        seconds = time.perf_counter() - started
        tokens = sum(len(o.outputs[0].token_ids or ()) for o in outputs)
        rows[name] = {"pages": len(pages), "seconds": seconds, "tokens": tokens, "load_s": load_s}
    result.write_text(json.dumps(rows))


# ---------------------------------------------------------------------- the CLI
def run_cli(args: argparse.Namespace, files: list[Path], engine: str) -> dict[str, Any]:
    """``python -m workbench ocr`` on ``files`` (a folder's files given as the folder)."""
    target = [str(files[0])] if len(files) == 1 else [str(files[0].parent)]
    out = Path(tempfile.mkdtemp(prefix="gpu-throughput-", dir=args.work))
    command = [sys.executable, "-m", "workbench", "ocr", *target, "--out", str(out / "run"),
               "--engine", engine, "--max-tokens", str(args.max_tokens)]  # fmt: skip
    if engine == "vllm-server":
        command += ["--base-url", args.base_url, "--concurrency", str(args.concurrency)]
        if args.model:
            command += ["--model", served_model(args.base_url, args.model)]
    else:
        command += ["--model", args.model]
        for pair in args.engine_arg:
            command += ["--engine-arg", pair]
        if args.profile:
            command += ["--profile", args.profile]
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


# ---------------------------------------------------------------------- report
def rate(row: dict[str, Any], key: str = "seconds") -> float:
    return float(row.get("pages", 0)) / row[key] if row.get(key) else 0.0


def table(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    lines = ["| set | engine | pages | vLLM raw pages/s | CLI pages/s (after ready) | "
             "CLI pages/s (wall) | ratio after ready | ratio wall |",
             "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, modes in results.items():
        for kind in ("server", "local"):
            raw, cli = modes.get(f"{kind}-raw"), modes.get(f"{kind}-cli")
            if raw is None and cli is None:
                continue
            r = rate(raw) if raw else 0.0
            c_ready = rate(cli, "after_ready_s") if cli else 0.0
            c_wall = rate(cli) if cli else 0.0
            pages = (raw or cli or {}).get("pages", 0)
            ratio = f"{c_ready / r:.3f}" if r and cli else "—"
            ratio_wall = f"{c_wall / r:.3f}" if r and cli else "—"
            lines.append(f"| {name} ({SETS[name]}) | {kind} | {pages} | {r:.2f} | {c_ready:.2f} | "
                         f"{c_wall:.2f} | {ratio} | {ratio_wall} |")  # fmt: skip
    return "\n".join(lines)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", help="a running vllm serve, e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", help="served model / model id (local modes: required)")
    parser.add_argument("--spec", help="model spec id when the model name does not match one")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=["server-raw", "server-cli"])
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["a", "b"])
    parser.add_argument("--long-pages", type=int, default=256, help="pages of set (a)")
    parser.add_argument("--docs", type=int, default=128, help="PDFs in set (b)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2], help="pages per PDF (b)")
    parser.add_argument("--max-tokens", type=int, default=128, help="every answer, all modes")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight (server)")
    parser.add_argument(
        "--engine-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="vllm.LLM keyword for the local modes, e.g. load_format=dummy",
    )
    parser.add_argument("--profile", help="GPU tuning profile (local modes)")
    parser.add_argument("--work", type=Path, help="where inputs and runs go (default: a temp dir)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per CLI/child run")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--local-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.base_url:
        from workbench.engines.server.engine import normalize_base_url

        args.base_url = normalize_base_url(args.base_url)
    if args.local_child is not None:
        return args
    if any(m.startswith("server") for m in args.modes) and not args.base_url:
        parser.error("the server modes need --base-url")
    if any(m.startswith("local") for m in args.modes) and not args.model:
        parser.error("the local modes need --model")
    return args


def _save(args: argparse.Namespace, results: dict[str, Any]) -> dict[str, Any]:
    report = {"max_tokens": args.max_tokens, "concurrency": args.concurrency,
              "model": args.model, "results": results}  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return report


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    if args.local_child is not None:
        _local_child(args, args.local_child)
        return {}
    holder = None
    if args.work is None:
        holder = tempfile.TemporaryDirectory(prefix="gpu-throughput-")
        args.work = Path(holder.name)
    args.work.mkdir(parents=True, exist_ok=True)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    files = {name: inputs(args, args.work, name) for name in args.sets}
    if "local-raw" in args.modes:  # first: its torch.compile cache serves the CLI's load too
        print("local-raw (all sets, one model load) ...", file=sys.stderr, flush=True)
        for name, row in local_raw(args).items():
            results.setdefault(name, {})["local-raw"] = row
    for name in args.sets:
        pages = prepare(args, files[name]) if "server-raw" in args.modes else []
        modes = results.setdefault(name, {})
        for mode in args.modes:
            if mode == "local-raw":
                continue
            print(f"{name}: {mode} ...", file=sys.stderr, flush=True)
            if mode == "server-raw":
                modes[mode] = server_raw(args, pages)
            else:
                kind = "vllm-server" if "server" in mode else "vllm"
                modes[mode] = run_cli(args, files[name], kind)
            _save(args, results)  # after each mode: a run cut off still leaves what it measured
    report = _save(args, results)
    print(f"\nmax_tokens {args.max_tokens}, concurrency {args.concurrency}, model {args.model}\n")
    print(table(results))
    if holder is not None:
        holder.cleanup()
    return report


if __name__ == "__main__":
    main()
