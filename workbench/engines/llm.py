"""The ``vllm.LLM`` object itself: imported lazily, its failed start explained, what vLLM chose
read back, and its GPU memory given back; :mod:`workbench.engines.vllm_local` drives it.

Contract
--------
* :func:`import_vllm` imports ``vllm`` or raises :class:`EngineUnavailable` with
  :data:`INSTALL_HINT`.
* :func:`load_error` turns the exception of a failed ``vllm.LLM(...)`` into the message the user
  sees: what vLLM said, the cause its EngineCore logged (or the import behind "inspected"), and
  the fix that cause needs where one is known.
* :func:`read_actual` reads back what vLLM chose (``max_model_len``, ``num_gpu_blocks``,
  ``block_size``, ``kv_tokens``; None where this vLLM does not say).
* :func:`free` gives the GPU back (vllm.md §1): EngineCore shutdown, del, ``gc.collect()``,
  ``cleanup_dist_env_and_memory()``, ``torch.cuda.empty_cache()``; never raises.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import logging
from types import ModuleType
from typing import Any

from workbench.engines.dead import known_fix, log_cause
from workbench.engines.load_cause import inspection_cause, vllm_said
from workbench.errors import EngineUnavailable

log = logging.getLogger(__name__)

INSTALL_HINT = "vLLM is not installed: pip install -e '.[vllm]' (needs an NVIDIA GPU)"


def import_vllm() -> ModuleType:
    try:
        return importlib.import_module("vllm")
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT) from None


def attr_path(obj: Any, dotted: str) -> Any:
    """``obj.a.b.c`` for ``"a.b.c"``, or None where any step is missing (vLLM's layout moves)."""
    for name in dotted.split("."):
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


def load_error(exc: BaseException, model: str, logged: str) -> EngineUnavailable:
    """The error to raise for ``exc`` from ``vllm.LLM(model=...)``; ``logged`` is what vLLM
    logged (WARNING and up) while it was built, its EngineCore's log included."""
    core = log_cause(logged)  # a failed EngineCore's, which exc points to
    text = vllm_said(exc)
    cause = core or inspection_cause(text)  # or the import behind "inspected"
    where = "its EngineCore" if core else "importing the model's code"
    said = f"{text} ({where}: {cause})" if cause and cause not in text else text
    fix = known_fix(cause or text, "in-process")
    said = f"{said}. {fix}" if fix else said
    return EngineUnavailable(f"vLLM could not load {model}: {said}")


def read_actual(llm: Any) -> dict[str, int | None]:
    config = attr_path(llm, "llm_engine.vllm_config")
    max_len = attr_path(config, "model_config.max_model_len")
    blocks = attr_path(config, "cache_config.num_gpu_blocks")
    block_size = attr_path(config, "cache_config.block_size")
    kv_tokens = blocks * block_size if blocks and block_size else None
    return {
        "max_model_len": max_len,
        "num_gpu_blocks": blocks,
        "block_size": block_size,
        "kv_tokens": kv_tokens,
    }


def free(llm: Any) -> None:
    """Shut ``llm``'s EngineCore down and give its GPU memory back (the caller drops its own
    references first: ``llm`` must be the last one)."""
    core = attr_path(llm, "llm_engine.engine_core")
    if core is not None and hasattr(core, "shutdown"):
        try:
            core.shutdown()
        except Exception:
            log.exception("vLLM engine core shutdown failed")
    del llm, core
    gc.collect()
    try:
        from vllm.distributed.parallel_state import cleanup_dist_env_and_memory

        cleanup_dist_env_and_memory()
    except Exception:
        log.exception("vLLM distributed cleanup failed")
    with contextlib.suppress(Exception):
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
