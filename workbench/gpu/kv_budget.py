"""The bytes a vLLM release gives its KV cache, by how that release sizes it.

Two allocators, picked by :attr:`VllmBehaviour.extensible_kv`
(:mod:`workbench.gpu.vllm_versions` names the source of each):

``estimate``    (up to 0.33) ``util x total - weights - activation peak - CUDA graphs -
                non-torch``: the share is fixed before anything runs and the profile's peak
                comes out of it (``v1/worker/gpu_worker.py::determine_available_memory``).
``extensible``  (0.34) after warm-up and graph capture, from the memory measured free:
                ``min(util x total - resident, free_after - margin) - transient peak`` with
                ``margin = max(1 GiB, 0.75 x transient peak)``, ``resident`` = weights + CUDA
                graphs + non-torch and ``free_after = free - CUDA context - resident``
                (``v1/worker/extensible_kv_cache.py::measure_kv_cache_bytes``). ``util``
                defaults to 1.0 there and is only passed to keep room for co-tenants.

:func:`utilization` is the ``gpu_memory_utilization`` each plans with and whether it must be
passed at all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.gpu.encoder import CONTEXT_BYTES
from workbench.gpu.vllm_versions import VllmBehaviour
from workbench.models import ModelSpec
from workbench.models.architectures import Architecture

GiB = 1024**3
#: ``KV_CACHE_MARGIN_FLOOR_BYTES`` and ``KV_CACHE_MARGIN_FRACTION`` of vLLM 0.34 (CUDA).
KV_SAFETY_DIVISOR = 50  # max_model_len asks at most fit - fit/50 where the KV cache limits it
EXTENSIBLE_MARGIN_FLOOR = 1 * GiB
EXTENSIBLE_MARGIN_FRACTION = 0.75
#: ``CONTEXT_BYTES`` (encoder.py): the CUDA context and workspaces present before vLLM
#: measures free memory.
__all__ = ["CONTEXT_BYTES", "Utilization", "kv_bytes", "utilization"]


EXTENSIBLE_NOTE = (
    "vLLM {} sizes the KV cache after warm-up from the memory then free, keeping max(1 GiB, "
    "0.75 x the activation peak) + the peak free; the plan predicts that size (pass it as "
    "kv_cache_memory_bytes for the same size on every start)"
)


@dataclass(frozen=True)
class Utilization:
    value: float  # what vLLM will use (its default when not passed)
    passed: bool  # False: leave gpu_memory_utilization out of the arguments


def utilization(
    behaviour: VllmBehaviour, cap: float, total: int, free: int, margin: int
) -> Utilization:
    """Estimate-sized releases: ``min(profile cap, (free - margin) / total)``, always passed
    (vLLM refuses to start when free < util x total). Extensible: 1.0 and not passed on an
    idle card; with co-tenants holding more than ``margin``, what is free now, passed, so
    the cache leaves them their room even if they grow back into it."""
    fitted = max(min(cap, (free - margin) / total), 0.0)
    if not behaviour.extensible_kv:
        return Utilization(fitted, True)
    if free >= total - margin:
        return Utilization(behaviour.default_utilization, False)
    return Utilization(max((free - margin) / total, 0.0), True)


def kv_bytes(
    behaviour: VllmBehaviour,
    *,
    util: float,
    total: int,
    free: int,
    weights: int,
    activations: int,
    graphs: int,
    non_torch: int,
) -> int:
    """Bytes for the KV cache (module doc); may be ≤ 0 when nothing is left."""
    if not behaviour.extensible_kv:
        return math.floor(util * total) - weights - activations - graphs - non_torch
    resident = weights + graphs + non_torch
    free_after = free - CONTEXT_BYTES - resident
    margin = max(EXTENSIBLE_MARGIN_FLOOR, int(activations * EXTENSIBLE_MARGIN_FRACTION))
    return min(math.ceil(util * total) - resident, free_after - margin) - activations


def kv_fit(
    arch: Architecture, spec: ModelSpec, budget: int, bpb: int, block_size: int,
    per_page: int, max_seqs: int,
) -> tuple[int, int, int, int]:  # fmt: skip
    """(KV blocks, the context they fit, ``max_model_len``, pages at once) for a KV budget."""
    state = arch.state_bytes_per_seq
    blocks = max((budget - state) // bpb, 0) if budget > 0 else 0
    fit = max(blocks - 1, 0) * block_size
    # Where the KV cache limits the context, ask 2 % less than predicted: the prediction was
    # within +0.1 % of vLLM's on the H200 runs, and vLLM refuses to start a longer one.
    limits = [fit - fit // KV_SAFETY_DIVISOR, arch.max_position_embeddings]
    requested = spec.vllm_args.get("max_model_len")
    if isinstance(requested, int) and requested > 0:
        limits.append(requested)
    blocks_per_page = math.ceil(per_page / block_size)
    # Each running page holds its blocks plus (hybrid) one GDN state, taken from the same pool.
    per_page_bytes = blocks_per_page * bpb + state
    usable = max(blocks - 1, 0) * bpb + state
    in_flight = min(max_seqs, usable // per_page_bytes) if per_page_bytes else 0
    return blocks, fit, min(limits), int(in_flight)
