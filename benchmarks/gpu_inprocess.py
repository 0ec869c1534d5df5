"""The shared in-process vLLM engine against vLLM's own in-process rate, in one process (issue 29).

One engine (the workbench's :class:`~workbench.engines.vllm_local.VllmLocalEngine`, started
with the plan's arguments and the plan's pages in flight) is loaded once. Then:

* ``rates``: on each set (a: one long PDF, b: a folder of one- and two-page PDFs; built by
  :mod:`benchmarks.pdf_sets` from tests/data) two modes alternate round by round (raw,
  workbench, raw, workbench, …) and the median of each is reported:
  - ``raw``: ``LLM.chat`` of the engine's own ``vllm.LLM`` over the set's pages, prepared
    beforehand by the workbench (the same images, prompts and sampling): vLLM's own in-process
    rate with the same engine arguments;
  - ``workbench``: ``python -m workbench ocr SET --engine vllm`` run in this process on that
    engine (the CLI's own code: open, render and prepare in workers, the engine, parse, write
    every page into a run folder), timed end to end; ``--wb-unpaced`` adds the same with the
    engine loop's pacing off. Stages ``rates-a``/``rates-b`` run one set.
* ``callers``: two callers on the engine at once: one page alone (median of 3), then the same
  page while another caller runs 200 pages, at the plan's pages in flight and fewer, with and
  without the loop's pacing (:data:`VARIANTS`); then Cancel of the 200 and how long until
  vLLM itself holds none of them (``get_num_unfinished_requests``).
* ``kill``: set (a) through the CLI's code again; after 20 pages the EngineCore process is
  killed (SIGKILL); what the run reports; the engine is rebuilt and the same run resumed:
  every page exactly once in its manifest.
* GPU memory (``nvidia-smi``) before the engine, with it, and after ``close()``.

The JSON (``--json``) is written after every stage, so a run cut short keeps what it measured.

    python3 benchmarks/gpu_inprocess.py --model lightonai/LightOnOCR-2-1B --max-tokens 128 \\
        --stages rates callers kill --rounds 2 --json out.json [--engine-arg load_format=dummy]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.gpu_throughput import inputs, prepare, spec_for  # noqa: E402
from workbench.pipeline.request import RunRequest  # noqa: E402

_CLI_OPEN = RunRequest.open  # what the CLI opens its engine with

_PATCH_LOCK = threading.Lock()


def gpu_used_mib() -> float | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        return float(out.stdout.split()[0])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return None


def build(args: argparse.Namespace) -> Any:
    """The engine as the app and the CLI build it: the plan's arguments (``--engine-arg``
    over them), pages in flight and the model's samplings for its sampler warm-up."""
    from workbench.cli.ocr.job import extra_engine_args
    from workbench.engines.factory import LocalOptions, build_engine
    from workbench.gpu.launch import plan_local_launch, planned_options

    spec = spec_for(args)
    launch = plan_local_launch(spec, args.profile)
    asked = LocalOptions(spec.id, engine_args=extra_engine_args(args.engine_arg))
    return build_engine(planned_options(asked, launch))


def raw_round(engine: Any, pages: list[Any]) -> dict[str, Any]:
    from workbench.engines.messages import build_messages, image_pil_part, sampling_params_kwargs

    vllm_params = engine._sampling_params
    conversations = [build_messages(p.request, image_pil_part(p.request.image)) for p in pages]
    params = [vllm_params(**sampling_params_kwargs(p.request.sampling)) for p in pages]
    template = dict(pages[0].request.chat_template_kwargs) or None
    started = time.perf_counter()
    outputs = engine._llm.chat(conversations, params, use_tqdm=False, chat_template_kwargs=template)
    seconds = time.perf_counter() - started
    tokens = sum(len(o.outputs[0].token_ids or ()) for o in outputs)
    return {"pages": len(pages), "seconds": seconds, "tokens": tokens}


