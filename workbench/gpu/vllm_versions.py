"""What differs between the vLLM releases users run, where it changes a plan.

Users run the vLLM their driver, CUDA and model instructions allow: Chandra's launcher pins
0.17.0, LightOnOCR's 0.30.0, ``pip install vllm`` gives 0.34.0. The supported range is the
``[vllm]`` extra's (0.17 to 0.34). Each :class:`VllmBehaviour` is read from that release's
own wheel (paths inside the ``vllm/`` package) and, for 0.26, measured on an H200
(``benchmarks/gpu_probe_results.md``). The table in ``benchmarks/vllm_releases.md`` lists them.

``profiles_encoder``
    The start-up memory profile runs the vision encoder on the largest encoder batch, so its
    peak is taken out of the KV cache. 0.17 runs the V1 runner by default
    (``envs.py``: ``VLLM_USE_V2_MODEL_RUNNER`` defaults to 0), whose
    ``v1/worker/gpu_model_runner.py::profile_run`` profiles the encoder. 0.26's default V2
    runner does not (``v1/worker/gpu/model_runner.py::profile_run`` runs the decoder and the
    sampler only; measured: 0.46 GiB of activations on LightOnOCR-2-1B, no encoder), so the
    encoder's peak must fit outside its ``gpu_memory_utilization`` share. The V2 runner
    profiles it from 0.27.0 (``profile_run`` calls ``profile_encoder_cache``).
``dense_pixtral_mask``
    Pixtral's vision attention (LightOnOCR 1/2) builds one ``N x N`` bf16 mask over every patch
    of the encoder batch (``model_executor/models/pixtral.py``: ``generate_block_attention_mask``
    then ``scaled_dot_product_attention``; no xformers in the wheels' requirements), so its
    memory grows with the square of the batch: 6 pages at ``max_num_batched_tokens`` 16384
    asked for 5.34 GiB more and ran out on the H200 (0.26). Up to 0.28.0; from 0.29.0 it is
    packed (``MMEncoderAttention`` over ``cu_seqlens``), linear in the batch.
``reserves_cudagraphs``
    CUDA-graph memory is charged to the memory the KV cache is sized from. 0.17's V1 worker
    (``v1/worker/gpu_worker.py::determine_available_memory``) and the V2 runner up to 0.28
    (``profile_cudagraph_memory`` returns 0) capture graphs after the KV cache exists, from
    the memory outside the share (0.26, measured: estimate 0, then "Graph capturing finished …
    took 0.12-0.42 GiB"). The V2 runner estimates them from 0.29.0; 0.34 captures them during
    warm-up, before its extensible KV cache is committed from what is left.
``v1_runner_for_hybrid``
    The release defaults to the V2 model runner except for hybrid models (Gated DeltaNet +
    attention: Chandra OCR 2, Qwen3.5), which run on the V1 runner
    (``config/vllm.py::_is_default_v2_model_runner_model``: ``is_hybrid`` returns False). 0.26
    and 0.27 (0.17 runs V1 for every model; from 0.29 both runners profile the encoder and
    estimate graphs; ``tests/vllm_contract`` checks each lane). So there a hybrid model's
    encoder is profiled and its CUDA graphs are estimated into the KV budget
    (``v1/worker/gpu_worker.py::determine_available_memory``,
    ``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`` defaults to 1): :func:`behaviour` with
    ``hybrid`` gives those flags. (An MoE model outside vLLM's list also runs V1 there; no
    seed model is one that this table can tell, so it is not modelled.)
``honours_stream_interval``
    The request field ``stream_interval`` is obeyed; 0.17 and 0.26 have no such field
    (``entrypoints/openai/…/protocol.py``) and stream one event a token (measured on 0.26).
``pixtral_imports_rotary``
    ``pixtral.py`` imports ``PixtralRotaryEmbedding`` from transformers, which 5.17 removed:
    LightOnOCR fails to load on 0.26 to 0.30 with transformers ≥ 5.17 ("cannot import
    name"); 0.31.0 is the first release that imports only ``apply_rotary_pos_emb``. (0.17
    imports it too but requires ``transformers<5``.)
``extensible_kv``
    0.34.0's extensible KV cache, on by default on CUDA (``config/cache.py``:
    ``enable_extensible_kv_cache``; ``v1/worker/extensible_kv_cache.py``): address space is
    reserved, warm-up and graph capture run, then the cache is committed from *measured* free
    memory keeping ``max(1 GiB, 0.75 x transient peak) + transient peak`` free
    (``measure_kv_cache_bytes``); ``gpu_memory_utilization`` defaults to 1.0
    (``CacheConfig.resolved_gpu_memory_utilization``) and a value below it only withholds KV;
    the start-up refusal when free < utilization x total is skipped
    (``v1/worker/utils.py::request_memory``). ``kv_cache_memory_bytes`` turns it off and fixes
    the size.

``gdn_flashinfer_on_hopper``
    A hybrid model's Gated-DeltaNet prefill (Chandra OCR 2) runs FlashInfer's kernel on
    Hopper cards (SM90) unless ``--gdn-prefill-backend triton`` says otherwise
    (``model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py::
    _resolve_gdn_prefill_backend``): JIT-compiled at first start, from the
    ``flashinfer-python`` the wheel pins, which must be importable where vLLM runs (on the
    H200, 0.26 without it died at start: "No module named 'flashinfer'"). From 0.26; 0.17
    has no such choice.

Not a difference: ``max_tokens`` beyond the context is clamped to ``max_model_len - prompt``
by the server in every release read (``get_max_tokens``: ``entrypoints/utils.py`` in 0.17,
``entrypoints/serve/utils/api_utils.py`` from 0.26, identical in 0.33 and 0.34).

Versions between two entries get the older entry's behaviour; ``None`` (not known: no vLLM
here, a server not asked yet) plans for :data:`DEFAULT`, the release proven on the H200.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

#: The range the ``[vllm]`` extra declares (pyproject.toml) and the contract lanes check.
OLDEST = "0.17.0"
NEWEST = "0.34.0"
#: What a plan assumes when the vLLM is not known: the release every probe ran on (H200).
DEFAULT = "0.26.0"


@dataclass(frozen=True)
class VllmBehaviour:
    version: str  # the release asked for (normalised); ``since``: the entry that matched
    profiles_encoder: bool
    dense_pixtral_mask: bool
    honours_stream_interval: bool
    reserves_cudagraphs: bool
    pixtral_imports_rotary: bool = False
    extensible_kv: bool = False
    v1_runner_for_hybrid: bool = False
    gdn_flashinfer_on_hopper: bool = False
    estimate_utilization: float = 0.92  # ``CacheConfig.gpu_memory_utilization``'s default
    since: str = ""

    @property
    def default_utilization(self) -> float:
        """``gpu_memory_utilization`` when none is passed (``config/cache.py``): 1.0 with the
        extensible KV cache, else the field's default (0.9 in 0.17, 0.92 from 0.26)."""
        return 1.0 if self.extensible_kv else self.estimate_utilization


