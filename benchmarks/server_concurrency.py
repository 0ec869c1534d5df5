"""Pages in flight against an OpenAI-compatible server: concurrency 1 against the default.

Runs the same 64-page document through :class:`VllmServerEngine` against the fake OpenAI
server (tests/fakes/openai_server.py, a real HTTP server on 127.0.0.1, started as its own
process like a real ``vllm serve``) answering each page after a fixed delay, once per
concurrency, side by side in one run, and prints the wall times and their ratio. Pages are
the PDFs in tests/data rasterized at 100 DPI (cycled to 64 pages), or generated pages when
there are none.

    python -m benchmarks.server_concurrency [--pages 64] [--delay 0.5] [--concurrency 1 32]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from benchmarks.throughput_procs import fake_server  # noqa: E402
from workbench.engines.base import PageRequest  # noqa: E402
from workbench.engines.messages import image_data_url  # noqa: E402
from workbench.engines.server.engine import VllmServerEngine  # noqa: E402
from workbench.settings import Settings  # noqa: E402


def _pdf_pages(limit: int) -> tuple[list[Image.Image], str]:
    import pypdfium2 as pdfium

    pages: list[Image.Image] = []
    names = []
    for path in sorted((ROOT / "tests" / "data").glob("*.pdf")):
        try:
            pdf = pdfium.PdfDocument(str(path))
        except Exception:
            continue
        names.append(path.name)
        for index in range(len(pdf)):
            pages.append(pdf[index].render(scale=100 / 72).to_pil().convert("RGB"))
            if len(pages) >= limit:
                return pages, ", ".join(names)
    return pages, ", ".join(names)


def _generated(n: int) -> list[Image.Image]:
    images = []
    for i in range(n):
        image = Image.new("RGB", (850, 1100), "white")
        ImageDraw.Draw(image).text((80, 80), f"Page {i + 1}\n\nSome text.", fill="black")
        images.append(image)
    return images


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, Settings().concurrency])
    parser.add_argument("--generated", action="store_true", help="blank generated pages only")
    args = parser.parse_args()

    images, source = ([], "") if args.generated else _pdf_pages(args.pages)
    if not images:
        images, source = _generated(args.pages), "generated pages"
    pages = [images[i % len(images)] for i in range(args.pages)]
    requests = [
        PageRequest(key=f"doc#{i + 1}", image=img, prompt="OCR") for i, img in enumerate(pages)
    ]
    print(
        f"{len(requests)} pages ({len(images)} distinct, from {source}), "
        f"{args.delay:g} s per request on the fake OpenAI server"
    )

    started = time.perf_counter()
    for image in pages:
        image_data_url(image)
    print(
        f"PNG + base64 encoding of all pages, serial: {time.perf_counter() - started:.2f} s "
        "(the floor on this machine's cores, whatever the concurrency)"
    )

    results: dict[int, float] = {}
    print(f"{'concurrency':>11}  {'wall s':>8}  {'pages/s':>8}  {'max in flight':>13}  {'ok':>4}")
    for concurrency in args.concurrency:
        with fake_server(args.delay) as base_url:
            engine = VllmServerEngine(base_url, concurrency=concurrency, timeout=60)
            started = time.perf_counter()
            outputs = list(engine.run(requests))
            wall = time.perf_counter() - started
            engine.close()
            stats = httpx.get(base_url.removesuffix("/v1") + "/fake/stats").json()
        ok = sum(o.ok for o in outputs)
        results[concurrency] = wall
        print(
            f"{concurrency:>11}  {wall:>8.2f}  {len(requests) / wall:>8.1f}  "
            f"{stats['max_in_flight']:>13}  {ok:>4}"
        )
    first, *rest = args.concurrency
    for concurrency in rest:
        print(
            f"speed-up concurrency {concurrency} vs {first}: "
            f"{results[first] / results[concurrency]:.1f}x"
        )


if __name__ == "__main__":
    main()
