"""Soak: 1,000 pages of many documents through the CLI's server engine against a faulty server.

The whole user path (``python -m workbench ocr … --engine vllm-server``, a real subprocess)
against the fake OpenAI server with a fault plan (:mod:`tests.fakes.soak_server`, its own
process): about 5 % of pages have their connection reset mid-answer, 1 % hang, 1 % loop,
1 % get HTTP 500 (some once, some always), and the server is killed (SIGKILL) and started
again on the same port once, in the middle. Pages are flat colours whose RGB is the page's
id, in multi-frame TIFFs of 1 to 20 pages, so the server knows each page and the check knows
what each page must end as.

Measured and checked, in one run:

* every page written exactly once (one ``page-NNNN.json`` each, one progress line each, one
  manifest entry each) with its true status: ``ok`` (recovered resets and 500s included),
  ``error`` with the right reason (a hang: "timed out"; a 500 every time: "server error
  500"), ``looped``; none lost, none duplicated;
* the CLI process's memory (VmRSS, and its peak VmHWM) every 100 pages;
* pages/s, beside the floor: the same pages through the same CLI against the same server
  with no faults, in the same run (the ratio is the cost of the faults and the restart);
* ``--kill``: the CLI killed (SIGKILL) halfway, run again to the end; the folder must equal
  an uninterrupted run's (page files byte for byte; page JSON and manifest but for timings).

    python -m benchmarks.soak [--pages 1000] [--seed 25] [--timeout 5] [--concurrency 16]
                              [--no-floor] [--kill]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from itertools import cycle
from pathlib import Path
from typing import Any

from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.soak_server import colour, expected, fault_plan  # noqa: E402

#: seconds the server takes per completion: a model's time, small (the restart is made while
#: completions are in flight: it must cost pages mid-answer, not fall between them)
DELAY_S = 0.1
DOC_SIZES = (12, 1, 7, 20, 3, 10, 5)  # pages per document, cycled: many documents, mixed
#: manifest and page JSON keys that differ between two runs of the same pages: timings, run
#: identity, and the server's address (each run here has its own server, on its own port)
IGNORED = {"seconds", "created", "updated", "finished", "id", "name", "base_url"}


def make_inputs(folder: Path, n: int) -> dict[str, list[int]]:
    """TIFFs whose frames are pages 1..n (flat colour = id); file name → its page ids."""
    folder.mkdir(parents=True, exist_ok=True)
    docs: dict[str, list[int]] = {}
    sizes, next_id = cycle(DOC_SIZES), 1
    while next_id <= n:
        ids = list(range(next_id, min(next_id + next(sizes), n + 1)))
        name = f"doc-{len(docs) + 1:04d}.tif"
        frames = [Image.new("RGB", (256, 330), colour(i)) for i in ids]
        frames[0].save(folder / name, "TIFF", save_all=True, append_images=frames[1:],
                       compression="tiff_deflate")  # fmt: skip
        docs[name] = ids
        next_id = ids[-1] + 1
    return docs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SoakServer:
    """The faulty server as its own process; :meth:`restart` kills it and starts it again."""

    def __init__(
        self, n: int, seed: int, log: Path, *, faults: bool = True, delay: float = DELAY_S
    ) -> None:
        self.port, self.n, self.seed, self.log = free_port(), n, seed, log
        self.faults, self.delay = faults, delay
        self.starts = 0
        self.restarted_busy = 0  # completions in flight when it was last killed
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> SoakServer:
        module = "tests.fakes.soak_server" if self.faults else "tests.fakes.openai_server"
        args = ["--pages", str(self.n), "--seed", str(self.seed), "--log", str(self.log),
                "--delay", f"{self.delay:g}"]  # fmt: skip
        if not self.faults:
            args = ["--delay", f"{self.delay:g}", "--model", "lightonai/LightOnOCR-2-1B"]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, "--port", str(self.port), *args],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self.starts += 1
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{self.url}/models", timeout=1)
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the soak server did not start")

    def busy(self) -> int:
        """Completions being answered now: in flight at the server, less the hung ones (a
        hang holds its request open for good, in this server process)."""
        try:
            with urllib.request.urlopen(f"{self.url.removesuffix('/v1')}/fake/stats") as r:
                in_flight = int(json.loads(r.read())["in_flight"])
        except OSError:
            return 0
        hangs = {i for i, kind in fault_plan(self.n, self.seed).items() if kind == "hang"}
        return in_flight - sum(1 for x in self.log.read_text().split() if int(x) in hangs)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()  # SIGKILL: a crash, not a clean shutdown
            self.proc.wait()

    def restart(self, down_s: float = 1.0) -> None:
        self.restarted_busy = self.busy()
        self.kill()
        time.sleep(down_s)
        self.start()


def cli(inputs: list[Path], out: Path, url: str, timeout: float, concurrency: int) -> list[str]:
    return [sys.executable, "-m", "workbench", "ocr", *map(str, inputs), "--out", str(out),
            "--engine", "vllm-server", "--base-url", url, "--timeout", f"{timeout:g}",
            "--concurrency", str(concurrency)]  # fmt: skip


def written(out: Path) -> int:
    return sum(1 for d in out.iterdir() if d.is_dir() for _ in d.glob("page-*[0-9].json"))


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of ``pid`` in MiB; zeros once it is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0, 0.0
    kb = {k: int(v.split()[0]) for k, v in (ln.split(":", 1) for ln in status.splitlines())
          if k in ("VmRSS", "VmHWM")}  # fmt: skip
    return kb.get("VmRSS", 0) / 1024, kb.get("VmHWM", 0) / 1024


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...); [] once gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (its worker pools)."""
    return [int(e.name) for e in Path("/proc").iterdir()
            if e.name.isdigit() and _stat(int(e.name))[1:2] == [str(pid)]]  # fmt: skip


