"""Pages/s of ``ocr --ray`` on a real local Ray cluster with 1 and then 2 worker nodes.

Starts a head node (1 CPU, pinned to core 0) on 127.0.0.2 with ``ray start``, runs the CLI
with the embedded CPU engine on the same pages into a fresh folder, adds a second node (1 CPU,
core 1, 127.0.0.3),
runs again into another fresh folder, and prints both wall times, pages/s and the speed-up,
side by side in one run. Each figure times the whole command a user runs (connect, engine
load on the workers, prepare, OCR, write). A local run (no Ray) of the same pages is printed
beside them as the yardstick.

    python benchmarks/ray_cluster.py [--copies 4]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
#: Scanned pages (no text layer): each is seconds of OCR, so the work, not Ray's fixed cost of
#: starting workers and loading the models once per worker, is what is measured.
PDFS = ["scan_huckfinn_c03-29.pdf", "scan_two_columns.pdf"]
RAY = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
ENV = {
    **os.environ,
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_AUTH_MODE": "token",
    "RAY_AUTH_TOKEN": secrets.token_hex(32),
}


def ray(*args: str, core: int | None = None) -> None:
    """``ray start``/``stop``; ``core`` pins the node (and the workers it starts) to one CPU,
    so that a node is one CPU's worth of work, as on separate machines (the CPU engine's
    threads would otherwise spread one node over every core of this machine)."""
    pin = ["taskset", "-c", str(core)] if core is not None and shutil.which("taskset") else []
    subprocess.run([*pin, RAY, *args], check=True, env=ENV, capture_output=True, timeout=300)


def ocr(inputs: list[Path], out: Path, *extra: str) -> float:
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "workbench", "ocr", *map(str, inputs), "--out", str(out)]
    proc = subprocess.run([*cmd, "--quiet", *extra], env=ENV, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=4, help="copies of each scanned page")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="wb-ray-bench-"))
    inputs: list[Path] = []
    for i in range(args.copies):
        for name in PDFS:
            data = (DATA / name).read_bytes() + f"\n%copy {i}\n".encode()  # distinct content
            path = work / "in" / f"{Path(name).stem}-{i}.pdf"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            inputs.append(path)
    pages = len(PDFS) * args.copies
    address = "127.0.0.2:6391"
    rows: list[tuple[str, float]] = [("local CLI, no Ray (2 cores)", ocr(inputs, work / "local"))]
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"]
    ray("start", "--head", "--node-ip-address=127.0.0.2", "--port=6391", *common, core=0)
    try:
        rows.append(("Ray, 1 worker node (1 core)", ocr(inputs, work / "ray1", "--ray", address)))
        ray("start", f"--address={address}", "--node-ip-address=127.0.0.3", *common, core=1)
        time.sleep(2)
        rows.append(
            ("Ray, 2 worker nodes (1 core each)", ocr(inputs, work / "ray2", "--ray", address))
        )
    finally:
        subprocess.run([RAY, "stop", "--force"], env=ENV, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    print(f"{pages} scanned pages (CPU engine), whole command timed\n")
    print(f"{'setup':<36}{'wall s':>8}{'pages/s':>9}")
    for name, seconds in rows:
        print(f"{name:<36}{seconds:>8.1f}{pages / seconds:>9.2f}")
    print(f"\nspeed-up 2 nodes vs 1 node: {rows[1][1] / rows[2][1]:.2f}x")


if __name__ == "__main__":
    main()
