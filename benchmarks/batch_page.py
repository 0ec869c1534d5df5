"""Runs → Batch in the real app against ``python -m workbench ocr`` on the same folder, same
engine (the embedded CPU engine), side by side in one run (issue 30.8: "within 1.5× of the
CLI"; a benchmark, not a timed test).

    python benchmarks/batch_page.py [--rounds 3]          # from the repository root

The folder is five born-digital PDFs of tests/data (six pages). The app is started as users
start it (``streamlit run workbench/Home.py``, a fresh store); headless Chromium opens Runs →
Batch → "Folder on the server", clicks Start batch and waits for "Last batch: … 6/6 pages,
done". The CLI is timed as a whole process (interpreter start and engine load included), into
a fresh folder each round. The Batch page's first round includes loading the engine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
NAMES = (
    "financial_statement.pdf", "group_header_table.pdf", "two_column_article.pdf",
    "furniture_pages.pdf", "born_digital_formulas.pdf",
)  # fmt: skip


def _app(store: Path) -> tuple[subprocess.Popen[bytes], str]:
    from tests.browser.conftest import _free_port

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env["WORKBENCH_STORE_DIR"] = str(store)
    proc = subprocess.Popen(
        ["streamlit", "run", "workbench/Home.py", "--server.port", str(port),
         "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=1)
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the app did not start")


def _page_rounds(url: str, folder: Path, rounds: int) -> list[float]:
    from playwright.sync_api import expect, sync_playwright

    from tests.browser.conftest import CHROME_ARGS, CHROMIUM

    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(300_000)
        expect.set_options(timeout=300_000)
        for _ in range(rounds):
            page.goto(url + "/runs")
            head = page.get_by_text("Batch: process many documents as one run")
            expect(head).to_be_visible()
            page.wait_for_timeout(1500)  # the page settles (the expander opens by itself)
            if not page.get_by_text("Folder on the server").is_visible():
                head.click()
            page.get_by_text("Folder on the server").click()
            page.get_by_label("Folder path").fill(str(folder))
            page.keyboard.press("Enter")
            page.wait_for_timeout(1000)
            started = time.monotonic()
            page.get_by_role("button", name="Start batch").click()
            done = page.get_by_text(re.compile(r"Last batch: run .*6/6 pages, done"))
            expect(done).to_be_visible()
            times.append(time.monotonic() - started)
        browser.close()
    return times


def _cli_rounds(folder: Path, work: Path, rounds: int) -> list[float]:
    times = []
    for n in range(rounds):
        started = time.monotonic()
        subprocess.run(
            [sys.executable, "-m", "workbench", "ocr", str(folder), "--out", str(work / f"cli{n}"),
             "--quiet"],
            cwd=ROOT, check=True,
        )  # fmt: skip
        times.append(time.monotonic() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="batch-page-"))
    folder = work / "in"
    folder.mkdir()
    for name in NAMES:
        shutil.copy(ROOT / "tests" / "data" / name, folder / name)
    proc, url = _app(work / "store")
    try:
        page = _page_rounds(url, folder, args.rounds)
    finally:
        proc.terminate()
        proc.wait(10)
    cli = _cli_rounds(folder, work, args.rounds)
    print("Batch page (s):", " ".join(f"{t:.1f}" for t in page))
    print("CLI (s):       ", " ".join(f"{t:.1f}" for t in cli))
    print(f"median ratio page/CLI: {sorted(page)[len(page) // 2] / sorted(cli)[len(cli) // 2]:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