def _entry(version: str, **flags: Any) -> VllmBehaviour:
    return VllmBehaviour(version, since=version, **flags)


_KNOWN = (
    _entry("0.17.0", profiles_encoder=True, dense_pixtral_mask=True,
           honours_stream_interval=False, reserves_cudagraphs=False,
           pixtral_imports_rotary=True, estimate_utilization=0.9),
    _entry("0.26.0", profiles_encoder=False, dense_pixtral_mask=True,
           honours_stream_interval=False, reserves_cudagraphs=False,
           pixtral_imports_rotary=True, v1_runner_for_hybrid=True,
           gdn_flashinfer_on_hopper=True),
    _entry("0.27.0", profiles_encoder=True, dense_pixtral_mask=True,
           honours_stream_interval=True, reserves_cudagraphs=False,
           pixtral_imports_rotary=True, v1_runner_for_hybrid=True,
           gdn_flashinfer_on_hopper=True),
    _entry("0.29.0", profiles_encoder=True, dense_pixtral_mask=False,
           honours_stream_interval=True, reserves_cudagraphs=True,
           pixtral_imports_rotary=True, gdn_flashinfer_on_hopper=True),
    _entry("0.31.0", profiles_encoder=True, dense_pixtral_mask=False,
           honours_stream_interval=True, reserves_cudagraphs=True,
           gdn_flashinfer_on_hopper=True),
    _entry("0.34.0", profiles_encoder=True, dense_pixtral_mask=False,
           honours_stream_interval=True, reserves_cudagraphs=True, extensible_kv=True,
           gdn_flashinfer_on_hopper=True),
)  # fmt: skip
#: The releases a plan is shown for (the lanes' releases): the model pins and both ends.
PLANNED_RELEASES = ("0.17.0", "0.26.0", "0.30.0", "0.33.0", "0.34.0")


def version_key(version: str) -> tuple[int, int, int]:
    """``"0.26.0rc1+cu130"`` -> ``(0, 26, 0)``; anything unreadable sorts as the oldest."""
    match = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if not match:
        return (0, 0, 0)
    major, minor, patch = match.groups()
    return (int(major), int(minor), int(patch or 0))


def normalise(version: str) -> str:
    return ".".join(str(p) for p in version_key(version))


def behaviour(version: str | None, *, hybrid: bool = False) -> VllmBehaviour:
    """The behaviour of ``version`` (its ``version`` is the release asked for, ``since`` the
    entry that matched); ``None`` or unreadable: :data:`DEFAULT`'s. ``hybrid``: for a hybrid
    model, which a release with ``v1_runner_for_hybrid`` runs on its V1 runner (module doc)."""
    key = version_key(version or "")
    if key == (0, 0, 0):
        key, version = version_key(DEFAULT), DEFAULT
    chosen = _KNOWN[0]
    for known in _KNOWN:
        if version_key(known.version) <= key:
            chosen = known
    if hybrid and chosen.v1_runner_for_hybrid:
        chosen = replace(chosen, profiles_encoder=True, reserves_cudagraphs=True)
    return replace(chosen, version=normalise(version or DEFAULT))


def supported(version: str) -> bool:
    return version_key(OLDEST) <= version_key(version) < (0, version_key(NEWEST)[1] + 1, 0)


def installed_version() -> str | None:
    """The vLLM installed in this Python, without importing it (``None`` when absent)."""
    return _dist_version("vllm")


def installed_transformers() -> str | None:
    return _dist_version("transformers")


def _dist_version(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