def survivors(pids: list[int], wait_s: float = 10.0) -> list[int]:
    """Those of ``pids`` still running after up to ``wait_s`` (a worker whose parent died must
    go within a second or two, see ``workbench.engines.pool.exit_with``)."""
    deadline = time.monotonic() + wait_s
    while True:
        alive = [p for p in pids if _stat(p)[:1] not in ([], ["Z"])]  # a zombie has gone
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


@dataclass
class Watched:
    code: int
    seconds: float
    stderr: str
    orphans: list[int] = field(default_factory=list)  # the killed CLI's workers still alive
    memory: list[tuple[int, float, float, float]] = field(default_factory=list)  # pages, s, MB


def watch(
    command: list[str],
    out: Path,
    *,
    every: int = 100,
    restart: tuple[int, SoakServer] | None = None,
    kill_at: int | None = None,
) -> Watched:
    """Run the CLI; note its memory every ``every`` pages; restart the server once at a page
    count; SIGKILL the CLI at ``kill_at`` pages."""
    started = time.monotonic()
    err = out.with_name(out.name + ".stderr")
    with err.open("w") as stderr:
        proc = subprocess.Popen(command, cwd=ROOT, stderr=stderr, stdout=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})  # fmt: skip
        result = Watched(0, 0.0, "")
        mark, peak = every, 0.0
        while proc.poll() is None:
            time.sleep(0.1)
            rss, hwm = memory_mb(proc.pid)
            peak = max(peak, hwm)
            done = written(out) if out.exists() else 0
            while done >= mark:
                result.memory.append((mark, time.monotonic() - started, rss, peak))
                mark += every
            if restart is not None and done >= restart[0] and restart[1].busy() > 0:
                restart[1].restart()  # with completions in flight: they are lost mid-answer
                restart = None
            if kill_at is not None and done >= kill_at:
                workers = children(proc.pid)
                proc.send_signal(signal.SIGKILL)
                kill_at = None
                proc.wait()
                result.orphans = survivors(workers)
        result.code = proc.returncode
    result.seconds = time.monotonic() - started
    result.stderr = err.read_text()
    return result


def check(out: Path, docs: dict[str, list[int]], n: int, seed: int, stderr: str) -> Counter[str]:
    """Every page once, with its true status (module docstring); the statuses counted.
    Raises AssertionError naming the first page that is wrong."""
    want = expected(n, seed)
    manifest = json.loads((out / "manifest.json").read_text())
    entries = Counter((e["document"], e["page"]) for e in manifest["pages"])
    assert all(c == 1 for c in entries.values()), "a page is listed twice in the manifest"
    progress = Counter(
        (line.split(":")[0], int(line.split(" page ")[1].split()[0]))
        for line in stderr.splitlines()
        if line.startswith("doc-") and " page " in line and "/" in line
    )
    seen: Counter[str] = Counter()
    for name, ids in docs.items():
        folder = out / Path(name).stem
        for page, pid in enumerate(ids, start=1):
            files = list(folder.glob(f"page-{page:04d}.json"))
            assert len(files) == 1, f"{name} page {page} (id {pid}) was not written"
            result = json.loads(files[0].read_text())
            status, reason = want[pid]
            assert result["status"] == status, f"{name} p{page} id {pid}: {result['status']}"
            assert reason in (result.get("error") or ""), f"id {pid}: {result.get('error')}"
            if status == "ok":
                assert f"soak page {pid}," in result["markdown"], f"id {pid}: another's text"
            assert entries[(name, page)] == 1, f"{name} page {page} not in the manifest"
            if progress:
                assert progress[(name, page)] == 1, f"{name} page {page} reported {progress}"
            seen[status] += 1
    assert sum(seen.values()) == n == len(entries)
    return seen


def _normal(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items() if k not in IGNORED}
    if isinstance(value, list):
        items = [_normal(v) for v in value]
        return sorted(items, key=json.dumps) if all(isinstance(v, dict) for v in items) else items
    return value


def differences(a: Path, b: Path) -> list[str]:
    """How run folder ``b`` differs from ``a``: files, bytes, JSON but for timings."""
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    diff = [f"only in one: {p}" for p in sorted(files_a ^ files_b)]
    for rel in sorted(files_a & files_b):
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if rel.suffix == ".json":
            if _normal(json.loads(x)) != _normal(json.loads(y)):
                diff.append(f"differs: {rel}")
        elif x != y:
            diff.append(f"differs: {rel}")
    return diff


