"""Chandra's own client: a vLLM server driven the way Chandra's CLI drives it (issue 34's bar).

What Chandra does (chandra-ocr 0.2.0, the PyPI wheel that ships Chandra OCR 2,
sha256 11a9fffa…8a8ed4; github.com/datalab-to/chandra at a6928a2 has the same batching for
Chandra 1):

* ``chandra/scripts/cli.py``: the input's files **one after another**; each file's pages in
  batches of ``--batch-size`` (**28** for ``--method vllm``); ``model.generate(batch)`` returns
  when every page of the batch has its answer, and only then is the next batch sent (a
  **barrier**: the batch's slowest page holds the next 28 back);
* ``chandra/model/vllm.py`` ``generate_vllm``: a ``ThreadPoolExecutor`` of
  ``min(64, len(batch))`` workers, one non-streamed ``chat.completions.create`` a page: one user
  turn ``[image_url (PNG data URL), text prompt]``, ``max_tokens`` (12,384), ``temperature``
  0, ``top_p`` 0.1; a page is retried (up to 6 times, hotter) on a repeated token or an error;
* ``chandra/scripts/vllm.py``: the server (``SERVE_ARGS``; ``python3 benchmarks/chandra_client.py
  --serve-args`` prints them for a shell).

Here: the same pages the workbench sends (its renderer at Chandra's sizing, the PNG bytes
prepared before the clock starts, as the raw client's), the same request body and the same
batching and barrier, sent with httpx from one event loop (the server sees what Chandra's
threads send). Retries are off: with random weights every answer runs to ``max_tokens``, and
the comparison is at a fixed output length. ``--max-tokens`` replaces the 12,384.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any

#: Chandra's pages per batch (cli.py, ``--method vllm``) and its worker cap (vllm.py).
BATCH = 28
WORKERS = 64
#: ``chandra/scripts/vllm.py --gpu h100`` (chandra-ocr 0.2.0): vLLM's flags, H100 80GB being
#: its baseline (``max_num_batched_tokens`` 8192 and ``max_num_seqs`` 64 at 80 GB, scaled by
#: memory for other cards). It runs ``vllm/vllm-openai:v0.17.0`` with ``--served-model-name
#: chandra``; the model is given by the caller.
SERVE_ARGS: tuple[str, ...] = (
    "--no-enforce-eager", "--max-num-seqs", "64", "--dtype", "bfloat16",
    "--max-model-len", "18000", "--max_num_batched_tokens", "8192",
    "--gpu-memory-utilization", ".85", "--enable-prefix-caching",
    "--mm-processor-kwargs", json.dumps({"min_pixels": 3136, "max_pixels": 6291456}),
)  # fmt: skip


def chandra_body(model: str, prompt: str | None, png: bytes, max_tokens: int) -> bytes:
    """The body Chandra's ``_generate`` posts for one page (the OpenAI client adds nothing
    the server reads)."""
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": url}}]
    if prompt:
        content.append({"type": "text", "text": prompt})
    body = {"model": model, "messages": [{"role": "user", "content": content}],
            "max_tokens": max_tokens, "temperature": 0.0, "top_p": 0.1}  # fmt: skip
    return json.dumps(body).encode()


def batches(docs: list[list[bytes]], size: int = BATCH) -> list[list[bytes]]:
    """Each document's pages in batches of ``size``, documents in order (never mixed)."""
    return [doc[i : i + size] for doc in docs for i in range(0, len(doc), size)]


async def send_batches(url: str, groups: list[list[bytes]], warm: list[bytes]) -> tuple[float, int]:
    """``warm`` first (not timed: the server's first requests pay lazy start-up), then every
    group with at most ``min(WORKERS, len(group))`` in flight, the next group only once the
    whole group is answered. Returns (seconds, failed answers)."""
    import httpx

    limits = httpx.Limits(max_connections=WORKERS, max_keepalive_connections=WORKERS)
    headers = {"Content-Type": "application/json"}
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(3600.0)) as client:

        async def one(gate: asyncio.Semaphore, body: bytes) -> bool:
            async with gate:
                response = await client.post(url, content=body, headers=headers)
                return response.status_code != 200

        await asyncio.gather(*(one(asyncio.Semaphore(WORKERS), b) for b in warm))
        failed = 0
        started = time.perf_counter()
        for group in groups:  # the barrier: generate_vllm returns when the batch is done
            gate = asyncio.Semaphore(min(WORKERS, len(group)))
            failed += sum(await asyncio.gather(*(one(gate, b) for b in group)))
        return time.perf_counter() - started, failed


def run(
    base_url: str, model: str, prompt: str | None, docs: list[list[bytes]], max_tokens: int,
    batch: int = BATCH,
) -> dict[str, Any]:  # fmt: skip
    """Chandra's CLI over ``docs`` (each a document's page PNGs) against ``base_url``."""
    bodies = [[chandra_body(model, prompt, png, max_tokens) for png in doc] for doc in docs]
    groups = batches(bodies, batch)
    warm = [b for doc in bodies for b in doc][:4]
    seconds, failed = asyncio.run(send_batches(f"{base_url}/chat/completions", groups, warm))
    pages = sum(len(doc) for doc in docs)
    return {"pages": pages, "seconds": seconds, "failed": failed, "batches": len(groups),
            "batch": batch}  # fmt: skip


if __name__ == "__main__":
    import shlex
    import sys

    if sys.argv[1:] == ["--serve-args"]:
        print(shlex.join(SERVE_ARGS))
    else:
        sys.exit("usage: python3 benchmarks/chandra_client.py --serve-args")
