"""The probe's plumbing (workbench/gpu/probe/cases.py, child.py) against a fake ``vllm`` package.

The real thing runs on a GPU (``python -m workbench probe``; results in
benchmarks/gpu_probe_results.md). Here a fake ``vllm`` package, written to a temporary folder
and put first on the child process's PYTHONPATH, prints vLLM's own log lines, answers
``collective_rpc`` with worker numbers and, when asked for more pages than it can hold, dies
as vLLM 0.26 did on the H200 (``CUDA out of memory`` in pixtral.py). What is checked: the
child is started with exactly the plan's arguments (plus ``load_format="dummy"``), every page
is sent in one batch, vLLM's numbers are read back, and an out-of-memory becomes a verdict
with the knob that fixes it, never an exception.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from workbench.gpu.probe.cases import (
    CARDS,
    TABLE_HEAD,
    find_card,
    parse_log,
    plan_case,
    report_row,
    run_case,
)

FAKE_VLLM = """
import json, os, sys
from types import SimpleNamespace

from tests.fakes import fake_vllm as fv

ARGS_FILE = os.environ["FAKE_VLLM_ARGS"]
LIMIT = int(os.environ.get("FAKE_VLLM_LIMIT", "1000000"))
SamplingParams = fv.SamplingParams


class LLM(fv.FakeLLM):
    \"\"\"vLLM's log lines and worker numbers; out of memory once more than LIMIT pages were
    added (the vision encoder's batch), then dead, as its EngineCore is.\"\"\"

    def __init__(self, model, **kw):
        json.dump({"model": model, **kw}, open(ARGS_FILE, "w"), default=str)
        print("INFO Model loading took 1.88 GiB memory and 2.1 seconds", flush=True)
        print("INFO Available KV cache memory: 17.25 GiB", flush=True)
        print("INFO GPU KV cache size: 301,440 tokens", flush=True)
        super().__init__(model, **kw)
        config = self.llm_engine.vllm_config
        config.model_config.max_model_len = 16384
        config.cache_config.num_gpu_blocks = 18840
        step = self.llm_engine.step

        def oom_step():
            if len(self.rendered) > LIMIT and not self.dead:
                self.dead = True
                print('Traceback (most recent call last):', flush=True)
                print('  File "/site/vllm/model_executor/models/pixtral.py", line 1250, in '
                      'forward', flush=True)
                raise RuntimeError(
                    "CUDA out of memory. Tried to allocate 5.34 GiB. GPU 0 has a total capacity"
                    " of 139.80 GiB of which 3.79 GiB is free.")
            return step()

        self.llm_engine.step = oom_step

    def collective_rpc(self, fn):
        worker = SimpleNamespace(
            model_runner=SimpleNamespace(model_memory_usage=2018634629),
            peak_activation_memory=251658240, non_torch_memory=104857600,
            cudagraph_memory_estimate=209715200, available_kv_cache_memory_bytes=18522046464)
        return [fn(worker)]
"""


@pytest.fixture
def fake_vllm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    (site / "vllm" / "distributed").mkdir(parents=True)
    (site / "vllm" / "__init__.py").write_text(FAKE_VLLM)
    (site / "vllm" / "distributed" / "__init__.py").write_text("")
    (site / "vllm" / "distributed" / "parallel_state.py").write_text(
        "def cleanup_dist_env_and_memory():\n    pass\n"
    )
    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(root)]))
    args = tmp_path / "args.json"
    monkeypatch.setenv("FAKE_VLLM_ARGS", str(args))
    return args


def test_cards_cover_every_gpu_profile() -> None:
    from workbench.gpu.profiles import PROFILES

    gpu_profiles = {p.name for p in PROFILES if p.supported and p.name != "cpu"}
    assert gpu_profiles <= {c.profile for c in CARDS}
    assert find_card("l40s").gib == pytest.approx(44.39)
    assert find_card("12").gib == 12.0


def test_the_users_own_vllm_arguments_are_probed_with_the_plan(
    fake_vllm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Hopper lab without flashinfer runs a hybrid model's GDN prefill with Triton: the probe
    # must start vLLM with what the in-process engine would start it with, not the bare plan.
    monkeypatch.setenv("WORKBENCH_VLLM_ARGS", '{"gdn_prefill_backend": "triton"}')
    card = find_card("RTX 4090")
    _plan, kwargs = plan_case("lightonai/LightOnOCR-2-1B", card, None)
    assert kwargs["gdn_prefill_backend"] == "triton"
    run_case(
        "lightonai/LightOnOCR-2-1B", card, workdir=tmp_path / "out", pages_cap=2,
        max_tokens=3, ballast=False, python=sys.executable,
    )  # fmt: skip
    sent = json.loads(fake_vllm.read_text())
    assert sent["gdn_prefill_backend"] == "triton"
    assert sent["load_format"] == "dummy"


def test_a_plan_that_survives(fake_vllm: Path, tmp_path: Path) -> None:
    card = find_card("RTX 4090")
    plan, kwargs = plan_case("lightonai/LightOnOCR-2-1B", card, None)
    report = run_case(
        "lightonai/LightOnOCR-2-1B", card, workdir=tmp_path / "out", pages_cap=5,
        max_tokens=7, ballast=False, python=sys.executable,
    )  # fmt: skip
    sent = json.loads(fake_vllm.read_text())
    assert sent["load_format"] == "dummy"
    kwargs.pop("model")
    for key, value in kwargs.items():  # exactly the workbench's arguments
        assert json.loads(json.dumps(sent[key], default=str)) == json.loads(
            json.dumps(value, default=str)
        ), key
    assert report.ok, report.verdict
    assert report.measured["pages_answered"] == 5
    assert report.measured["output_tokens"] == 35
    assert report.measured["kv_tokens"] == 18840 * 16
    assert report.measured["weights_gib"] == pytest.approx(2018634629 / 1024**3)
    assert report.measured["activation_gib"] == pytest.approx(0.234375)
    assert report.measured["log_kv_tokens"] == 301_440
    assert report.planned["kv_tokens"] == plan.num_blocks * plan.block_size
    row = report_row(report)
    assert row.count("|") == TABLE_HEAD.splitlines()[0].count("|")
    assert "ok: 5 pages" in row


def test_an_out_of_memory_is_a_verdict_with_its_fix(
    fake_vllm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_LIMIT", "3")
    report = run_case(
        "lightonai/LightOnOCR-2-1B", find_card("H200"), workdir=tmp_path / "out", pages_cap=6,
        max_tokens=4, ballast=False, python=sys.executable,
    )  # fmt: skip
    assert not report.ok
    # The engine's own dead-engine message (or vLLM's text, when the log has it) and the knob.
    assert re.search(r"out of (GPU )?memory", report.verdict), report.verdict
    assert "max_num_batched_tokens" in report.fix


def test_a_plan_that_does_not_fit_is_not_started(tmp_path: Path) -> None:
    report = run_case("datalab-to/chandra", find_card("12"), workdir=tmp_path, ballast=False)
    assert not report.fits and report.ok
    assert "not started" in report.verdict
    assert not (tmp_path / "datalab-to_chandra_12_GiB_card.log").exists()


def test_parse_log_reads_vllms_lines() -> None:
    text = (
        "(EngineCore pid=1) INFO Model loading took 17.64 GiB and 9.1 seconds\n"
        "INFO Available KV cache memory: 98.13 GiB\nINFO GPU KV cache size: 714,528 tokens\n"
        "INFO Graph capturing finished in 12 secs, took 0.51 GiB\n"
    )
    found = parse_log(text)
    assert found == {
        "log_weights_gib": 17.64, "log_kv_gib": 98.13, "log_kv_tokens": 714_528.0,
        "log_graphs_gib": 0.51,
    }  # fmt: skip


def test_eager_asks_vllm_for_no_graphs_and_says_so(fake_vllm: Path, tmp_path: Path) -> None:
    """``--eager`` (a start in seconds) sends ``enforce_eager`` over the plan's own value, and
    the verdict says the plan's CUDA-graph memory was not exercised."""
    card = find_card("H100")
    _plan, kwargs = plan_case("allenai/olmOCR-2-7B-1025", card, None)
    assert kwargs["enforce_eager"] is False  # the plan compiles on this card
    report = run_case(
        "allenai/olmOCR-2-7B-1025", card, workdir=tmp_path / "out", pages_cap=2, max_tokens=3,
        ballast=False, python=sys.executable, eager=True,
    )  # fmt: skip
    sent = json.loads(fake_vllm.read_text())
    assert sent["enforce_eager"] is True and sent["load_format"] == "dummy"
    assert sent["max_num_batched_tokens"] == kwargs["max_num_batched_tokens"]
    assert report.ok, report.verdict
    assert "eager: CUDA graphs not exercised" in report_row(report)


#: The end of the EngineCore's log of Chandra OCR 2 on the H200 (vLLM 0.26, 2026-12-06,
#: benchmarks/h200/2026-12-06b), cut to the lines that matter.
DIED_LOG = """\
(EngineCore pid=1286) WARNING 12-06 03:07:33 [qwen_gdn_linear_attn.py:1085] ModuleNotFoundError: No module named 'flashinfer'
(EngineCore pid=1286) ERROR 12-06 03:08:04 [core.py:1332] EngineCore encountered a fatal error.
(EngineCore pid=1286) ERROR 12-06 03:08:04 [core.py:1332] Traceback (most recent call last):
(EngineCore pid=1286) ERROR 12-06 03:08:04 [core.py:1332]   File "/site/vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py", line 174, in fi_chunk_gated_delta_rule
(EngineCore pid=1286) ERROR 12-06 03:08:04 [core.py:1332]     from flashinfer.gdn_prefill import (
(EngineCore pid=1286) ERROR 12-06 03:08:04 [core.py:1332] ModuleNotFoundError: No module named 'flashinfer'
vLLM engine loop stopped: the vLLM engine died (EngineCore encountered an issue. See stack trace (above) for the root cause); vLLM did not say why.
"""  # noqa: E501


def test_parse_log_reads_the_cause_the_engine_core_printed() -> None:
    """In process the EngineCore is a child: its traceback is in the log, not the exception,
    and the probe said "vLLM did not say why" of a missing flashinfer."""
    assert parse_log(DIED_LOG)["cause"] == "ModuleNotFoundError: No module named 'flashinfer'"
    assert "cause" not in parse_log(DIED_LOG.split("vLLM engine loop")[0].replace("Engine", "E"))
