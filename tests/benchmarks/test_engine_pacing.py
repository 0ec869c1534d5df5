"""benchmarks/engine_pacing.py on the fake vLLM: paced by first tokens, the engine takes
about the steps of an unpaced one and decodes many pages together; paced on finished outputs
only (the engine before the fix), vLLM held a handful and took many times the steps."""

from __future__ import annotations

import sys
import types

import pytest

from benchmarks import engine_pacing


def test_first_tokens_keep_the_steps_of_an_unpaced_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.fakes import fake_vllm as fv

    distributed = types.ModuleType("vllm.distributed")
    monkeypatch.setitem(sys.modules, "vllm", fv.module())
    monkeypatch.setitem(sys.modules, "vllm.distributed", distributed)
    for name in ("tokens", "step_s", "prefill_steps", "prefill_per_step"):
        monkeypatch.setattr(fv.FakeLLM, name, getattr(fv.FakeLLM, name))
    report = engine_pacing.main(["--pages", "60", "--tokens", "24", "--rounds", "1"])
    paced, before, unpaced = report["first-tokens"], report["finished-only"], report["unpaced"]
    assert paced["ok"] == before["ok"] == unpaced["ok"] == 60
    assert paced["most_unprefilled"] < unpaced["most_unprefilled"]
    assert paced["steps"] <= unpaced["steps"] * 1.1
    assert before["steps"] > 3 * paced["steps"] and before["most_running"] < paced["most_running"]
