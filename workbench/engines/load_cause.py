"""Why vLLM could not load a model when it says only "check the logs".

vLLM inspects a model's architecture by importing its module in a subprocess; when that import
fails it raises ``Model architectures ['X'] failed to be inspected. Please check the logs for
more details.`` and the cause stays in that subprocess's log (measured 2026-12-06 on an H100,
vLLM 0.26: Chandra OCR 2's ``qwen3_5.py`` imports ``compressed_tensors`` through
``quantization/auto_awq.py``, which the environment lacked; the user saw only the line above).

:func:`inspection_cause` imports the named architectures' classes through vLLM's own
``ModelRegistry`` (``models[arch].load_model_cls()``, what the subprocess does) and returns the
first error as ``"Type: message"``; None when the message is not an inspection failure, vLLM's
registry cannot be read, or every class imports (the fix of such a cause is
:func:`~workbench.engines.dead.known_fix`'s). vLLM is imported lazily (only when the message
calls for it).
"""

from __future__ import annotations

import re
from typing import Any

_INSPECTED = re.compile(r"Model architectures \[([^\]]*)\] failed to be inspected")


def vllm_said(exc: BaseException) -> str:
    """What vLLM said in ``exc``, without pydantic's frame (module contract). vLLM's config
    classes are pydantic dataclasses: their ``ValidationError`` reads "1 validation error for
    ModelConfig / Value error, <vLLM's message> [type=value_error, input_value=ArgsKwargs(...)]
    / For further information visit https://errors.pydantic.dev/..." (the H100, 2026-12-06);
    this gives "ModelConfig: <vLLM's message>" (each error's, joined by "; "). Any other
    exception: its ``str``."""
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ != "ValidationError" or not callable(errors):
        return str(exc)
    try:
        found = [e for e in errors() if isinstance(e, dict)]
    except Exception:  # another library's ValidationError: its own words
        return str(exc)
    said = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in found)
    if not said:
        return str(exc)
    title = getattr(exc, "title", "")
    return f"{title}: {said}" if title else said


def inspection_cause(message: str, registry: Any = None) -> str | None:
    """The import error behind vLLM's "failed to be inspected" in ``message`` (module
    contract). ``registry``: vLLM's ``ModelRegistry`` (read from vLLM when None)."""
    found = _INSPECTED.search(message)
    if found is None:
        return None
    if registry is None:
        try:
            from vllm.model_executor.models import registry as vllm_registry
        except Exception:  # no vLLM, or another layout of it: nothing more to say
            return None
        registry = getattr(vllm_registry, "ModelRegistry", None)
    models = getattr(registry, "models", {})
    for arch in re.findall(r"'([^']+)'", found.group(1)):
        entry = models.get(arch) if isinstance(models, dict) else None
        if entry is None or not hasattr(entry, "load_model_cls"):
            continue
        try:
            entry.load_model_cls()
        except Exception as exc:  # the cause vLLM's subprocess logged
            return f"{type(exc).__name__}: {exc}"
    return None
