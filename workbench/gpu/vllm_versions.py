"""What differs between the vLLM releases the workbench supports, where it changes a plan.

Users run the vLLM their driver and CUDA allow, not only the newest. The supported range is
the ``[vllm]`` extra's (0.26 to 0.33). Each :class:`VllmBehaviour` is read from that release's
own source and, for 0.26, measured on an H200 (``benchmarks/gpu_probe_results.md``):

``profiles_encoder``
    The start-up memory profile runs the vision encoder on the largest encoder batch, so its
    peak is taken out of the KV cache. vLLM 0.26's default (V2) model runner does not
    (``vllm/v1/worker/gpu/model_runner.py``: ``profile_run`` runs the decoder and the sampler
    only; measured: 0.46 GiB of activations on LightOnOCR-2-1B, no encoder), so the encoder's
    peak must fit in the memory vLLM leaves outside its ``gpu_memory_utilization`` share.
    0.33's runner profiles it.
``dense_pixtral_mask``
    Pixtral's vision attention (LightOnOCR 1/2) builds one ``N x N`` bf16 mask over every patch
    of the encoder batch (``pixtral.py``: ``generate_block_attention_mask`` then
    ``scaled_dot_product_attention``; no xformers in the wheel), so its memory grows with the
    square of the batch: 6 pages at ``max_num_batched_tokens`` 16384 asked for 5.34 GiB more
    and ran out on the H200. 0.33 uses a variable-length attention instead.
``reserves_cudagraphs``
    The KV cache is sized after taking the CUDA-graph memory out (the V1 runner's
    ``profile_cudagraph_memory``, on by default since 0.21). 0.26's default V2 runner captures
    the graphs after the KV cache is allocated (measured: estimate 0, then "Graph capturing
    finished … took 0.12-0.42 GiB"), from the memory outside its share.
``honours_stream_interval``
    The request field ``stream_interval`` (tokens per streamed event) is obeyed; 0.26 accepts
    and ignores it (one event a token, measured).

Unknown versions get the behaviour of the oldest supported release at or below them (the
safe side: an older runner that profiles less), and versions above the newest that of the
newest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The range the ``[vllm]`` extra declares (pyproject.toml) and the contract lane checks.
OLDEST = "0.26.0"
NEWEST = "0.33.0"


@dataclass(frozen=True)
class VllmBehaviour:
    version: str
    profiles_encoder: bool
    dense_pixtral_mask: bool
    honours_stream_interval: bool
    reserves_cudagraphs: bool


_KNOWN = (
    VllmBehaviour(
        "0.26.0",
        profiles_encoder=False,
        dense_pixtral_mask=True,
        honours_stream_interval=False,
        reserves_cudagraphs=False,
    ),
    VllmBehaviour(
        "0.33.0",
        profiles_encoder=True,
        dense_pixtral_mask=False,
        honours_stream_interval=True,
        reserves_cudagraphs=True,
    ),
)


def version_key(version: str) -> tuple[int, int, int]:
    """``"0.26.0rc1+cu130"`` -> ``(0, 26, 0)``; anything unreadable sorts as the oldest."""
    match = re.match(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    if not match:
        return (0, 0, 0)
    major, minor, patch = match.groups()
    return (int(major), int(minor), int(patch or 0))


def behaviour(version: str | None) -> VllmBehaviour:
    """The behaviour of ``version``; ``None`` (not known: no vLLM here, a server not asked
    yet) plans for the oldest supported release, which is safe on every newer one."""
    if not version:
        return _KNOWN[0]
    key = version_key(version)
    chosen = _KNOWN[0]
    for known in _KNOWN:
        if version_key(known.version) <= key:
            chosen = known
    return chosen


def installed_version() -> str | None:
    """The vLLM installed in this Python, without importing it (``None`` when absent)."""
    from importlib import metadata

    try:
        return metadata.version("vllm")
    except metadata.PackageNotFoundError:
        return None
