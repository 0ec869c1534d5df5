"""Turn (model spec, plan) into a ``vllm serve`` command line and ``vllm.LLM`` kwargs.

Precedence, lowest first: the spec's recommended ``vllm_args`` (model needs:
``trust_remote_code``, ``mm_processor_kwargs``, ``max_model_len`` …) < the profile's engine
arguments (hardware: ``max_num_seqs``, ``kv_cache_dtype`` …) < the plan's
``gpu_memory_utilization``, ``max_model_len`` and ``limit_mm_per_prompt`` (this GPU, now).

:func:`engine_kwargs` are ``EngineArgs`` fields only (``vllm.LLM(**kwargs)`` passes them to
``EngineArgs``, a dataclass that raises TypeError on anything else). The spec's
``serve_args`` (frontend-only flags such as ``default_chat_template_kwargs``) are added by
:func:`serve_argv` alone, looked up from the registered model named in ``kwargs["model"]``.

Flag spelling follows vLLM 0.33's argparse: ``snake_case`` → ``--kebab-case``; booleans are
``BooleanOptionalAction`` (``--enforce-eager`` / ``--no-enforce-eager``); dict values are
JSON (``--limit-mm-per-prompt '{"image": …}'``); ``max_model_len=-1`` is written ``auto``.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from workbench.gpu.planner import MemoryPlan
from workbench.models import ModelSpec, match_served_model

ORDER = (
    "gpu_memory_utilization",
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "kv_cache_dtype",
    "block_size",
    "enforce_eager",
    "enable_prefix_caching",
    "mm_processor_cache_gb",
    "limit_mm_per_prompt",
)


def engine_kwargs(model_id: str, spec: ModelSpec | None, plan: MemoryPlan) -> dict[str, Any]:
    """``vllm.LLM(**kwargs)`` for this model on this GPU (``model`` included); the profile's
    arguments come in through ``plan`` (the plan holds them, sized for this GPU)."""
    merged: dict[str, Any] = dict(spec.vllm_args) if spec else {}
    merged.pop("model", None)
    merged.update(plan.engine_args)  # the plan already holds the profile's args
    if "gpu_memory_utilization" not in plan.engine_args:  # vLLM 0.34: sized from measurement;
        merged.pop("gpu_memory_utilization", None)  # a spec's habitual 0.85 only withholds KV
    spec_limit = (spec.vllm_args if spec else {}).get("limit_mm_per_prompt")
    if isinstance(spec_limit, dict):  # keep the spec's other modalities, size from the plan
        merged["limit_mm_per_prompt"] = {**spec_limit, **plan.engine_args["limit_mm_per_prompt"]}
    ordered = {k: merged.pop(k) for k in ORDER if k in merged}
    return {"model": model_id, **ordered, **dict(sorted(merged.items()))}


def _flag_value(value: Any) -> str:
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def serve_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` plus the server-only flags of the model it names (if registered)."""
    spec = match_served_model(str(kwargs.get("model", "")))
    return {**kwargs, **(spec.serve_args if spec else {})}


def serve_argv(kwargs: dict[str, Any]) -> list[str]:
    args = serve_kwargs(kwargs)
    argv = ["vllm", "serve", str(args.pop("model"))]
    for key, value in args.items():
        if value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + flag[2:])
        elif key == "max_model_len" and value == -1:
            argv += [flag, "auto"]
        else:
            argv += [flag, _flag_value(value)]
    return argv


def serve_command(kwargs: dict[str, Any]) -> str:
    """One shell-safe line: ``vllm serve MODEL --flag value …``."""
    return shlex.join(serve_argv(kwargs))


def llm_snippet(kwargs: dict[str, Any]) -> str:
    """Python source that builds the engine: ``vllm.LLM(model=…, …)``."""
    body = "".join(f"    {k}={v!r},\n" for k, v in kwargs.items())
    return f"import vllm\n\nllm = vllm.LLM(\n{body})\n"


#: Stands for the page's base64 in the example bodies (replaced by each example's own way of
#: reading ``page.png``).
_IMAGE = "@@PAGE_PNG_BASE64@@"
EXAMPLE_BASE_URL = "http://localhost:8000/v1"


def example_body(spec: ModelSpec, model: str | None = None) -> dict[str, Any]:
    """The ``/v1/chat/completions`` body the workbench sends for one page of ``spec``'s model
    (:func:`workbench.engines.messages.chat_body`: its prompt, prompt order, system message,
    sampling and chat-template arguments), the page's data URL left as a placeholder."""
    from PIL import Image

    from workbench.engines.base import PageRequest
    from workbench.engines.messages import chat_body

    request = PageRequest(
        key="page.png#1",
        image=Image.new("RGB", (1, 1)),  # never encoded: the URL below stands for it
        prompt=spec.prompt,
        sampling=spec.sampling,
        system=spec.system,
        chat_template_kwargs=dict(spec.chat_template_kwargs),
        prompt_first=spec.prompt_first,
    )
    url = f"data:image/png;base64,{_IMAGE}"
    return chat_body(model or spec.id, request, spec.sampling, image_url=url)


def example_curl(
    spec: ModelSpec, model: str | None = None, base_url: str = EXAMPLE_BASE_URL
) -> str:
    """A shell command that sends ``page.png`` to the served model as the workbench does (the
    body built by ``jq``, the image read from a file: a page's base64 is longer than one
    command-line argument may be)."""
    body = json.dumps(example_body(spec, model), ensure_ascii=False, indent=1)
    quoted = f'"data:image/png;base64,{_IMAGE}"'
    jq_filter = body.replace(quoted, '("data:image/png;base64," + $img)')
    return (
        f"curl -s {shlex.quote(base_url.rstrip('/') + '/chat/completions')} \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        f"  -d @<(jq -n --rawfile img <(base64 -w0 page.png) {shlex.quote(jq_filter)}) \\\n"
        "  | jq -r '.choices[0].message.content'"
    )


def example_python(
    spec: ModelSpec, model: str | None = None, base_url: str = EXAMPLE_BASE_URL
) -> str:
    """Python with the OpenAI client sending ``page.png`` as the workbench does; fields the
    OpenAI API does not name (``repetition_penalty``, ``chat_template_kwargs``…) go in
    ``extra_body``, as vLLM's documentation does."""
    import pprint

    body = example_body(spec, model)
    standard = {k: body.pop(k) for k in ("model", "messages", "temperature", "top_p", "max_tokens")
                if k in body}  # fmt: skip
    messages = pprint.pformat(standard.pop("messages"), indent=1, width=88, sort_dicts=False)
    messages = messages.replace(
        f"'data:image/png;base64,{_IMAGE}'", 'f"data:image/png;base64,{image}"'
    )
    args = "".join(f"    {k}={v!r},\n" for k, v in standard.items())
    extra = f"    extra_body={body!r},\n" if body else ""
    return (
        "import base64\n\nfrom openai import OpenAI\n\n"
        f'client = OpenAI(base_url="{base_url}", api_key="EMPTY")\n'
        "# page.png: the page at the model's size; a run folder's page-0001.png is exactly\n"
        "# the image the workbench sent.\n"
        'image = base64.b64encode(open("page.png", "rb").read()).decode()\n'
        "response = client.chat.completions.create(\n"
        f"    messages={messages},\n{args}{extra})\n"
        "print(response.choices[0].message.content)\n"
    )
