"""The fake OpenAI server with a fault plan, for the soak (``benchmarks/soak.py``).

Every soak page is a flat colour whose RGB value is the page's id (1..n): the server reads the
id from the image it is sent, so it knows the page whatever the order, the retries or the
restarts. :func:`fault_plan` (n, seed) picks, the same on both sides, which pages get which
fault; :func:`expected` says the status each page must end with:

========  ================================================  ============================
kind      what the server does                              the page's true status
========  ================================================  ============================
reset     first request: closes the connection mid-answer   ok (the retry is answered)
500once   first request: HTTP 500                           ok (the retry is answered)
hang      every request: accepts and never answers          error, "timed out"
loop      every request: a repetition loop (max_tokens)     looped
500       every request: HTTP 500                           error, "server error 500"
========  ================================================  ============================

Other pages are answered with their own text (:func:`page_text`). Rates (of n, at least one
each): :data:`RATES`. Each request's page id is appended to ``--log`` (one line each) before
it is answered, and read back at start, so a server restarted (killed and started again on the
same port, as the soak does mid-run) still knows which pages it has seen: "first request"
means first ever, across restarts.

    python -m tests.fakes.soak_server --port 8000 --pages 1000 --seed 25 --log requests.log
"""

from __future__ import annotations

import argparse
import random
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import LOOP_TEXT, FakeOpenAIServer, Reply, request_image

MODEL = "lightonai/LightOnOCR-2-1B"  # a served name the registry knows: its parser runs
#: share of the pages that get each fault (issue 25: ~5 % resets, 1 % hangs, 1 % loops, a few
#: 500s, some of which recover)
RATES = {"reset": 0.05, "hang": 0.01, "loop": 0.01, "500": 0.004, "500once": 0.006}
#: the status each kind of page must end with, and a text its error must contain
EXPECTED = {
    "ok": ("ok", ""),
    "reset": ("ok", ""),
    "500once": ("ok", ""),
    "hang": ("error", "timed out"),
    "loop": ("looped", ""),
    "500": ("error", "server error 500"),
}


def fault_plan(n: int, seed: int) -> dict[int, str]:
    """Page id (1..n) → fault kind, for the pages that get one."""
    rng = random.Random(seed)
    ids = list(range(1, n + 1))
    rng.shuffle(ids)
    plan: dict[int, str] = {}
    for kind, rate in RATES.items():
        for _ in range(max(1, round(rate * n))):
            plan[ids.pop()] = kind
    return plan


def expected(n: int, seed: int) -> dict[int, tuple[str, str]]:
    """Page id → (status, a text its error contains) for every page 1..n."""
    plan = fault_plan(n, seed)
    return {i: EXPECTED[plan.get(i, "ok")] for i in range(1, n + 1)}


def page_text(page_id: int) -> str:
    return f"# Page {page_id}\n\nText of soak page {page_id}, read by the fake server.\n"


def page_id(rgb: tuple[int, int, int]) -> int:
    r, g, b = rgb
    return (r << 16) | (g << 8) | b


def colour(page: int) -> tuple[int, int, int]:
    return ((page >> 16) & 255, (page >> 8) & 255, page & 255)


class Responder:
    """The plan applied per request, with the request log (see the module docstring)."""

    def __init__(self, n: int, seed: int, log: Path) -> None:
        self.plan = fault_plan(n, seed)
        self.log = log
        self.seen: Counter[int] = Counter()
        if log.exists():
            self.seen.update(int(line) for line in log.read_text().split())
        self.faults: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        image = request_image(body)
        pid = page_id(image.convert("RGB").getpixel((0, 0))) if image is not None else 0  # type: ignore[arg-type]
        with self._lock:
            first = self.seen[pid] == 0
            self.seen[pid] += 1
            with self.log.open("a") as handle:
                handle.write(f"{pid}\n")
        kind = self.plan.get(pid, "ok")
        text = page_text(pid)
        if kind == "hang":
            return Reply(text, fault="stall", after=0)
        if kind == "loop":
            return Reply(LOOP_TEXT, "length")
        if kind == "500" or (kind == "500once" and first):
            return Reply("fake failure", status=500)
        if kind == "reset" and first:
            return Reply(text, fault="close", after=2, chunk_chars=8)
        return Reply(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds per completion")
    args = parser.parse_args(argv)
    respond = Responder(args.pages, args.seed, args.log)
    server = FakeOpenAIServer(respond=respond, models=[MODEL], delay=args.delay, port=args.port)
    print(f"soak server on {server.base_url}", flush=True)
    try:
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()


if __name__ == "__main__":
    main()
