"""Engine ``vllm``: a ``vllm.LLM`` built in this process (vLLM 0.33 offline API).

Contract
--------
* ``engine_args`` are passed to ``vllm.LLM`` as given (the GPU profiles and memory planner
  compute them); ``max_model_len`` defaults to ``-1`` (vLLM fits the largest that the KV
  cache allows). What vLLM actually chose is read back into :attr:`VllmLocalEngine.actual`
  (``max_model_len``, ``num_gpu_blocks``, ``block_size``, ``kv_tokens``) and ``describe()``.
* :meth:`run` sends all pages of a batch in ONE ``llm.chat(conversations, sampling_list)``
  call (vLLM schedules them itself). Pages whose answer loops are retried together in the
  next call with the next sampling of their schedule (:mod:`workbench.engines.repetition`);
  pages that are done are yielded after each call. If a whole call fails (one malformed
  request fails the batch in vLLM) its pages are retried one by one so only the bad page
  gets ``error``. A call that fails because the engine died (vLLM's ``EngineDeadError``,
  CUDA out of memory: :mod:`workbench.engines.dead`) is not retried page by page: the engine
  is marked dead, that call's pages and every page after them fail at once with one
  :class:`~workbench.errors.EngineDeadError` message naming the cause and the fix, and
  nothing more is sent to vLLM (:attr:`dead`). Pages sharing ``chat_template_kwargs`` share
  a call (``llm.chat`` takes one dict for all). ``seconds`` of an attempt is the page's
  share of its call's wall time.
* :meth:`close` frees GPU memory (vLLM 0.33 has no ``LLM.shutdown``): shut the EngineCore
  child process down, drop the ``LLM``, ``gc.collect()``, ``cleanup_dist_env_and_memory()``,
  ``torch.cuda.empty_cache()``. Idempotent.
* ``vllm`` and ``torch`` are imported lazily; without vLLM the constructor raises
  :class:`EngineUnavailable` saying how to install it.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import logging
import time
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

from workbench.engines.base import EngineOutput, PageRequest
from workbench.engines.dead import dead_in_process
from workbench.engines.messages import build_messages, image_pil_part, sampling_params_kwargs
from workbench.engines.repetition import MAX_ATTEMPTS, PageAttempts
from workbench.errors import EngineDeadError, EngineUnavailable
from workbench.schema import Sampling

log = logging.getLogger(__name__)

INSTALL_HINT = "vLLM is not installed: pip install -e '.[vllm]' (needs an NVIDIA GPU)"


def import_vllm() -> ModuleType:
    try:
        return importlib.import_module("vllm")
    except ImportError:
        raise EngineUnavailable(INSTALL_HINT) from None


def _path(obj: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        obj = getattr(obj, name, None)
        if obj is None:
            return None
    return obj


class VllmLocalEngine:
    name = "vllm"
    # All pages of a document in one llm.chat call (vLLM schedules them); capped so a
    # thousand-page PDF does not hold a thousand page images in host memory at once.
    batch_size = 256

    def __init__(
        self,
        model: str,
        engine_args: dict[str, Any] | None = None,
        *,
        max_model_len: int | None = None,
        max_attempts: int = MAX_ATTEMPTS,
    ) -> None:
        vllm = import_vllm()
        self.model = model
        self.max_attempts = max_attempts
        args: dict[str, Any] = {"max_model_len": -1, **(engine_args or {})}
        if max_model_len is not None:
            args["max_model_len"] = max_model_len
        args.pop("model", None)
        self.engine_args = args
        self.dead: EngineDeadError | None = None  # set once vLLM's engine died: send no more
        self._sampling_params = vllm.SamplingParams
        try:
            self._llm: Any = vllm.LLM(model=model, **args)
        except Exception as exc:  # OOM, unknown arch, bad arg: the user must see why
            raise EngineUnavailable(f"vLLM could not load {model}: {exc}") from exc
        self.actual: dict[str, int | None] = self._read_actual()

    # ------------------------------------------------------------------ introspection
    def _read_actual(self) -> dict[str, int | None]:
        config = _path(self._llm, "llm_engine.vllm_config")
        max_len = _path(config, "model_config.max_model_len")
        blocks = _path(config, "cache_config.num_gpu_blocks")
        block_size = _path(config, "cache_config.block_size")
        kv_tokens = blocks * block_size if blocks and block_size else None
        return {
            "max_model_len": max_len,
            "num_gpu_blocks": blocks,
            "block_size": block_size,
            "kv_tokens": kv_tokens,
        }

    def describe(self) -> dict[str, str]:
        info = {"engine": self.name, "model": self.model}
        for key in ("gpu_memory_utilization", "max_num_seqs", "kv_cache_dtype"):
            if key in self.engine_args:
                info[key] = str(self.engine_args[key])
        info["max_model_len (asked)"] = str(self.engine_args.get("max_model_len"))
        for key, value in self.actual.items():
            info[key] = "?" if value is None else str(value)
        return info

    @property
    def closed(self) -> bool:
        return self._llm is None

    def close(self) -> None:
        """Free the GPU (vllm.md §1): EngineCore shutdown, del, gc, dist cleanup, empty_cache."""
        llm, self._llm = getattr(self, "_llm", None), None
        if llm is None:
            return
        core = _path(llm, "llm_engine.engine_core")
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

    # ------------------------------------------------------------------ generation
    def _params(self, sampling: Sampling) -> Any:
        return self._sampling_params(**sampling_params_kwargs(sampling))

    def _chat(
        self, pages: list[PageAttempts], template_kwargs: dict[str, Any]
    ) -> list[tuple[PageAttempts, Sampling, Any | None, str | None]]:
        """One ``llm.chat`` for ``pages``; on failure, one call per page to isolate it.

        Returns (page, sampling, vLLM output or None, error or None) per page."""
        samplings = [p.next_sampling or p.request.sampling for p in pages]
        if self.dead is not None:  # nothing is sent to a dead engine
            return [(p, s, None, str(self.dead)) for p, s in zip(pages, samplings, strict=True)]
        try:
            conversations = [
                build_messages(p.request, image_pil_part(p.request.image)) for p in pages
            ]
            outputs = self._llm.chat(
                conversations,
                [self._params(s) for s in samplings],
                use_tqdm=False,
                chat_template_kwargs=template_kwargs or None,
            )
            return [(p, s, o, None) for p, s, o in zip(pages, samplings, outputs, strict=True)]
        except Exception as exc:
            self.dead = self.dead or dead_in_process(exc, len(pages))
            if self.dead is not None:  # retrying page by page would only fail page by page
                log.error("vLLM engine died: %s", self.dead.cause)
                return self._chat(pages, template_kwargs)
            if len(pages) == 1:
                return [(pages[0], samplings[0], None, f"vLLM failed on this page: {exc}")]
            log.warning("vLLM batch of %d failed (%s); retrying page by page", len(pages), exc)
        results = []
        for page in pages:  # once one of them kills the engine, the rest fail without a call
            results.extend(self._chat([page], template_kwargs))
        return results

    def run(self, requests: Sequence[PageRequest]) -> Iterator[EngineOutput]:
        if self._llm is None:
            for request in requests:
                yield EngineOutput(key=request.key, error="the vLLM engine was closed")
            return
        if self.dead is not None:  # nothing is sent to a dead engine
            for request in requests:
                yield EngineOutput(key=request.key, error=str(self.dead))
            return
        pending = [PageAttempts(r, self.max_attempts) for r in requests]
        while pending:
            groups: dict[str, list[PageAttempts]] = {}
            for page in pending:
                key = json.dumps(page.request.chat_template_kwargs, sort_keys=True, default=str)
                groups.setdefault(key, []).append(page)
            for pages in groups.values():
                started = time.monotonic()
                results = self._chat(pages, pages[0].request.chat_template_kwargs)
                share = (time.monotonic() - started) / len(pages)
                for page, sampling, output, error in results:
                    if output is None:
                        page.record_error(sampling, error or "vLLM returned nothing", share)
                        continue
                    completion = output.outputs[0]
                    page.record(
                        sampling,
                        str(completion.text),
                        completion.finish_reason,
                        len(completion.token_ids or ()),
                        share,
                    )
                for page in pages:
                    if page.done:
                        yield page.output()
            pending = [p for p in pending if not p.done]
