"""The planner's row for this vLLM release (workbench/gpu/vllm_versions.py) against the
release's own code: each flag is read back from the installed package's source or objects,
``vllm serve``'s batch defaults from ``EngineArgs.get_batch_defaults`` itself, and 0.34's
extensible KV sizing from ``measure_kv_cache_bytes`` itself."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from workbench.gpu import compat, kv_budget
from workbench.gpu.vllm_versions import behaviour, version_key

pytest.importorskip("vllm")
VLLM = importlib.metadata.version("vllm")
ROW = behaviour(VLLM)
GiB = 1024**3


def _source(rel: str) -> str:
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin
    path = Path(spec.origin).parent / rel
    return path.read_text() if path.exists() else ""


def _method(text: str, name: str) -> str:
    """The body of ``def name`` in ``text``, up to the next method of the class."""
    match = re.search(rf"\n    def {name}\(.*?(?=\n    (?:@|def ))", text, re.S)
    return match.group(0) if match else ""


def _v2_default() -> bool:
    import vllm.envs as envs

    # 0.17: "0" (V1 runner by default); 0.26-0.33: None (by architecture: V2 for LightOnOCR
    # and the other dense models); 0.34: no such switch, V2 only.
    return getattr(envs, "VLLM_USE_V2_MODEL_RUNNER", None) is not False


def test_pixtral_rows_match_pixtral_py() -> None:
    pixtral = _source("model_executor/models/pixtral.py")
    # An unconditional (column 0) import; 0.31+ import it only below transformers 5.17.
    top = re.findall(r"^from transformers\S* import (\([^)]*\)|.*)$", pixtral, re.M)
    assert ROW.pixtral_imports_rotary == any("PixtralRotaryEmbedding" in t for t in top)
    dense = "generate_block_attention_mask(" in pixtral and "cu_seqlens" not in pixtral
    assert ROW.dense_pixtral_mask == dense


def test_encoder_profiling_and_graph_reservation_match_the_default_runner() -> None:
    v2 = _source("v1/worker/gpu/model_runner.py")
    if _v2_default():
        assert ROW.profiles_encoder == ("profile_encoder_cache" in _method(v2, "profile_run"))
        graphs = _method(v2, "profile_cudagraph_memory")
        estimated = "_profile_cudagraph_memory(" in graphs or "capture" in graphs
        assert ROW.reserves_cudagraphs == (estimated or ROW.extensible_kv)
    else:  # the V1 runner profiles the encoder; its worker reserves no graph memory
        v1 = _method(_source("v1/worker/gpu_model_runner.py"), "profile_run")
        assert ROW.profiles_encoder == ("supports_mm_inputs" in v1)
        worker = _method(_source("v1/worker/gpu_worker.py"), "determine_available_memory")
        assert ROW.reserves_cudagraphs == ("cudagraph" in worker)


def test_a_hybrid_models_row_matches_the_runner_it_gets() -> None:
    """Where the release picks the runner by model and sends hybrid models (Chandra OCR 2) to
    the V1 runner, the hybrid row has the V1 runner's encoder profiling and graph estimate;
    elsewhere it is the release's row."""
    hybrid = behaviour(VLLM, hybrid=True)
    chooser = _method(_source("config/vllm.py"), "_is_default_v2_model_runner_model")
    v1 = _source("v1/worker/gpu_model_runner.py")
    if _v2_default() and "is_hybrid" in chooser and v1:
        assert hybrid.profiles_encoder == ("supports_mm_inputs" in _method(v1, "profile_run"))
        worker = _method(_source("v1/worker/gpu_worker.py"), "determine_available_memory")
        assert hybrid.reserves_cudagraphs == ("cudagraph" in worker)
    else:
        assert hybrid == ROW


def test_stream_interval_row_matches_the_request_model() -> None:
    spec = importlib.util.find_spec("vllm")
    assert spec is not None and spec.origin
    protocols = Path(spec.origin).parent.joinpath("entrypoints", "openai").rglob("protocol.py")
    has = any("stream_interval" in p.read_text() for p in protocols)
    assert ROW.honours_stream_interval == has


