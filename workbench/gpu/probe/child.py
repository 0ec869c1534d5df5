"""One probe, inside its own process: start vLLM with a plan's arguments, push the worst case.

``python -m workbench.gpu.probe.child CASE.json RESULT.json`` is started by
:func:`workbench.gpu.probe.cases.run_case` (a crash, an OOM or a hung engine stays in this process;
the parent reads what it wrote and its log). CASE.json holds :class:`ProbeJob`'s fields.

What it does, in order, timing each step:

1. ``VllmLocalEngine(model, engine_args)``: the workbench's own in-process engine with exactly
   the arguments the workbench generates for the plan (``load_format`` ``"dummy"`` added:
   random weights of the real architecture; only ``gpu_memory_utilization`` is scaled when a
   smaller card is simulated, see :mod:`workbench.gpu.probe.cases`).
2. Reads what vLLM decided from its workers (:func:`worker_numbers`, through
   ``LLM.collective_rpc``): weights, profiled activation peak, non-torch memory, CUDA-graph
   estimate, KV cache bytes; and from its config: blocks, block size, ``max_model_len``.
3. Sends ``pages`` copies of a real page at the plan's largest page size in ONE
   :meth:`VllmLocalEngine.run` (as the pipeline does), each answer bounded at ``max_tokens``
   with ``ignore_eos`` (random weights never stop on their own anyway), and counts answers,
   errors and output tokens.
4. Writes RESULT.json (``ok``, ``error``, the numbers, timings) and closes the engine.

Any exception is caught and written with its text, so an out-of-memory becomes data.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: The worker attributes vLLM fills during its start-up memory profile (vllm/v1/worker/
#: gpu_worker.py, determine_available_memory) and the runner's weight bytes.
WORKER_FIELDS = {
    "weights": ("model_runner.model_memory_usage",),
    "activation": ("peak_activation_memory",),
    "non_torch": ("non_torch_memory",),
    "graphs_estimate": ("cudagraph_memory_estimate",),
    "kv_cache": ("available_kv_cache_memory_bytes",),
}


@dataclass
class ProbeJob:
    model: str
    engine_args: dict[str, Any]
    width: int
    height: int
    pages: int
    max_tokens: int
    page_pdf: str = ""  # a real page to draw at width x height (blank page when empty)


@dataclass
class ProbeOutcome:
    ok: bool = False
    stage: str = "start"  # start | generate | done: where it stopped
    error: str = ""
    startup_s: float = 0.0
    generate_s: float = 0.0
    pages_sent: int = 0
    pages_answered: int = 0
    page_errors: list[str] = field(default_factory=list)
    output_tokens: int = 0
    worker: dict[str, float] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)


def _dotted(obj: Any, path: str) -> Any:
    for name in path.split("."):
        obj = getattr(obj, name, None)
    return obj


def worker_numbers(worker: Any) -> dict[str, float]:
    """Runs inside each vLLM worker (``collective_rpc``): the profile's numbers, in bytes."""
    out: dict[str, float] = {}
    for key, paths in WORKER_FIELDS.items():
        for path in paths:
            value = _dotted(worker, path)
            if isinstance(value, int | float):
                out[key] = float(value)
                break
    return out


def page_image(job: ProbeJob) -> Any:
    """A real document page drawn at the plan's size (the vision tokens depend on the size
    only; a real page keeps the processor's work realistic)."""
    from PIL import Image

    if job.page_pdf and Path(job.page_pdf).is_file():
        import pypdfium2 as pdfium

        pdf = pdfium.PdfDocument(job.page_pdf)
        page = pdf[0]
        scale = max(job.width / page.get_width(), job.height / page.get_height())
        image = page.render(scale=scale).to_pil().convert("RGB")
        pdf.close()
        return image.resize((job.width, job.height))
    return Image.new("RGB", (job.width, job.height), "white")


def run(job: ProbeJob) -> ProbeOutcome:
    os.environ.setdefault("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")  # collective_rpc(callable)
    from workbench.engines.base import PageRequest
    from workbench.engines.vllm_local import VllmLocalEngine
    from workbench.models import match_served_model
    from workbench.schema import Sampling

    outcome = ProbeOutcome()
    started = time.monotonic()
    # Every page at once (its worst case): as many slots as pages.
    engine = VllmLocalEngine(job.model, job.engine_args, max_attempts=1, concurrency=job.pages)
    outcome.startup_s = time.monotonic() - started
    try:
        outcome.config = dict(engine.actual)
        llm = engine._llm  # the probe reads vLLM's own numbers, not the workbench's
        try:
            per_worker = llm.collective_rpc(worker_numbers)
            outcome.worker = per_worker[0] if per_worker else {}
        except Exception as exc:  # an older/newer vLLM without these fields: logs remain
            outcome.worker = {"rpc_error": 1.0}
            print(f"probe: collective_rpc failed: {exc}", flush=True)
        outcome.stage = "generate"
        spec = match_served_model(job.model)
        if spec is None:
            raise RuntimeError(f"no spec for {job.model}")
        image = page_image(job)
        sampling = Sampling(
            temperature=0.0, top_p=1.0, max_tokens=job.max_tokens, extra={"ignore_eos": True}
        )
        # The pipeline's request for this model (workbench/pipeline/process.py build_request),
        # with the output bounded and no retries.
        requests = [
            PageRequest(
                key=f"probe#{i}", image=image, prompt=spec.prompt, sampling=sampling,
                system=spec.system, chat_template_kwargs=dict(spec.chat_template_kwargs),
                prompt_first=spec.prompt_first,
            )
            for i in range(job.pages)
        ]  # fmt: skip
        outcome.pages_sent = len(requests)
        began = time.monotonic()
        for output in engine.run(requests):
            if output.error:
                outcome.page_errors.append(output.error[:400])
            else:
                outcome.pages_answered += 1
                outcome.output_tokens += sum(a.tokens for a in output.attempts)
        outcome.generate_s = time.monotonic() - began
        outcome.ok = not outcome.page_errors
        outcome.stage = "done"
    finally:
        engine.close()
    return outcome


def main(argv: list[str]) -> int:
    case_path, result_path = Path(argv[0]), Path(argv[1])
    job = ProbeJob(**json.loads(case_path.read_text()))
    try:
        outcome = run(job)
    except BaseException as exc:  # OOM at start-up, unsupported model: the parent reports it
        outcome = ProbeOutcome(error=f"{type(exc).__name__}: {exc}")
        traceback.print_exc()
    result_path.write_text(json.dumps(asdict(outcome), indent=1, default=str))
    print("probe: result written", flush=True)
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