@contextlib.contextmanager
def _cli_engine(engine: Any, spec: Any) -> Iterator[None]:
    """The CLI's run request opens ``engine`` (and its ``close`` does nothing: the engine is
    shared) for the duration; the request's own method is put back whatever happens, also
    when two rounds overlap (a round cut short by the EngineCore's kill)."""
    with _PATCH_LOCK:
        RunRequest.open = lambda _self, **_: (engine, spec)  # type: ignore[method-assign]
        engine.close = lambda: None
    try:
        yield
    finally:
        with _PATCH_LOCK:
            RunRequest.open = _CLI_OPEN  # type: ignore[method-assign]
            engine.__dict__.pop("close", None)


def cli_round(
    args: argparse.Namespace, engine: Any, files: list[Path], out: Path
) -> dict[str, Any]:
    """The CLI's ``ocr`` on ``files`` in this process, with ``engine`` as the one it builds."""
    from workbench.cli import main

    target = str(files[0]) if len(files) == 1 else str(files[0].parent)
    argv = ["ocr", target, "--out", str(out), "--engine", "vllm", "--model", args.model,
            "--max-tokens", str(args.max_tokens), "--quiet"]  # fmt: skip
    held: list[int] = []  # what vLLM itself holds, every 0.2 s (the pacing's effect)
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            held.append(engine.unfinished())

    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    sampler.start()
    try:
        with _cli_engine(engine, spec_for(args)):
            code = main(argv)
    finally:
        done.set()
    seconds = time.perf_counter() - started
    manifest = json.loads((out / "manifest.json").read_text())
    statuses = [p["status"] for p in manifest.get("pages", [])]
    return {"pages": len(statuses), "seconds": seconds, "exit": code,
            "statuses": {s: statuses.count(s) for s in sorted(set(statuses))},
            "in_vllm_median": statistics.median(held) if held else None,
            "in_vllm_max": max(held, default=None)}  # fmt: skip


def stage_rates(args: argparse.Namespace, engine: Any, report: dict[str, Any]) -> None:
    """Raw and the workbench alternated round by round on each set; ``--wb-in-flight N``
    adds a workbench mode with the engine resized to N pages in flight."""
    plan_size, pace = engine.concurrency, engine._loop.pace_tokens
    sizes: dict[str, int | None] = {"workbench": plan_size}
    sizes |= {f"workbench@{n}": n for n in args.wb_in_flight}
    if args.wb_unpaced:
        sizes["workbench-unpaced"] = None  # the plan's pages in flight, all sent to vLLM at once
    for name in args.sets:
        files = inputs(args, args.work, name)
        pages = prepare(args, files)
        rows: dict[str, list[dict[str, Any]]] = {"raw": []} | {mode: [] for mode in sizes}
        # Untimed warm-up, so the first timed round (raw's) does not pay for a fresh engine's
        # first shapes (a rebuilt engine's first raw round took 87.8 s against 51.1 s).
        raw_round(engine, pages[:16])
        for round_no in range(args.rounds):
            print(f"rates {name}: round {round_no + 1} raw", flush=True)
            rows["raw"].append(raw_round(engine, pages))
            for mode, size in sizes.items():
                print(f"rates {name}: round {round_no + 1} {mode}", flush=True)
                engine.resize(size or plan_size)
                engine._loop.pace_tokens = None if size is None else pace
                out = Path(tempfile.mkdtemp(prefix=f"wb-{name}-", dir=args.work))
                rows[mode].append(cli_round(args, engine, files, out / "run"))
            engine.resize(plan_size)
            engine._loop.pace_tokens = pace
            report.setdefault("rates", {})[name] = summarize(rows)
            save(args, report)
        print(json.dumps(report["rates"][name]), flush=True)


