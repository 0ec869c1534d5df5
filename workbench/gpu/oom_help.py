"""What to do when vLLM runs out of GPU memory: its errors by their text, and the myths.

Data, not logic: :data:`ERRORS` is a typed table of the messages vLLM (and PyTorch under it)
prints when memory runs out, each with what it means and the knob that fixes it;
:data:`MYTHS` corrects the popular advice, each next to the profiles it concerns. The GPU page
and ``workbench plan`` render both; :func:`explain` matches a pasted log to its entries
(``workbench plan --explain-error "…"``).

Every quoted text was read in vLLM's own source, the 0.26.0 and 0.33.0 wheels (the supported
range's ends); ``source`` gives file::function inside the ``vllm/`` package. Texts that vLLM
builds with f-strings are quoted up to the first number, so they match every version that
prints them. The run-time encoder entry is the failure measured on the H200
(benchmarks/gpu_probe_results.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from workbench.gpu.planner import MemoryPlan

Stage = Literal["start-up", "run time", "any"]


@dataclass(frozen=True)
class OomEntry:
    """One error: ``says`` is the text as printed; ``requires`` are case-insensitive regexes
    that must all occur in a log for it to match, ``any_of`` (if given) one of which must,
    ``unless`` none of which may."""

    key: str
    title: str
    says: str
    stage: Stage
    source: str
    means: str
    fix: str
    knobs: tuple[str, ...]
    requires: tuple[str, ...]
    any_of: tuple[str, ...] = ()
    unless: tuple[str, ...] = ()  # a log holding any of these is not this error
    profiles: tuple[str, ...] = ()  # the profiles it concerns most; () = every GPU profile

    def matches(self, text: str) -> bool:
        def has(pattern: str) -> bool:
            return re.search(pattern, text, re.I) is not None

        found = all(map(has, self.requires)) and not any(map(has, self.unless))
        return found and (not self.any_of or any(map(has, self.any_of)))


@dataclass(frozen=True)
class Myth:
    """Popular advice and what is true instead."""

    key: str
    claim: str
    truth: str
    source: str
    profiles: tuple[str, ...] = ()  # () = every GPU profile


_OOM = r"CUDA out of memory|OutOfMemoryError"

#: Most specific first: :func:`explain` returns matches in this order, the root cause before
#: the consequences (a dead engine, the bare "CUDA out of memory").
ERRORS: tuple[OomEntry, ...] = (
    OomEntry(
        "free-memory-at-start",
        "Other processes hold the memory vLLM asked for",
        "ValueError: Free memory on device cuda:0 (…/… GiB) on startup is less than desired "
        "GPU memory utilization (…, … GiB). Decrease GPU memory utilization or reduce GPU "
        "memory used by other processes.",
        "start-up",
        "v1/worker/utils.py::request_memory (0.26, 0.33)",
        "gpu_memory_utilization is a fraction of the card's TOTAL memory; vLLM refuses to "
        "start when less than that is free (another vLLM, a notebook, the desktop).",
        "Lower gpu_memory_utilization to (free - 1 GiB) / total, which the workbench's plan "
        "does from the free memory it reads (re-plan with the other process running), or stop "
        "the other process (the GPU page lists them).",
        ("gpu_memory_utilization",),
        (r"on startup is less than desired GPU memory utilization",),
    ),
    OomEntry(
        "sampler-warmup",
        "No memory for the sampler's warm-up",
        "RuntimeError: CUDA out of memory occurred when warming up sampler with N dummy "
        "requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` …",
        "start-up",
        "v1/worker/gpu_model_runner.py::GPUModelRunner._dummy_sampler_run (0.26, 0.33)",
        "vLLM samples max_num_seqs dummy requests at start-up (fp32 logits over the whole "
        "vocabulary each); that batch did not fit beside the weights.",
        "Lower max_num_seqs (the profile's value for 7-9 B models is the smaller one).",
        ("max_num_seqs",),
        (r"out of memory occurred when warming up sampler",),
    ),
    OomEntry(
        "no-cache-blocks",
        "No memory left for the KV cache",
        "ValueError: No available memory for the cache blocks. Try increasing "
        "`gpu_memory_utilization` when initializing the engine …",
        "start-up",
        "v1/core/kv_cache_planning.py::_check_enough_kv_cache_memory (0.33); "
        "v1/core/kv_cache_utils.py::_check_enough_kv_cache_memory (0.26); with "
        "max_model_len auto: 'Cannot auto-fit max_model_len: not enough GPU memory available "
        "to serve even a single token', from ::_auto_fit_max_model_len in the same files",
        "After the weights, the start-up profile (the vision encoder on the largest page "
        "allowed, a forward of max_num_batched_tokens tokens, the sampler) and the CUDA "
        "graphs, nothing of gpu_memory_utilization x total is left for the KV cache. The log "
        "line before it reads 'Available KV cache memory: -… GiB'.",
        "In this order: a smaller max_num_batched_tokens (a smaller start-up peak); a smaller "
        "page (page_longest_edge, which sets limit_mm_per_prompt's width/height); "
        "enforce_eager=True (no CUDA-graph memory); a higher gpu_memory_utilization only if "
        "the card is otherwise empty; else a smaller or FP8 model.",
        ("max_num_batched_tokens", "page_longest_edge", "enforce_eager", "gpu_memory_utilization"),
        (r"No available memory for the cache blocks|Cannot auto-fit max_model_len",),
    ),
    OomEntry(
        "max-model-len-too-long",
        "max_model_len is longer than the KV cache holds",
        "ValueError: To serve at least one request with the model's max seq len (L), (X GiB "
        "KV cache is needed, which is larger than the available KV cache memory (Y GiB). "
        "Based on the available memory, the estimated maximum model length is Z. … (vLLM "
        "before V1: \"The model's max seq len (L) is larger than the maximum number of tokens "
        'that can be stored in KV cache (N)")',
        "start-up",
        "v1/core/kv_cache_planning.py::_check_enough_kv_cache_memory (0.33); "
        "v1/core/kv_cache_utils.py::_check_enough_kv_cache_memory (0.26); old text: "
        "worker/worker.py::raise_if_cache_size_invalid (V0 engine, removed)",
        "The KV cache left after weights and the start-up profile holds fewer tokens than one "
        "request of max_model_len; vLLM refuses rather than run out later.",
        "Set max_model_len to the estimate vLLM prints (Z) or to what the workbench plans "
        "(plan's max_model_len; 'auto' lets vLLM fit it); or kv_cache_dtype=fp8 (2x tokens); "
        "or the fixes for 'No available memory for the cache blocks', which leave more KV.",
        ("max_model_len", "kv_cache_dtype"),
        (
            r"KV cache is needed, which is larger than the available KV cache memory"
            r"|larger than the maximum number of tokens that can be\s+stored in KV cache",
        ),
    ),
    OomEntry(
        "weights-do-not-fit",
        "The weights alone do not fit",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate … (while loading: "
        "the stack runs through load_model / the model loader, and the log has no 'Model "
        "loading took … GiB memory' line yet)",
        "start-up",
        "PyTorch's allocator, raised inside v1/worker/gpu_model_runner.py::"
        "GPUModelRunner.load_model (0.26, 0.33), which logs 'Model loading took X GiB "
        "memory' only on success",
        "The model's weights (plus ~0.5 GiB of CUDA context) are more than "
        "gpu_memory_utilization x total.",
        "A smaller or FP8 checkpoint (the plan's advice lists the models that fit), or a "
        "bigger card; cpu_offload_gb moves weights to host memory at a large speed cost. No "
        "KV or batch setting helps here.",
        ("model", "gpu_memory_utilization"),
        (_OOM,),
        any_of=(r"load_model|load_weights|model_loader|initialize_model",),
        unless=(r"Model loading took",),  # loading finished: the failure came later
    ),
    OomEntry(
        "encoder-oom-run-time",
        "Out of memory in the vision encoder, at the first batch of pages",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.34 GiB. GPU 0 has a "
        "total capacity of 139.80 GiB of which 3.79 GiB is free … (stack through pixtral.py / "
        "the vision tower, scaled_dot_product_attention), then EngineDeadError",
        "run time",
        "PyTorch's allocator, raised in the model's vision tower (model_executor/models/"
        "pixtral.py for LightOnOCR); measured with vLLM 0.26 on the H200, shared/gpu-lab",
        "vLLM encodes max(max_num_batched_tokens, one page's tokens) tokens of images per "
        "step, and the encoder's attention over all their patches grows with the square of "
        "that batch. vLLM 0.26's default model runner does not profile the encoder, so the "
        "engine starts and the first full batch fails (LightOnOCR-2-1B at 16384: 6-7 pages a "
        "step, out of memory; at 4096, one page a step, 256 pages ran).",
        "Lower max_num_batched_tokens to about one page's tokens (4096 for LightOnOCR at "
        "1540 px) and restart the engine, which is dead after this. If the message says much "
        "is 'reserved by PyTorch but unallocated', also start vLLM with "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (fragmentation).",
        ("max_num_batched_tokens", "PYTORCH_CUDA_ALLOC_CONF"),
        (_OOM,),
        any_of=(
            r"pixtral|vision|visual|siglip|encoder|_process_image_input|embed_multimodal",
            r"scaled_dot_product_attention",
        ),
    ),
    OomEntry(
        "tensor-parallel-one-card",
        "Tensor parallel across more GPUs than there are",
        "ValueError: World size (2) is larger than the number of available GPUs (1) in this "
        "node. …",
        "start-up",
        "config/parallel.py::ParallelConfig.__post_init__ (0.26, 0.33)",
        "tensor_parallel_size splits a model across several cards; one card cannot be split.",
        "tensor_parallel_size=1 (the default; the workbench never sets it).",
        ("tensor_parallel_size",),
        (r"World size \(\d+\) is larger than the number of\s+available GPUs",),
        profiles=("a100-80g", "a100-40g"),
    ),
    OomEntry(
        "no-bf16",
        "The card has no bfloat16",
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. …",
        "start-up",
        "platforms/cuda.py::CudaPlatform.check_if_supports_dtype (0.33)",
        "T4 (7.5) and V100 (7.0) predate bf16; the OCR models are bf16-trained.",
        "Use the CPU engine or an Ampere-or-newer GPU (A10G, L4, A100 …).",
        ("dtype",),
        (r"Bfloat16 is only supported on GPUs",),
        profiles=("t4", "v100"),
    ),
    OomEntry(
        "engine-dead",
        "The engine process died",
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See "
        "stack trace (above) for the root cause.",
        "run time",
        "v1/engine/exceptions.py::EngineDeadError (0.33)",
        "A consequence, not a cause: every later request fails (HTTP 500, then connection "
        "refused). The cause is earlier in the log, most often the vision encoder's out of "
        "memory.",
        "Find the first error above it and apply its fix; the engine must be restarted.",
        ("max_num_batched_tokens",),
        (r"EngineDeadError|EngineCore encountered an issue",),
    ),
    OomEntry(
        "cuda-oom",
        "CUDA out of memory",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate X GiB. GPU 0 has a "
        "total capacity of T GiB of which F GiB is free. …",
        "any",
        "PyTorch's CUDA caching allocator (torch.OutOfMemoryError)",
        "Some allocation did not fit. Where the stack goes says which: model loading (the "
        "weights), the vision tower (the encoder batch), the sampler (max_num_seqs).",
        "Start with the plan's settings; at run time lower max_num_batched_tokens, then "
        "max_num_seqs; with much 'reserved by PyTorch but unallocated', "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
        ("max_num_batched_tokens", "max_num_seqs", "PYTORCH_CUDA_ALLOC_CONF"),
        (_OOM,),
    ),
)

MYTHS: tuple[Myth, ...] = (
    Myth(
        "cuda-malloc-async",
        "Set CUDA_MALLOC_ASYNC=0 (the RTX 4090 uses cudaMallocAsync by default, the A100 "
        "cudaMalloc)",
        "There is no CUDA_MALLOC_ASYNC variable in CUDA, PyTorch or vLLM; setting it does "
        "nothing. PyTorch's allocator is configured by PYTORCH_CUDA_ALLOC_CONF (newer torch "
        "also PYTORCH_ALLOC_CONF), whose backend is 'native' on every GPU unless you write "
        "backend:cudaMallocAsync. Against fragmentation use "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
        "device_allocator/alloc_conf.py reads only PYTORCH_ALLOC_CONF, "
        "PYTORCH_CUDA_ALLOC_CONF, PYTORCH_HIP_ALLOC_CONF (0.33); CUDA_MALLOC_ASYNC occurs "
        "nowhere in the 0.26 or 0.33 source",
    ),
    Myth(
        "tensor-parallel-one-card",
        "Run tensor_parallel_size=2 on one A100 for more memory",
        "It does not start: 'World size (2) is larger than the number of available GPUs "
        "(1)'. Tensor parallelism splits a model over several cards; on one card use a "
        "smaller max_model_len or fp8 KV.",
        "config/parallel.py::ParallelConfig.__post_init__",
        ("a100-80g", "a100-40g"),
    ),
    Myth(
        "chunked-prefill-off",
        "On an L4 turn chunked prefill off (and max_num_seqs 2, block size 16)",
        "Chunked prefill is on by default; turning it off warns 'This model does not "
        "officially support disabling chunked prefill' and raises max_num_batched_tokens to "
        "at least max_model_len, so start-up profiles a longer forward: a bigger peak, a "
        "smaller KV cache. Keep it on and lower max_num_batched_tokens. max_num_seqs=2 "
        "starves a 300 GB/s card; block size 16 is already the default.",
        "engine/arg_utils.py::EngineArgs._set_default_chunked_prefill_and_prefix_caching_args",
        ("l4",),
    ),
    Myth(
        "block-size",
        "A smaller or larger --block-size fixes out of memory (block_size=16 makes 32-byte blocks)",
        "A block is block_size tokens across all layers (1.75 MiB for LightOnOCR-2-1B at 16 "
        "tokens, bf16) and the KV cache is one allocation, so the block size does not change "
        "how much memory is used. FlashAttention and Triton need a multiple of 16, "
        "FlashInfer 16, 32 or 64. Leave it at 16.",
        "v1/attention/backend.py::AttentionBackend.supports_block_size; "
        "v1/worker/utils.py::allocate_kv_cache (one KV tensor)",
        ("l4", "a10g", "rtx-4090", "generic-24gb"),
    ),
    Myth(
        "fp8-kv-speed",
        "kv_cache_dtype=fp8 makes A10G, L4 and 4090 faster (FP8 tensor cores)",
        "fp8 KV halves the KV cache's bytes: twice the tokens, the reason the 24 GB profiles "
        "use it. It is storage, not speed: vLLM's FlashAttention takes fp8 KV only on Hopper "
        "(and Blackwell), so on A10G (sm_86, no FP8 tensor cores) and on L4/4090 (sm_89) "
        "vLLM picks FlashInfer or Triton attention, which dequantise. It shrinks neither the "
        "weights nor the encoder's peak, so it does not fix an encoder out of memory.",
        "v1/attention/backends/fa_utils.py::flash_attn_supports_kv_cache_dtype (0.33)",
        ("a10g", "l4", "rtx-4090", "generic-24gb"),
    ),
    Myth(
        "needs-16gb",
        "LightOnOCR-2-1B needs 16 GB or more (nvidia-smi shows it using most of the card)",
        "Its weights are about 1.9 GiB. nvidia-smi shows what vLLM reserved up front: "
        "gpu_memory_utilization x total, nearly all of it KV cache.",
        "measured: 1.88 GiB of weights with vLLM 0.26 on the H200 (shared/gpu-lab)",
    ),
)


def explain(text: str) -> list[OomEntry]:
    """The entries whose text occurs in ``text`` (a pasted error or log), root cause first;
    empty when none does."""
    return [entry for entry in ERRORS if entry.matches(text)]


@dataclass(frozen=True)
class Cause:
    """One likely cause of a bare out-of-memory line: how to tell it from the others (what to
    look for in the stack or the log) and its fix, with this card's plan's numbers."""

    key: str
    title: str
    tell: str
    fix: str


_ASKED = re.compile(r"Tried to allocate ([\d.]+) ?(GiB|MiB|KiB)", re.I)
_UNALLOCATED = re.compile(r"([\d.]+) ?(GiB|MiB) is reserved by PyTorch but unallocated", re.I)


def _gib(match: re.Match[str] | None) -> float | None:
    if match is None:
        return None
    scale = {"gib": 1.0, "mib": 1 / 1024, "kib": 1 / 1024**2}[match.group(2).lower()]
    return float(match.group(1)) * scale


def bare_oom(text: str) -> bool:
    """Only the out-of-memory line (no stack, no log around it): :func:`explain` can only
    answer with the generic entry, and :func:`likely_causes` says more."""
    return [e.key for e in explain(text)] == ["cuda-oom"]


def likely_causes(text: str, plan: MemoryPlan | None = None) -> list[Cause]:
    """The causes of a bare out-of-memory line, most likely first, ranked by the size of the
    allocation that failed (a step of the vision encoder asks for GiBs at once, a weight
    tensor or the sampler's logits for less) and by the memory PyTorch says it holds unused;
    the fixes carry ``plan``'s numbers (this card's) when given."""
    asked, unused = _gib(_ASKED.search(text)), _gib(_UNALLOCATED.search(text))
    args = plan.engine_args if plan is not None else {}
    mnbt, seqs = args.get("max_num_batched_tokens"), args.get("max_num_seqs")
    enc = plan.encoder if plan is not None else None
    step = (
        f" (this card's plan: {enc.pages_per_step} page(s) a step, encoder peak at most "
        f"{enc.peak_bytes / 1024**3:.2f} GiB)"
        if enc is not None
        else ""
    )
    share = (
        f"{plan.weights_bytes / 1024**3:.2f} GiB of weights in gpu_memory_utilization "
        f"{plan.util_eff:.2f} × {plan.total_bytes / 1024**3:.1f} GiB = "
        f"{plan.util_eff * plan.total_bytes / 1024**3:.1f} GiB"
        if plan is not None
        else "the weights in gpu_memory_utilization × the card's memory"
    )
    causes = {
        "encoder": Cause(
            "encoder",
            "The vision encoder's batch (run time, the first full batch of pages)",
            "The stack runs through the vision tower (pixtral.py, siglip, "
            "_process_image_input, scaled_dot_product_attention), after the log's 'Model "
            "loading took … GiB memory' and once pages were sent; the allocation is large "
            "(GiBs: the attention mask over a step's patches grows with its square).",
            f"max_num_batched_tokens={mnbt or 'one page of image tokens'}{step}, then restart "
            "the engine (it is dead after this).",
        ),
        "fragmentation": Cause(
            "fragmentation",
            "Fragmented memory (enough is free, not in one piece)",
            "The message goes on '… is reserved by PyTorch but unallocated' with about as much "
            "as was asked for, or more.",
            "Start vLLM with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
        ),
        "weights": Cause(
            "weights",
            "The weights do not fit (start-up, while loading)",
            "The stack runs through load_model / model_loader, and the log has no 'Model "
            "loading took' line yet; the allocations are one weight tensor each (MiBs).",
            f"It needs {share}: a smaller or FP8 model, or a bigger card; no batch or KV "
            "setting helps.",
        ),
        "sampler": Cause(
            "sampler",
            "The sampler's warm-up (start-up, after loading)",
            "After 'Model loading took', the stack runs through _dummy_sampler_run / the "
            "sampler; it asks for max_num_seqs × the vocabulary × 4 bytes (hundreds of MiB).",
            f"max_num_seqs={seqs} (this card's plan)." if seqs else "Lower max_num_seqs.",
        ),
    }
    if asked is not None and unused is not None and unused >= asked:
        order = ["fragmentation", "encoder", "weights", "sampler"]
    elif asked is not None and asked < 1.0:
        order = ["weights", "sampler", "encoder", "fragmentation"]
    else:  # GiBs at once, or not said: the encoder, as measured on the H200
        order = ["encoder", "fragmentation", "weights", "sampler"]
    return [causes[k] for k in order]


def for_profile(profile: str) -> tuple[list[OomEntry], list[Myth]]:
    """The errors and myths that concern ``profile``: those for every GPU profile and those
    naming it (tensor parallel on one A100, bf16 on T4/V100, the 24 GB cards' myths)."""
    errors = [e for e in ERRORS if not e.profiles or profile in e.profiles]
    myths = [m for m in MYTHS if not m.profiles or profile in m.profiles]
    return errors, myths


def entry_json(entry: OomEntry) -> dict[str, object]:
    return {
        "error": entry.key,
        "title": entry.title,
        "says": entry.says,
        "when": entry.stage,
        "means": entry.means,
        "fix": entry.fix,
        "knobs": list(entry.knobs),
        "vllm_source": entry.source,
    }


def myth_json(myth: Myth) -> dict[str, object]:
    return {"claim": myth.claim, "truth": myth.truth, "source": myth.source}
