"""The CLI's memory against the number of its inputs (issue 31.5): N noise TIFFs of about
8 MB each through ``python -m workbench ocr DIR --engine vllm-server`` (a real subprocess)
against the fake OpenAI server; prints the CLI's peak RSS (``ru_maxrss`` of the children:
the largest process, the CLI itself) for each N. Memory should not grow with N: inputs are
read at their turn and let go after.

    python -m benchmarks.input_memory [--inputs 20 60] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402


def peak_rss_mb(n: int, concurrency: int, work: Path) -> float:
    """Peak RSS (MB) of one CLI run over ``n`` inputs, in a child process of its own."""
    inputs = work / f"in-{n}"
    inputs.mkdir(parents=True)
    rng = np.random.default_rng(1)
    for i in range(n):  # noise: ~8.2 MB each as TIFF, and it does not compress
        pixels = rng.integers(0, 255, (1600, 1700, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(inputs / f"doc-{i:03d}.tif")
    probe = (
        "import resource, subprocess, sys; "
        "r = subprocess.run(sys.argv[1:], capture_output=True); "
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    with FakeOpenAIServer() as server:
        args = [sys.executable, "-m", "workbench", "ocr", str(inputs), "--out",
                str(work / f"out-{n}"), "--engine", "vllm-server", "--base-url",
                server.base_url, "--spec", "lightonai/LightOnOCR-2-1B", "--quiet",
                "--concurrency", str(concurrency)]  # fmt: skip
        done = subprocess.run([sys.executable, "-c", probe, *args], cwd=ROOT, text=True,
                              capture_output=True, check=True)  # fmt: skip
    code, kib = done.stdout.split()
    assert code == "0", f"the CLI exited {code}"
    return int(kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, nargs="+", default=[20, 60])
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="input-memory-") as tmp:
        for n in args.inputs:
            mb = peak_rss_mb(n, args.concurrency, Path(tmp))
            print(f"{n:4d} inputs of ~8.2 MB: CLI peak RSS {mb:6.0f} MB")


if __name__ == "__main__":
    main()
