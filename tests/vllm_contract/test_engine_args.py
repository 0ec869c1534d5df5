"""Every model x every tuning profile x a few GPU sizes: the settings the installed vLLM gets
(each plan made for this release, :func:`workbench.gpu.vllm_versions.installed_version`).

* in-process: ``vllm.engine.arg_utils.EngineArgs(**kwargs)`` constructs (no unknown field);
* server: the printed ``vllm serve`` command parses with vLLM's own CLI parser, and the
  parsed values are the ones the plan chose;
* a startable plan exists on every profile that can hold the model.

EngineArgs resolves its ``model`` when built, so the model's ``config.json`` fixture folder
(tests/data/model_configs) stands in for the Hugging Face repo id.
"""

from __future__ import annotations

import importlib.metadata
import shlex
from typing import Any

import pytest

from tests.vllm_contract.conftest import OLD_VLLM_SERVE_PARSER, fixture_dir
from workbench.gpu import commands
from workbench.gpu.planner import GiB, plan_for_model
from workbench.gpu.profiles import PROFILES, Profile
from workbench.gpu.vllm_versions import behaviour
from workbench.models import all_specs

vllm_arg_utils = pytest.importorskip("vllm.engine.arg_utils")
VLLM = importlib.metadata.version("vllm")

SPECS = [s for s in all_specs() if s.id != "cpu"]
GPU_PROFILES = [p for p in PROFILES if p.supported and p.name != "cpu"]
SIZES_GIB = (24.0, 48.0, 80.0, 139.8)


def _plans() -> list[tuple[Any, Profile, float]]:
    return [(s, p, g) for s in SPECS for p in GPU_PROFILES for g in SIZES_GIB]


def _launch(spec: Any, profile: Profile, gib: float) -> tuple[Any, dict[str, Any]] | None:
    plan, _arch, _spec = plan_for_model(spec.id, profile, int(gib * GiB))
    if not plan.fits:
        return None
    return plan, commands.engine_kwargs(spec.id, spec, plan)


def _serve_parser() -> Any:
    # The parser `vllm serve` itself builds: its module moved (openai/ up to 0.28, launchers/
    # 0.29-0.32, common/ from 0.33), so take it from where entrypoints/cli/serve.py imports it.
    from vllm.entrypoints.cli.serve import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_engine_args_construct_for_every_profile_and_gpu(spec: Any) -> None:
    tried = 0
    for _spec, profile, gib in [c for c in _plans() if c[0] is spec]:
        launched = _launch(spec, profile, gib)
        if launched is None:
            continue
        _plan, kwargs = launched
        try:
            # The fixture folder stands in for the checkpoint (EngineArgs resolves the model).
            vllm_arg_utils.EngineArgs(**{**kwargs, "model": str(fixture_dir(spec.id))})
        except TypeError as exc:  # an unknown field: vllm.LLM(...) would raise the same
            pytest.fail(f"{spec.id} on {profile.name} {gib} GiB: EngineArgs refused: {exc}")
        tried += 1
    assert tried, f"{spec.id}: no profile and GPU size gave a startable plan"


@OLD_VLLM_SERVE_PARSER
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_serve_command_parses_with_vllms_parser(spec: Any) -> None:
    parser = _serve_parser()
    tried = 0
    for _spec, profile, gib in [c for c in _plans() if c[0] is spec]:
        launched = _launch(spec, profile, gib)
        if launched is None:
            continue
        _plan, kwargs = launched
        serve = profile.serve_args()  # the profile's `vllm serve`-only flags, as Launch adds
        argv = shlex.split(commands.serve_command({**kwargs, **serve}))
        assert argv[:3] == ["vllm", "serve", spec.id]
        argv[2] = str(fixture_dir(spec.id))
        ns = parser.parse_args(argv[2:])
        ns.model = ns.model_tag  # what `vllm serve` itself does with the positional model
        engine = vllm_arg_utils.AsyncEngineArgs.from_cli_args(ns)
        want = kwargs["max_model_len"]
        assert engine.max_model_len == (want if want != -1 else -1) or want == -1
        # Not passed (0.34's extensible KV cache on an idle card): the release's default.
        assert engine.gpu_memory_utilization == pytest.approx(
            kwargs.get("gpu_memory_utilization", engine.gpu_memory_utilization)
        )
        assert ("gpu_memory_utilization" in kwargs) is not behaviour(VLLM).extensible_kv
        assert engine.max_num_seqs == kwargs.get("max_num_seqs", engine.max_num_seqs)
        for name, value in serve.items():  # e.g. api_server_count: the server's, not EngineArgs'
            assert getattr(ns, name) == value
        tried += 1
    assert tried


@pytest.mark.parametrize("profile", ["h100-h200", "a100-80g"])
@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_every_model_has_a_startable_plan_on_a_big_gpu(spec: Any, profile: str) -> None:
    gib = 139.8 if profile == "h100-h200" else 79.2
    prof = next(p for p in GPU_PROFILES if p.name == profile)
    plan, _arch, _spec = plan_for_model(spec.id, prof, int(gib * GiB))
    assert plan.fits, f"{spec.id} does not fit on {profile}: {plan.advice}"
    assert plan.max_model_len >= plan.tokens_per_page