@dataclass
class Resumed:
    diff: list[str]  # how the killed-and-rerun folder differs from the uninterrupted one
    killed_at: int  # pages the killed run had written
    orphans: list[int]  # processes of the killed CLI still alive 10 s after the kill


def kill_and_resume(work: Path, n: int, seed: int, timeout: float, concurrency: int) -> Resumed:
    """An uninterrupted run and one killed halfway then rerun."""
    docs = make_inputs(work / "inputs", n)
    inputs = [work / "inputs" / name for name in docs]
    outs = []
    killed_at, orphans = 0, []
    for label, kill in (("whole", False), ("killed", True)):
        server = SoakServer(n, seed, work / f"{label}.log").start()
        out = work / label
        try:
            first = watch(cli(inputs, out, server.url, timeout, concurrency), out,
                          kill_at=n // 2 if kill else None)  # fmt: skip
            if kill:
                assert first.code == -signal.SIGKILL, first.stderr[-2000:]
                killed_at, orphans = written(out), first.orphans
                watch(cli(inputs, out, server.url, timeout, concurrency), out)
        finally:
            server.kill()
        check(out, docs, n, seed, "")
        outs.append(out)
    return Resumed(differences(*outs), killed_at, orphans)


def soak(work: Path, n: int, seed: int, timeout: float, concurrency: int, floor: bool) -> dict:
    docs = make_inputs(work / "inputs", n)
    inputs = [work / "inputs" / name for name in docs]
    report: dict[str, Any] = {"pages": n, "documents": len(docs), "plan": Counter(
        fault_plan(n, seed).values())}  # fmt: skip
    if floor:
        server = SoakServer(n, seed, work / "floor.log", faults=False).start()
        try:
            clean = watch(cli(inputs, work / "floor", server.url, timeout, concurrency),
                          work / "floor")  # fmt: skip
        finally:
            server.kill()
        report["floor_s"] = clean.seconds
    server = SoakServer(n, seed, work / "soak.log").start()
    try:
        run = watch(cli(inputs, work / "soak", server.url, timeout, concurrency), work / "soak",
                    restart=(n // 2, server))  # fmt: skip
    finally:
        server.kill()
    report.update(code=run.code, seconds=run.seconds, memory=run.memory, starts=server.starts,
                  killed_busy=server.restarted_busy)  # fmt: skip
    report["statuses"] = check(work / "soak", docs, n, seed, run.stderr)
    requests = Counter(int(x) for x in (work / "soak.log").read_text().split())
    report["requests"] = sum(requests.values())
    plan = report["plan"]  # requests the faults alone call for: retries and loop re-asks
    planned = n + plan["reset"] + plan["500once"] + 2 * plan["500"] + 2 * plan["loop"]
    report["restart_retries"] = report["requests"] - planned  # pages in flight at the kill
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--timeout", type=float, default=5.0, help="the CLI's --timeout (s)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--no-floor", action="store_true", help="skip the no-fault run")
    parser.add_argument("--kill", action="store_true", help="also the kill -9 and resume check")
    parser.add_argument("--work", type=Path, help="folder for inputs and runs (default: temp)")
    args = parser.parse_args()
    import tempfile

    work = args.work or Path(tempfile.mkdtemp(prefix="soak-"))
    r = soak(work, args.pages, args.seed, args.timeout, args.concurrency, not args.no_floor)
    print(f"{r['pages']} pages in {r['documents']} documents; faults planned: "
          f"{dict(r['plan'])}; one server restart (SIGKILL) at page {args.pages // 2}")  # fmt: skip
    print(f"server started {r['starts']} times; {r['killed_busy']} completion(s) in flight at "
          "the kill")  # fmt: skip
    print(
        f"CLI exit {r['code']}; {r['requests']} requests ({r['restart_retries']} of them "
        f"retries of pages in flight at the restart); statuses {dict(r['statuses'])}"
    )
    rate = r["pages"] / r["seconds"]
    print(f"soak: {r['seconds']:.1f} s, {rate:.1f} pages/s")
    if "floor_s" in r:
        floor = r["floor_s"]
        print(f"floor (same pages, no faults): {floor:.1f} s, {r['pages'] / floor:.1f} pages/s; "
              f"soak/floor time {r['seconds'] / floor:.2f}")  # fmt: skip
    print("pages  seconds  VmRSS MiB  peak VmHWM MiB")
    for pages, seconds, rss, peak in r["memory"]:
        print(f"{pages:5d}  {seconds:7.1f}  {rss:9.1f}  {peak:14.1f}")
    if args.kill:
        resumed = kill_and_resume(work / "kill", min(args.pages, 200), args.seed,
                                  args.timeout, args.concurrency)  # fmt: skip
        diff = resumed.diff
        print(
            f"kill -9 at {resumed.killed_at} pages written, rerun: {len(diff)} difference(s) "
            f"from an uninterrupted run"
            + (f": {diff[:5]}" if diff else "")
            + f"; {len(resumed.orphans)} of its processes left running"
        )
    print(f"work folder: {work}")


if __name__ == "__main__":
    main()