def test_extensible_kv_row_and_default_utilization() -> None:
    from vllm.config import CacheConfig

    fields = CacheConfig.__dataclass_fields__
    assert ROW.extensible_kv == ("enable_extensible_kv_cache" in fields)
    if ROW.extensible_kv:
        resolved = inspect.getsource(CacheConfig.resolved_gpu_memory_utilization.fget)
        assert "return 1.0" in resolved and ROW.default_utilization == 1.0
    else:
        assert CacheConfig().gpu_memory_utilization == ROW.default_utilization


@pytest.mark.skipif(not ROW.extensible_kv, reason=f"vLLM {VLLM} sizes the KV cache by estimate")
@pytest.mark.parametrize("peak_gib", [0.3, 1.0, 6.0])
@pytest.mark.parametrize(("total_gib", "held_gib", "util"), [(139.8, 0, 1.0), (22.0, 0, 1.0),
                                                               (79.1, 20, 0.7)])  # fmt: skip
def test_extensible_kv_budget_is_vllms_measure(
    peak_gib: float, total_gib: float, held_gib: float, util: float
) -> None:
    from vllm.v1.worker import extensible_kv_cache as ext

    assert kv_budget.EXTENSIBLE_MARGIN_FLOOR == ext.KV_CACHE_MARGIN_FLOOR_BYTES
    assert kv_budget.EXTENSIBLE_MARGIN_FRACTION == ext.KV_CACHE_MARGIN_FRACTION
    total, free = int(total_gib * GiB), int((total_gib - held_gib) * GiB)
    weights, graphs, non_torch, peak = 2 * GiB, GiB // 2, 230 * 1024**2, int(peak_gib * GiB)
    init_free = free - kv_budget.CONTEXT_BYTES  # measured after the CUDA context exists
    resident = weights + graphs + non_torch
    theirs = ext.measure_kv_cache_bytes(
        init_free_memory=init_free, free_memory=init_free - resident, committed_bytes=0,
        requested_memory=int(util * total + 0.999), transient_peak_bytes=peak,
    )  # fmt: skip
    ours = kv_budget.kv_bytes(
        ROW, util=util, total=total, free=free, weights=weights, activations=peak,
        graphs=graphs, non_torch=non_torch,
    )  # fmt: skip
    assert ours == theirs


@pytest.mark.parametrize(
    ("gib", "name"),
    [(22.0, "NVIDIA L4"), (79.2, "NVIDIA A100-SXM4-80GB"), (139.8, "NVIDIA H200"),
     (178.4, "NVIDIA B200")],
)  # fmt: skip
def test_serve_defaults_are_get_batch_defaults(
    gib: float, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vllm.engine import arg_utils
    from vllm.usage.usage_lib import UsageContext

    platform: Any = arg_utils.current_platform
    total = int(gib * GiB)
    monkeypatch.setattr(platform, "get_device_total_memory", lambda *a, **k: total)
    monkeypatch.setattr(platform, "get_device_name", lambda *a, **k: name)
    monkeypatch.setattr(platform, "is_device_capability", lambda *a, **k: False, raising=False)
    for other in ("is_cpu", "is_tpu", "is_xpu"):
        monkeypatch.setattr(platform, other, lambda *a, **k: False, raising=False)
    mnbt, seqs = arg_utils.EngineArgs.get_batch_defaults(world_size=1)
    server = UsageContext.OPENAI_API_SERVER
    assert compat.serve_defaults(VLLM, total, name) == (mnbt[server], seqs[server])
    assert version_key(VLLM) >= (0, 17, 0)


def test_gdn_flashinfer_row_matches_the_prefill_backend_choice() -> None:
    """The release takes ``gdn_prefill_backend`` and, left to itself, picks FlashInfer's GDN
    prefill on compute capability 9.0 (Hopper), exactly where the row says so."""
    from vllm.engine.arg_utils import EngineArgs

    chooser = _source("model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py")
    resolve = chooser.split("def _resolve_gdn_prefill_backend", 1)[-1].split("\ndef ", 1)[0]
    picks = "is_device_capability(90)" in resolve and '"flashinfer"' in resolve
    takes = "gdn_prefill_backend" in inspect.signature(EngineArgs).parameters
    assert ROW.gdn_flashinfer_on_hopper == (takes and picks)