def summarize(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {"rounds": rows}
    for mode, runs in rows.items():
        rates = [r["pages"] / r["seconds"] for r in runs if r.get("seconds")]
        out[f"{mode}_pages_s"] = statistics.median(rates) if rates else None
    for mode in rows:
        if mode != "raw" and out.get("raw_pages_s") and out.get(f"{mode}_pages_s"):
            key = "ratio" if mode == "workbench" else f"ratio_{mode}"
            out[key] = out[f"{mode}_pages_s"] / out["raw_pages_s"]
    return out


#: The ``callers`` stage's variants: pages in flight for the long caller (None: the plan's),
#: whether the engine loop paces pages into vLLM and whether a newcomer's page holds the other
#: caller's pages back while it is in vLLM (engines/loop.py, ``hold_s``).
VARIANTS: dict[str, tuple[int | None, bool, bool]] = {
    "plan+pace": (None, True, True), "plan+pace-nohold": (None, True, False),
    "plan": (None, False, True), "64+pace": (64, True, True),
    "32+pace": (32, True, True), "32": (32, False, True),
}  # fmt: skip


def stage_callers(args: argparse.Namespace, engine: Any, report: dict[str, Any]) -> None:
    """One page alone, then one page beside a 200-page caller in each variant (see VARIANTS):
    once right after the long caller filled its slots (its prefills queued in vLLM) and twice
    once it streams (10 of its pages done); then Cancel of the long caller."""
    import dataclasses

    pages = prepare(args, inputs(args, args.work, "a"))
    single = pages[-1].request
    plan_size, pace, hold = engine.concurrency, engine._loop.pace_tokens, engine._loop.hold_s

    def one(key: str) -> float:
        started = time.perf_counter()
        [out] = list(engine.run([dataclasses.replace(single, key=key)]))
        assert out.ok, out.error
        return time.perf_counter() - started

    alone = statistics.median(one(f"alone-{i}") for i in range(3))
    result: dict[str, Any] = {"alone_s": alone, "plan_in_flight": plan_size, "variants": {}}
    for name in args.caller_variants:
        size, paced, holds = VARIANTS[name]
        engine.resize(size or plan_size)
        engine._loop.pace_tokens = pace if paced else None
        engine._loop.hold_s = hold if holds else 0.0
        row = _beside(engine, name, [p.request for p in pages[:200]], one)
        row["median_ratio"] = statistics.median([row["ramp_s"], *row["steady_s"]]) / alone
        repeat = sum(key.split("#")[0] == name for key in result["variants"])
        result["variants"][f"{name}#{repeat + 1}" if repeat else name] = row  # named twice: rounds
        report["callers"] = result
        save(args, report)
        print(name, json.dumps(row), flush=True)
    engine.resize(plan_size)
    engine._loop.pace_tokens, engine._loop.hold_s = pace, hold


def _beside(engine: Any, name: str, requests: list[Any], one: Any) -> dict[str, Any]:
    """One variant of the ``callers`` stage: newcomers beside a long caller, then its Cancel."""
    import dataclasses

    long = [dataclasses.replace(r, key=f"{name}#{i}") for i, r in enumerate(requests)]
    done: list[Any] = []
    caller = threading.Thread(target=lambda: done.extend(engine.run(long)), daemon=True)
    caller.start()
    row: dict[str, Any] = {
        "in_flight": engine.concurrency,
        "pace": engine._loop.pace_tokens,
        "hold_s": engine._loop.hold_s,
    }
    full = min(len(long), engine.concurrency)
    paced = engine._loop.pace_tokens is not None  # unpaced: every page of A's in vLLM too
    row["filled_s"] = _wait(
        lambda: engine._gate.held >= full and (paced or engine.unfinished() >= full)
    )
    row["held_when_sent"] = engine._gate.held  # A's pages in the engine (loop's queue + vLLM)
    row["in_vllm_when_sent"] = engine.unfinished()  # of them, in vLLM (paced: a few steps' worth)
    row["ramp_s"] = one(f"{name}-ramp")
    _wait(lambda: len(done) >= 10, 120)
    row["a_done_at_steady"] = len(done)
    row["steady_s"] = [one(f"{name}-steady-{i}") for i in range(2)]
    # Cancel is timed on pages that are in vLLM.
    _wait(lambda: engine.unfinished() > 0, 10)
    row["in_vllm_before_cancel"] = engine.unfinished()
    started = time.perf_counter()
    engine.cancel([r.key for r in long])
    _wait(lambda: engine.unfinished() == 0, 30)
    row["cancel_to_none_in_vllm_s"] = time.perf_counter() - started
    caller.join(60)
    row["a_cancelled"] = sum(o.error == "cancelled by the user" for o in done)
    row["a_finished"] = len(done) - row["a_cancelled"]
    return row


def _wait(condition: Any, limit: float = 60.0) -> float:
    """Poll ``condition`` every 5 ms for up to ``limit`` seconds; the seconds it took."""
    started = time.perf_counter()
    while not condition() and time.perf_counter() - started < limit:
        time.sleep(0.005)
    return time.perf_counter() - started


def engine_core_pids() -> list[int]:
    """This process's children named as vLLM names its engine process (``VLLM::EngineCore``)."""
    me, found = os.getpid(), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            ppid = int(text.rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and ("EngineCore" in text or "EngineCore" in cmdline):
            found.append(int(stat.parent.name))
    return found


def stage_kill(args: argparse.Namespace, engine: Any, report: dict[str, Any]) -> Any:
    files = inputs(args, args.work, "a")
    out = Path(tempfile.mkdtemp(prefix="kill-", dir=args.work)) / "run"
    result: dict[str, Any] = {}
    runner = threading.Thread(
        target=lambda: result.update(cli_round(args, engine, files, out)), daemon=True
    )
    runner.start()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and len(list(out.glob("*/page-*.json"))) < 20:
        time.sleep(0.05)
    pids = engine_core_pids()
    killed_at = time.perf_counter()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    runner.join(300)
    if runner.is_alive():
        raise RuntimeError("the run did not end within 300 s of the EngineCore's kill")
    stopped_s = time.perf_counter() - killed_at
    first = {"pids_killed": pids, "stopped_s": stopped_s, "dead": str(engine.dead), **result}
    engine.close()
    rebuilt = build(args)
    second = cli_round(args, rebuilt, files, out)
    manifest = json.loads((out / "manifest.json").read_text())
    entries = [(p["document"], p["page"]) for p in manifest.get("pages", [])]
    report["kill"] = {
        "first": first, "resumed": second, "manifest_entries": len(entries),
        "distinct_pages": len(set(entries)),
        "page_files": len(list(out.glob("*/page-*.json"))),
    }  # fmt: skip
    save(args, report)
    print(json.dumps(report["kill"]), flush=True)
    return rebuilt


def save(args: argparse.Namespace, report: dict[str, Any]) -> None:
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--spec")
    parser.add_argument("--profile")
    parser.add_argument("--stages", nargs="+", default=["rates", "callers", "kill"],
                        choices=["rates", "rates-a", "rates-b", "callers", "kill"])  # fmt: skip
    parser.add_argument("--wb-unpaced", action="store_true",
                        help="a workbench mode with the engine loop's pacing off")  # fmt: skip
    parser.add_argument("--sets", nargs="+", choices=["a", "b"], default=["a", "b"])
    parser.add_argument("--caller-variants", nargs="+", choices=list(VARIANTS),
                        default=list(VARIANTS), help="named twice: runs twice")  # fmt: skip
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--wb-in-flight", type=int, nargs="*", default=[])
    parser.add_argument("--long-pages", type=int, default=256)
    parser.add_argument("--docs", type=int, default=128)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--engine-arg", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--json", type=Path)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse(argv)
    args.work = args.work or Path(tempfile.mkdtemp(prefix="gpu-inprocess-"))
    args.work.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"model": args.model, "max_tokens": args.max_tokens,
                              "memory_mib": {"before": gpu_used_mib()}}  # fmt: skip
    started = time.perf_counter()
    engine = build(args)
    report["load_s"] = time.perf_counter() - started
    report["memory_mib"]["engine"] = gpu_used_mib()
    report["engine"] = engine.describe()
    save(args, report)
    print(json.dumps(report["engine"]), flush=True)
    try:
        for stage in args.stages:  # in the order given: the first matter most on a short hold
            if stage.startswith("rates"):  # rates-a, rates-b: that set only
                one_set = argparse.Namespace(**{**vars(args), "sets": [stage[-1]]})
                stage_rates(one_set if "-" in stage else args, engine, report)
            elif stage == "callers":
                stage_callers(args, engine, report)
            else:
                engine = stage_kill(args, engine, report)
    finally:
        engine.close()
        time.sleep(2)
        report["memory_mib"]["after_close"] = gpu_used_mib()
        save(args, report)
    print(json.dumps(report["memory_mib"]), flush=True)
    return report


if __name__ == "__main__":
    main()
