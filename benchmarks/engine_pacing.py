"""The in-process engine's pacing on the fake vLLM (no GPU): steps and pages decoding together.

Why: vLLM's offline path adds requests ``FINAL_ONLY``, so a step reports finished requests
only. Paced on those alone, the loop never saw a page prefilled before it finished and vLLM
held a handful of pages (5-7 on the H200, ``h200/results-2026-12-05b.md``). The loop now
reads first tokens from vLLM's output processor (``engines/loop.py``, ``_first_tokens``).
This runs the real :class:`~workbench.engines.vllm_local.VllmLocalEngine` on
``tests/fakes/fake_vllm.py`` (which adds requests FINAL_ONLY and keeps request states as vLLM
does) three ways, alternated round by round, and reports the median of each: paced by first
tokens (the engine now), paced on finished outputs only (the engine before), unpaced.
Steps are the fake's scheduler steps: on a GPU each costs time, so fewer steps for the same
pages is the throughput the pacing keeps.

    python benchmarks/engine_pacing.py [--pages 200] [--tokens 64] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one(mode: str, pages: int) -> dict[str, Any]:
    from PIL import Image

    from tests.fakes import fake_vllm as fv
    from workbench.engines.base import PageRequest
    from workbench.engines.loop import EngineLoop
    from workbench.engines.vllm_local import VllmLocalEngine

    first_tokens = EngineLoop._first_tokens
    if mode == "finished-only":
        EngineLoop._first_tokens = lambda self: None  # type: ignore[method-assign]
    try:
        engine = VllmLocalEngine("m/ocr", {"max_num_seqs": 64})
        if mode == "unpaced":
            engine._loop.pace_tokens = None
        image = Image.new("RGB", (60, 40))
        started = time.perf_counter()
        requests = (PageRequest(key=f"p{i}", image=image, prompt="OCR") for i in range(pages))
        done = sum(o.ok for o in engine.run(requests))
        seconds = time.perf_counter() - started
        core = fv.FakeLLM.last.llm_engine  # type: ignore[union-attr]
        engine._loop.close()
    finally:
        EngineLoop._first_tokens = first_tokens  # type: ignore[method-assign]
    return {"ok": done, "seconds": seconds, "steps": core.steps, "most_running": core.most_running,
            "most_unprefilled": core.most_unprefilled}  # fmt: skip


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=64, help="steps (tokens) an answer takes")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from tests.fakes import fake_vllm as fv

    fv.install()
    # A prompt takes 2 steps of prefill and a step prefills 4 pages' worth (vLLM's budget).
    fv.FakeLLM.tokens, fv.FakeLLM.step_s = args.tokens, 0.002
    fv.FakeLLM.prefill_steps, fv.FakeLLM.prefill_per_step = 2, 4
    modes = ("first-tokens", "finished-only", "unpaced")
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    for _ in range(args.rounds):
        for mode in modes:
            rows[mode].append(one(mode, args.pages))
    report = {}
    for mode, runs in rows.items():
        report[mode] = {
            key: statistics.median(r[key] for r in runs)
            for key in ("ok", "steps", "most_running", "most_unprefilled", "seconds")
        }
        print(mode, report[mode], flush=True)
    return report


if __name__ == "__main__":
    main()
