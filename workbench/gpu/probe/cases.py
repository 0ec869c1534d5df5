"""Prove a memory plan on a real GPU: start real vLLM with it and push its worst case.

:func:`run_case` plans a model for a card (:func:`workbench.gpu.planner.plan_memory`), starts
vLLM in a child process with exactly the arguments the workbench generates for that plan
(:mod:`workbench.gpu.probe.child`; weights not needed: ``load_format="dummy"`` with the model's
own config, tokenizer and processor from the local Hugging Face cache, or a weightless folder
from :mod:`workbench.models.weightless`), sends the most pages the plan allows in flight at
its largest page size with the output bounded, and returns planned against measured
(:class:`ProbeReport`): weights, activation peak, CUDA graphs, KV tokens, pages, start-up
time, pages/s, and any out-of-memory with the knob that fixes it.

A smaller card on a bigger GPU: the rest of the GPU's memory is held first by a *ballast*
process (:class:`Ballast`), so vLLM sees the card's free memory and an overshoot fails as it
would on that card; vLLM's ``gpu_memory_utilization`` is a fraction of the whole GPU, so it is
scaled by ``card / total`` to give the card's budget (``util x card``), the one number that
changes. A card the size of the GPU needs no ballast.

Cards (:data:`CARDS`) are named with the memory CUDA reports for them (``total capacity`` in
PyTorch's out-of-memory text), which is what vLLM multiplies by the utilization.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from workbench.engines.dead import UNSAID, log_cause
from workbench.errors import PlanError
from workbench.gpu.launch import Launch, extra_args
from workbench.gpu.planner import GiB, MemoryPlan, plan_memory, resolve_model
from workbench.gpu.profiles import get_profile
from workbench.gpu.target import all_cards
from workbench.gpu.vllm_versions import installed_version


@dataclass(frozen=True)
class Card:
    name: str
    gib: float  # total as CUDA reports it
    profile: str


#: Every card a GPU profile names with the memory CUDA reports on it (:mod:`workbench.gpu.cards`,
#: one list for the planner, the GPU page and the probe), and two smaller cards planned with
#: the safe generic profile. The generic profile's own 24 GB card is the L4's size: not twice.
CARDS: tuple[Card, ...] = (
    *(
        Card(card.name, card.cuda_gib, profile.name)
        for card, profile in all_cards()
        if card.cuda_gib and profile.name != "generic-24gb"
    ),
    Card("16 GiB card", 15.70, "generic-24gb"),
    Card("12 GiB card", 11.70, "generic-24gb"),
)

_LOG_NUMBERS = {  # vLLM 0.26-0.33 log lines (vllm/v1/worker/gpu_worker.py, kv_cache_utils.py)
    "log_weights_gib": r"Model loading took ([\d.]+) GiB",
    "log_kv_gib": r"Available KV cache memory: ([\d.]+) GiB",
    "log_kv_tokens": r"GPU KV cache size: ([\d,]+) tokens",
    "log_graphs_gib": r"Graph capturing finished in \d+ secs, took (-?[\d.]+) GiB",
}
OOM_RE = re.compile(r"CUDA out of memory\. Tried to allocate ([\d.]+ [GM]iB)[^\n]*")


def find_card(name: str) -> Card:
    for card in CARDS:
        if card.name.lower() == name.lower() or card.profile == name.lower():
            return card
    with contextlib.suppress(ValueError):
        gib = float(name)
        return Card(f"{gib:g} GiB card", gib, "")
    known = ", ".join(c.name for c in CARDS)
    raise PlanError(f"unknown card {name!r}: give GiB or one of {known}")


def parse_log(text: str) -> dict[str, Any]:
    """vLLM's own numbers from its log, and the first out-of-memory it printed."""
    found: dict[str, Any] = {}
    for key, pattern in _LOG_NUMBERS.items():
        matches = re.findall(pattern, text)
        if matches:
            found[key] = float(matches[-1].replace(",", ""))
    oom = OOM_RE.search(text)
    if oom:
        found["oom"] = oom.group(0)[:300]
    before = text[: oom.end()] if oom else ""
    where = re.findall(r'File "[^"]*/(\w+\.py)", line \d+, in (\w+)', before)
    if oom and where:
        found["oom_where"] = " > ".join(f"{f}:{fn}" for f, fn in where[-3:])
    cause = log_cause(text)  # the error the EngineCore printed before the engine died
    if cause is not None:
        found["cause"] = cause[:300]
    for phrase in (
        "EngineDeadError",
        "No available memory for the cache blocks",
        "larger than the maximum number of tokens that can be stored in KV cache",
    ):
        if phrase in text:
            found.setdefault("errors", []).append(phrase)  # fmt: skip
    return found


