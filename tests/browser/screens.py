"""Screenshots of every page as a new user sees it, for a person to look at (issue 24's "Done
when"): Viewer, Compare, Runs, GPU and the sidebar at 1400×1000 and 1100×800.

    python3 -m tests.browser.screens --out /tmp/shots      # from the repository root

Starts the app (``streamlit run workbench/Home.py``) with the instant FakeEngine on a run store
seeded with two real runs of one document (:mod:`tests.ui.runs_seed`), drives Debian's
Chromium with Playwright and writes ``<page>-<what>-<width>.png`` under ``--out``. It asserts
nothing: the browser tests do; this is what they cannot judge.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.browser import app_state
from tests.browser.conftest import CHROME_ARGS, CHROMIUM, ROOT, _free_port, fake_env
from tests.ui.runs_seed import seed

SIZES = [(1400, 1000), (1100, 800)]
DOCUMENT = ROOT / "tests" / "data" / "financial_statement.pdf"  # tables, born-digital


def serve(store: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("STREAMLIT_")}
    env.update(fake_env(0.0), WORKBENCH_STORE_DIR=str(store))
    exe = shutil.which("streamlit")
    launcher = [exe] if exe else [sys.executable, "-m", "streamlit"]
    proc = subprocess.Popen(
        [*launcher, "run", "workbench/Home.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true",
         "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the app did not start; see {log}")


def shoot(page: Any, out: Path, name: str) -> None:
    app_state.idle(page)
    page.wait_for_timeout(500)  # images and components finish drawing
    path = out / f"{name}.png"
    page.screenshot(path=str(path))
    print(path)


def scroll_to(page: Any, locator: Any) -> None:
    locator.first.scroll_into_view_if_needed()
    page.wait_for_timeout(300)


def pages_at(page: Any, url: str, out: Path, width: int) -> None:
    from playwright.sync_api import expect

    # Viewer: empty, then a document with tables, its tabs and downloads.
    app_state.open_viewer(page, url)
    shoot(page, out, f"viewer-empty-{width}")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([DOCUMENT])
    expect(page.locator(".wb-box").first).to_be_visible()
    shoot(page, out, f"viewer-page-{width}")
    for tab in ("Markdown", "JSON", "Raw"):
        page.get_by_role("tab", name=tab, exact=True).click()
        shoot(page, out, f"viewer-tab-{tab.lower()}-{width}")
    page.get_by_role("tab", name="Rendered", exact=True).click()
    scroll_to(page, page.get_by_test_id("stDownloadButton"))
    shoot(page, out, f"viewer-downloads-{width}")
    # The sidebar's CPU engine settings, open.
    page.get_by_test_id("stSidebar").get_by_text("CPU engine settings").click()
    shoot(page, out, f"sidebar-cpu-settings-{width}")
    # Compare: the Viewer's run of the document (run B started here the first time, from its
    # stored pages; the reference text from the original the store keeps), then the seeded
    # pair (disagreements).
    page.goto(url + "/compare")
    start = page.get_by_role("button", name="Start run B")
    expect(start.or_(page.locator(".wb-ov img")).first).to_be_visible()
    app_state.idle(page)
    if page.locator(".wb-ov img").count() < 2 and start.count():
        shoot(page, out, f"compare-missing-run-{width}")
        start.click()
    expect(page.locator(".wb-ov img")).to_have_count(2)
    shoot(page, out, f"compare-top-{width}")
    scroll_to(page, page.get_by_text("Per page", exact=True))
    shoot(page, out, f"compare-metrics-{width}")
    picker = page.get_by_role("combobox", name="Run A")
    picker.click()
    page.keyboard.type("memo.tiff · fake/fake-layout-1")  # the seeded run A
    page.keyboard.press("Enter")
    expect(page.get_by_text("memo.tiff · page 1").first).to_be_visible()
    expect(page.locator(".wb-ov img")).to_have_count(2)
    shoot(page, out, f"compare-pair-{width}")
    scroll_to(page, page.locator(".wb-diff"))
    shoot(page, out, f"compare-diff-{width}")
    # Runs and GPU.
    page.goto(url + "/runs")
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    shoot(page, out, f"runs-{width}")
    page.goto(url + "/gpu")
    app_state.connected(page)
    expect(page.get_by_role("heading").first).to_be_visible()
    shoot(page, out, f"gpu-{width}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNG files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        seed(store, pages=2)
        proc, url = serve(store, Path(tmp) / "server.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROME_ARGS)
                for width, height in SIZES:
                    ctx = browser.new_context(viewport={"width": width, "height": height})
                    page = ctx.new_page()
                    page.set_default_timeout(120_000)
                    try:
                        pages_at(page, url, args.out, width)
                    except Exception:
                        page.screenshot(path=str(args.out / f"failed-{width}.png"))
                        raise
                    ctx.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=20)


if __name__ == "__main__":
    main()
