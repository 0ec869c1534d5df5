"""One writer per run folder (issue 31.1): a second process gets a clear refusal, writers of
one folder in one process merge their manifest saves, and two real CLIs racing on one
``--out`` lose no page entry."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from PIL import Image
from test_store import image, info, make_page

from tests.fakes.openai_server import DEFAULT_TEXT, FakeOpenAIServer, Reply
from workbench.errors import StoreError
from workbench.runs import lock
from workbench.runs.folder import RunWriter
from workbench.runs.lock import LOCK_FILE
from workbench.schema import DocumentInfo, RunInfo

ROOT = Path(__file__).resolve().parents[2]


def doc(name: str, sha: str) -> DocumentInfo:
    return DocumentInfo(name=name, sha256=sha * 64, kind="pdf", pages=3)


def run_info(*docs: DocumentInfo) -> RunInfo:
    return info().model_copy(update={"documents": list(docs)})


def entries(run_dir: Path) -> set[tuple[str, int]]:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    return {(e["document"], e["page"]) for e in manifest["pages"]}


def hold_in_child(run_dir: Path) -> subprocess.Popen[str]:
    """A real second process that opens a writer on ``run_dir`` and keeps it until stdin ends."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT / "tests" / "runs")!r})
        from test_store import info
        from workbench.runs.folder import RunWriter
        writer = RunWriter.open({str(run_dir)!r}, info())
        print("holding", flush=True)
        sys.stdin.read()
        writer.finish()
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "holding"
    return child


def test_a_second_process_is_refused_while_the_first_writes(tmp_path: Path) -> None:
    run_dir = tmp_path / "out"
    child = hold_in_child(run_dir)
    try:
        with pytest.raises(StoreError, match=f"being written by process {child.pid}") as err:
            RunWriter.open(run_dir, info())
        assert "Wait until it ends" in str(err.value)
        with pytest.raises(StoreError, match="being written"):
            RunWriter.create(tmp_path / "out", info())
    finally:
        assert child.stdin is not None
        child.stdin.close()
        assert child.wait(timeout=60) == 0
    with RunWriter.open(run_dir, info()) as writer:  # the first one ended: free again
        writer.write_page(make_page("scan.pdf", 1), image())
    assert not (run_dir / LOCK_FILE).exists()  # the last release removes the lock file


def test_a_killed_writer_leaves_no_lock_behind(tmp_path: Path) -> None:
    run_dir = tmp_path / "out"
    child = hold_in_child(run_dir)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    with RunWriter.open(run_dir, info()) as writer:  # the kernel dropped the dead one's lock
        writer.write_page(make_page("scan.pdf", 1), image())
    assert ("scan.pdf", 1) in entries(run_dir)


def test_two_writers_in_one_process_lose_no_entry(tmp_path: Path) -> None:
    run_dir = tmp_path / "out"
    alpha, beta = doc("alpha.pdf", "a"), doc("beta.pdf", "b")
    first = RunWriter.create(run_dir, run_info(alpha))
    second = RunWriter.open(run_dir, run_info(beta))  # the app's Viewer and Batch, say

    def write(writer: RunWriter, name: str) -> None:
        for n in (1, 2, 3):
            writer.write_page(make_page(name, n), image(n))

    threads = [
        threading.Thread(target=write, args=(first, "alpha.pdf")),
        threading.Thread(target=write, args=(second, "beta.pdf")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first.finish()
    second.finish()
    want = {(d, n) for d in ("alpha.pdf", "beta.pdf") for n in (1, 2, 3)}
    assert entries(run_dir) == want
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert sorted(d["name"] for d in manifest["documents"]) == ["alpha.pdf", "beta.pdf"]
    assert manifest["folders"] == {"alpha.pdf": "alpha", "beta.pdf": "beta"}


def cli(inputs: list[Path], out: Path, url: str) -> list[str]:
    return [sys.executable, "-m", "workbench", "ocr", *map(str, inputs), "--out", str(out),
            "--engine", "vllm-server", "--base-url", url, "--spec",
            "lightonai/LightOnOCR-2-1B", "--quiet"]  # fmt: skip


def wait_for(condition: object, what: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def test_two_cli_runs_on_one_folder_lose_nothing(tmp_path: Path) -> None:
    """Two real CLIs on one --out: the second is refused with exit 2 and one line naming the
    first; the first writes every page and the manifest lists every one of them."""
    inputs = []
    for name, pages in (("alpha", 4), ("beta", 3)):
        frames = [Image.new("RGB", (200, 260), (i * 40, 90, 160)) for i in range(pages)]
        path = tmp_path / f"{name}.tif"
        frames[0].save(path, save_all=True, append_images=frames[1:])
        inputs.append(path)
    release = threading.Event()

    def respond(_body: object) -> Reply:
        release.wait(120)  # the first run stays mid-way until the second has been answered
        return Reply(DEFAULT_TEXT)

    out = tmp_path / "out"
    with FakeOpenAIServer(respond=respond) as server:
        first = subprocess.Popen(cli(inputs, out, server.base_url), cwd=ROOT,
                                 stderr=subprocess.PIPE, text=True)  # fmt: skip
        try:
            wait_for(lambda: server.completions > 0, "the first run's first page")
            second = subprocess.run(cli(inputs[::-1], out, server.base_url), cwd=ROOT,
                                    capture_output=True, text=True, timeout=300)  # fmt: skip
        finally:
            release.set()
        _, first_err = first.communicate(timeout=300)
    assert second.returncode == 2, second.stderr
    errors = [line for line in second.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith("error: "), second.stderr
    assert f"being written by process {first.pid}" in errors[0]
    assert first.returncode == 0, first_err
    assert entries(out) == {(f"{n}.tif", p) for n, k in (("alpha", 4), ("beta", 3))
                            for p in range(1, k + 1)}  # fmt: skip
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["alpha", "beta"]


def test_held_tells_a_live_writer_from_a_dead_ones_lock_file(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    assert not lock.held(run_dir)  # no lock file
    lock.acquire(run_dir)
    assert lock.held(run_dir)
    lock.release(run_dir)
    assert not lock.held(run_dir)
    (run_dir / lock.LOCK_FILE).write_text("999999\n")  # a killed writer's leftover
    assert not lock.held(run_dir)
    assert (run_dir / lock.LOCK_FILE).exists()  # held() changes nothing
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); "
         "fcntl.flock(f, fcntl.LOCK_EX); print('locked', flush=True); time.sleep(60)",
         str(run_dir / lock.LOCK_FILE)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert lock.held(run_dir)  # another process writes it
    finally:
        holder.kill()
        holder.wait(10)
    assert not lock.held(run_dir)  # its lock died with it