class Ballast:
    """Holds all but ``keep_bytes`` of the GPU's free memory in a child process (module doc).

    Used as a context manager; ``total_bytes``/``free_bytes`` are what CUDA reported once the
    ballast was in place."""

    SCRIPT = (
        "import sys, torch\n"
        "free, total = torch.cuda.mem_get_info()\n"
        "hold = max(free - int(sys.argv[1]), 0)\n"
        "x = torch.empty(hold, dtype=torch.uint8, device='cuda') if hold else None\n"
        "free, total = torch.cuda.mem_get_info()\n"
        "print('BALLAST', hold, free, total, flush=True)\n"
        "sys.stdin.read()\n"
    )

    def __init__(self, keep_bytes: int, python: str = sys.executable) -> None:
        self.keep_bytes, self.python = keep_bytes, python
        self.proc: subprocess.Popen[str] | None = None
        self.held = self.free_bytes = self.total_bytes = 0

    def __enter__(self) -> Ballast:
        self.proc = subprocess.Popen(
            [self.python, "-c", self.SCRIPT, str(self.keep_bytes)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().split()
        if len(line) != 4 or line[0] != "BALLAST":
            self.__exit__()
            raise PlanError("the ballast process could not take the GPU's memory")
        self.held, self.free_bytes, self.total_bytes = (int(v) for v in line[1:])
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            with contextlib.suppress(Exception):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            self.proc = None


@dataclass
class ProbeReport:
    model: str
    card: str
    card_gib: float
    profile: str
    vllm_version: str
    fits: bool  # the planner's verdict
    planned: dict[str, Any] = field(default_factory=dict)
    measured: dict[str, Any] = field(default_factory=dict)
    ok: bool = False
    verdict: str = ""
    fix: str = ""

    def kv_error(self) -> float | None:
        """(planned - measured) / measured KV tokens; None when either is missing."""
        got = self.measured.get("kv_tokens")
        want = self.planned.get("kv_tokens")
        return (want - got) / got if got and want else None


def planned_numbers(plan: MemoryPlan) -> dict[str, Any]:
    return {
        "weights_gib": plan.weights_bytes / GiB,
        "activation_gib": plan.activation_bytes / GiB,
        "graphs_gib": plan.cuda_graph_bytes / GiB,
        "kv_gib": plan.kv_cache_bytes / GiB,
        "kv_tokens": plan.num_blocks * plan.block_size,
        "max_model_len": plan.max_model_len,
        "tokens_per_page": plan.tokens_per_page,
        "pages_in_flight": plan.pages_in_flight,
        "max_num_batched_tokens": plan.engine_args.get("max_num_batched_tokens"),
        "encoder_pages_per_step": plan.encoder.pages_per_step if plan.encoder else None,
        "gpu_memory_utilization": plan.util_eff,
        "page": [plan.page_width, plan.page_height],
    }


def plan_case(model: str, card: Card, vllm_version: str | None) -> tuple[MemoryPlan, dict]:
    """The plan and the ``vllm.LLM`` kwargs the workbench generates for ``model`` on ``card``,
    ``WORKBENCH_VLLM_ARGS`` over them as the in-process engine takes it (a user's own
    argument, e.g. ``{"gdn_prefill_backend": "triton"}``, is probed with the plan)."""
    _arch, spec = resolve_model(model)
    profile = get_profile(card.profile or "generic-24gb")
    total = int(card.gib * GiB)
    launch = Launch.of(
        spec,
        profile,
        plan_memory(spec, profile, total, total, vllm_version=vllm_version),
        extra=extra_args(),
    )
    return launch.plan, launch.kwargs


def run_case(
    model: str,
    card: Card,
    *,
    workdir: Path,
    pages_cap: int = 256,
    max_tokens: int = 64,
    timeout_s: float = 420.0,
    ballast: bool = True,
    page_pdf: str = "",
    python: str = sys.executable,
    eager: bool = False,
) -> ProbeReport:
    """One model on one card (module doc). Never raises for what vLLM does: an out-of-memory,
    a refused argument or a hung engine is the report's ``verdict``.

    ``eager``: ``enforce_eager=True`` over the plan (no torch.compile, no CUDA graphs): a start
    in seconds instead of minutes, for "does this model start on this vLLM at all"; the
    verdict says so, since the plan's graph memory was then not exercised."""
    version = installed_version()
    plan, kwargs = plan_case(model, card, version)
    report = ProbeReport(
        model=plan.model_id, card=card.name, card_gib=card.gib, profile=plan.profile,
        vllm_version=version or "?", fits=plan.fits, planned=planned_numbers(plan),
    )  # fmt: skip
    if not plan.fits:
        report.verdict = "planner: does not fit this card (not started)"
        report.fix = "; ".join(plan.advice[:2])
        report.ok = True  # saying so before starting is the right answer
        return report
    model_id = str(kwargs.pop("model"))
    kwargs["load_format"] = "dummy"
    if eager:
        kwargs["enforce_eager"] = True
        report.measured["eager"] = True
    card_bytes = int(card.gib * GiB)
    workdir.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"\W+", "_", f"{model_id}_{card.name}").strip("_")
    log_path = workdir / f"{stem}.log"
    job_path, result_path = workdir / f"{stem}.job.json", workdir / f"{stem}.result.json"
    result_path.unlink(missing_ok=True)
    pages = max(1, min(pages_cap, plan.pages_in_flight))
    with contextlib.ExitStack() as stack:
        held = None
        if ballast:
            held = Ballast(card_bytes, python).__enter__()
            report.measured["ballast_gib"] = held.held / GiB
            report.measured["free_gib_after_ballast"] = held.free_bytes / GiB
            if held.held:  # vLLM's utilization is of the whole GPU: give it the card's budget
                stack.callback(held.__exit__)
                kwargs["gpu_memory_utilization"] = round(
                    plan.util_eff * card_bytes / held.total_bytes, 4
                )
            else:  # the card is the whole GPU: not even the ballast's CUDA context stays
                held.__exit__()
        job = {
            "model": model_id, "engine_args": kwargs, "width": plan.page_width,
            "height": plan.page_height, "pages": pages, "max_tokens": max_tokens,
            "page_pdf": page_pdf,
        }  # fmt: skip
        job_path.write_text(json.dumps(job, indent=1))
        env = {**os.environ, "VLLM_ALLOW_INSECURE_SERIALIZATION": "1"}
        started = time.monotonic()
        with log_path.open("w") as log:
            try:
                subprocess.run(
                    [python, "-m", "workbench.gpu.probe.child", str(job_path), str(result_path)],
                    stdout=log, stderr=subprocess.STDOUT, env=env, timeout=timeout_s, check=False,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                report.measured["timed_out"] = True
        report.measured["wall_s"] = time.monotonic() - started
    read_outcome(report, result_path, log_path, plan, pages, max_tokens)
    return report


def read_outcome(
    report: ProbeReport, result_path: Path, log_path: Path, plan: MemoryPlan, pages: int,
    max_tokens: int,
) -> None:  # fmt: skip
    log = parse_log(log_path.read_text(errors="replace")) if log_path.exists() else {}
    outcome: dict[str, Any] = {}
    if result_path.exists():
        outcome = json.loads(result_path.read_text())
    worker = outcome.get("worker") or {}
    config = outcome.get("config") or {}
    m = report.measured
    m.update({k: v for k, v in log.items()})
    for key, name in (("weights", "weights_gib"), ("activation", "activation_gib"),
                      ("non_torch", "non_torch_gib"), ("graphs_estimate", "graphs_gib"),
                      ("kv_cache", "kv_gib")):  # fmt: skip
        if key in worker:
            m[name] = worker[key] / GiB
    m.setdefault("weights_gib", log.get("log_weights_gib"))
    m.setdefault("kv_gib", log.get("log_kv_gib"))
    kv_tokens = config.get("kv_tokens") or log.get("log_kv_tokens")
    m["kv_tokens"] = int(kv_tokens) if kv_tokens else None
    m["max_model_len"] = config.get("max_model_len")
    m["startup_s"] = outcome.get("startup_s")
    m["pages_sent"] = outcome.get("pages_sent", 0)
    m["pages_answered"] = outcome.get("pages_answered", 0)
    m["output_tokens"] = outcome.get("output_tokens", 0)
    seconds = outcome.get("generate_s") or 0.0
    m["generate_s"] = seconds
    m["pages_per_s"] = m["pages_answered"] / seconds if seconds else None
    if m["kv_tokens"]:
        m["pages_kv_holds"] = m["kv_tokens"] // max(plan.tokens_per_page, 1)
    errors = outcome.get("page_errors") or []
    report.ok = bool(outcome.get("ok")) and m["pages_answered"] == pages
    if report.ok:
        report.verdict = f"ok: {pages} pages at once, {max_tokens} tokens each"
        if m.get("eager"):
            report.verdict += " (eager: CUDA graphs not exercised)"
        return
    reason = outcome.get("error") or (errors[0] if errors else "") or "no result written"
    if "oom" in m:  # the root cause; what the pages said after it is the dead engine
        reason = f"{m['oom']} ({len(errors)} page errors)"
    elif "cause" in m and UNSAID in reason:  # in its child's log, not its exception
        reason = f"the vLLM engine died: {m['cause']} (the EngineCore's log)"
    if m.get("timed_out"):
        reason = "timed out: " + reason
    report.verdict = f"FAILED at {outcome.get('stage', 'start')}: {reason[:300]}"
    if "oom" in m or re.search(r"out of (gpu )?memory", reason, re.I):
        report.fix = _oom_fix(plan, m)


def _oom_fix(plan: MemoryPlan, measured: dict[str, Any]) -> str:
    where = str(measured.get("oom_where", ""))
    mnbt = int(plan.engine_args.get("max_num_batched_tokens") or 0)
    page = plan.vision_tokens
    if "pixtral" in where or "vision" in where or "encoder" in where or "visual" in where:
        return (
            f"the vision encoder ran out: lower max_num_batched_tokens from {mnbt:,} towards "
            f"one page ({page:,} tokens), so fewer pages are encoded at once"
        )
    return (
        f"lower gpu_memory_utilization below {plan.util_eff:.2f} (room for what vLLM did not "
        f"profile) or max_num_batched_tokens below {mnbt:,}"
    )


def report_row(r: ProbeReport) -> str:
    """One Markdown table row (see :data:`TABLE_HEAD`)."""

    def num(value: Any, fmt: str) -> str:
        return format(value, fmt) if isinstance(value, int | float) else "–"

    p, m = r.planned, r.measured
    err = r.kv_error()
    return (
        f"| {r.model.split('/')[-1]} | {r.card} ({r.card_gib:g}) | {r.profile} | "
        f"{num(p.get('max_num_batched_tokens'), ',')} | "
        f"{num(p.get('weights_gib'), '.2f')} / {num(m.get('weights_gib'), '.2f')} | "
        f"{num(p.get('activation_gib'), '.2f')} / {num(m.get('activation_gib'), '.2f')} | "
        f"{num(p.get('graphs_gib'), '.2f')} / {num(m.get('graphs_gib'), '.2f')} | "
        f"{num(p.get('kv_tokens'), ',')} / {num(m.get('kv_tokens'), ',')} | "
        f"{'–' if err is None else f'{100 * err:+.1f} %'} | "
        f"{num(p.get('pages_in_flight'), 'd')} / {num(m.get('pages_answered'), 'd')} | "
        f"{num(m.get('pages_per_s'), '.2f')} | {num(m.get('startup_s'), '.0f')} | "
        f"{r.verdict}{' — fix: ' + r.fix if r.fix else ''} |"
    )


TABLE_HEAD = (
    "| model | card (GiB) | profile | max_num_batched_tokens | weights GiB plan / vLLM | "
    "activation GiB | CUDA graphs GiB | KV tokens plan / vLLM | KV error | "
    "pages at once plan / done | pages/s | start s | verdict |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def save(reports: list[ProbeReport], path: Path) -> None:
    path.write_text(json.dumps([asdict(r) for r in reports], indent=1, default=str))
