"""OpenAI chat messages and sampling bodies for VLM engines.

Contract: one page is one conversation ``[system?, user]``; the user turn holds the page image
and the prompt text (omitted when the spec has no prompt, e.g. LightOnOCR plain mode), in the
order the model was trained on: image first, unless ``PageRequest.prompt_first`` (olmOCR 2:
``build_page_query`` and its training configs put the text first). Over HTTP the image
travels as a ``data:image/png;base64,...`` URL; in-process vLLM can take the PIL image itself
(``image_pil`` part), which skips the PNG round trip.

Sampling maps onto the OpenAI body: ``temperature``, ``top_p``, ``max_tokens``, then
``repetition_penalty`` when set, then :attr:`Sampling.extra` verbatim (vLLM accepts its own
extensions such as ``top_k``, ``min_p`` or ``skip_special_tokens`` in the same body).
In-process the same values become ``vllm.SamplingParams`` keywords
(:func:`sampling_params_kwargs`): the request field ``vllm_xargs`` is ``extra_args`` there.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.png import data_url, encode_png
from workbench.schema import Sampling

Message = dict[str, Any]


def image_data_url(image: Image.Image) -> str:
    """The image as a PNG data URL, encoded losslessly by :func:`workbench.engines.png.encode_png`
    (JPEG artefacts change what an OCR model reads)."""
    return data_url(encode_png(image))


def image_url_part(image: Image.Image) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image_data_url(image)}}


def image_pil_part(image: Image.Image) -> dict[str, Any]:
    """vLLM's in-process image part (no encoding)."""
    return {"type": "image_pil", "image_pil": image.convert("RGB")}


def build_messages(request: PageRequest, image_part: dict[str, Any] | None = None) -> list[Message]:
    """The conversation for one page; ``image_part`` defaults to a PNG data URL."""
    content: list[dict[str, Any]] = [image_part or image_url_part(request.image)]
    if request.prompt:
        text = {"type": "text", "text": request.prompt}
        content.insert(0 if request.prompt_first else 1, text)
    messages: list[Message] = []
    if request.system:
        messages.append({"role": "system", "content": request.system})
    messages.append({"role": "user", "content": content})
    return messages


def sampling_body(sampling: Sampling) -> dict[str, Any]:
    """Sampling as OpenAI/vLLM request fields (also valid ``SamplingParams`` keywords)."""
    body: dict[str, Any] = {
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
        "max_tokens": sampling.max_tokens,
    }
    if sampling.repetition_penalty is not None:
        body["repetition_penalty"] = sampling.repetition_penalty
    body.update(sampling.extra)
    return body


def sampling_params_kwargs(sampling: Sampling) -> dict[str, Any]:
    """Sampling as ``vllm.SamplingParams`` keywords: the HTTP body, with ``vllm_xargs`` (a
    request field of vLLM's OpenAI server) passed as ``extra_args`` (the SamplingParams field
    the server fills from it), which is where per-request logits-processor arguments live."""
    kwargs = sampling_body(sampling)
    xargs = kwargs.pop("vllm_xargs", None)
    if xargs:
        kwargs["extra_args"] = {**kwargs.get("extra_args", {}), **xargs}
    return kwargs


def chat_body(
    model: str, request: PageRequest, sampling: Sampling, image_url: str | None = None
) -> dict[str, Any]:
    """The full ``POST /v1/chat/completions`` body for one attempt at one page.

    ``image_url`` lets a caller encode the page once and reuse it across retries."""
    part = {"type": "image_url", "image_url": {"url": image_url}} if image_url else None
    body: dict[str, Any] = {"model": model, "messages": build_messages(request, part)}
    body.update(sampling_body(sampling))
    if request.chat_template_kwargs:
        merged = {**body.get("chat_template_kwargs", {}), **request.chat_template_kwargs}
        body["chat_template_kwargs"] = merged
    return body


#: Tokens per streamed event asked of the server: vLLM's per-request ``stream_interval``
#: (clamped up to its ``--stream-interval``; the first and last events still come at once).
#: An event per token, vLLM's default, costs the client's one main process about 40 µs of CPU
#: each, some 60 ms a page of 1500 tokens (``benchmarks/throughput.py``, "Streamed answers");
#: at 16 tokens an event that is lost in the noise, a hung server is still seen within
#: seconds and a repetition loop is still cut within 16 tokens.
STREAM_INTERVAL = 16
#: The streaming fields only vLLM knows: a server that refuses them is asked again without.
VLLM_STREAM_FIELDS = ("stream_interval", "continuous_usage_stats")


def streamed(body: dict[str, Any], *, vllm: bool = True) -> dict[str, Any]:
    """``body`` asking for an event stream with the token usage at its end (OpenAI); with
    ``vllm``, also :data:`STREAM_INTERVAL` tokens an event and the running token count in
    every event (``continuous_usage_stats``), so progress counts tokens, not events."""
    options: dict[str, Any] = {"include_usage": True}
    out = {**body, "stream": True, "stream_options": options}
    if vllm:
        options["continuous_usage_stats"] = True
        out["stream_interval"] = STREAM_INTERVAL
    return out
