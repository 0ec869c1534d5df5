"""Click-to-update in the Viewer while the real CPU engine processes a document (issue 11).

Runs the real app (``streamlit run workbench/Home.py``) twice, side by side in one run, with
the real embedded CPU engine: once with its OCR in the app's own process
(``WORKBENCH_CPU_IN_PROCESS=1``, how the app ran it before) and once in a worker process
(the default). In each, headless Chromium drops a PDF of scanned pages (real scans from
tests/data, a few seconds of OCR each), waits for page 1, then clicks Next while the other
pages are being processed and measures, on the browser's clock, the time from the press of
the button (made once the app is at rest: no script running, the browser done drawing) to
the frame that shows the next page's facts line; then the same clicks once every page is
done (idle). The floor of a click is the idle figure: a script run that draws the page.

    python benchmarks/viewer_clicks.py [--pages 8] [--clicks 4]

Needs Chromium and Playwright (``scripts/setup.sh`` installs both).
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pypdfium2 as pdfium

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SCANS = ["scan_huckfinn_c03-29.pdf", "scan_two_columns.pdf"]
CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
TIMEOUT_MS = 300_000


def scanned_pdf(path: Path, pages: int) -> Path:
    out = pdfium.PdfDocument.new()
    while len(out) < pages:
        for name in SCANS:
            if len(out) < pages:
                src = pdfium.PdfDocument(DATA / name)
                out.import_pages(src, [0])
                src.close()
    out.save(path)
    out.close()
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_app(env_extra: dict[str, str], store: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMLIT_", "WORKBENCH_"))}
    env.update(env_extra, WORKBENCH_STORE_DIR=str(store))
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "workbench/Home.py",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 120
    while True:
        try:
            if urllib.request.urlopen(url + "/_stcore/health", timeout=1).read() == b"ok":
                return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("streamlit did not start")
        time.sleep(0.2)


def shows(page: object, n: int, of: int, processed: bool = False) -> float:
    """Wait until page ``n`` of ``of`` is on screen; the browser's clock (ms) at that frame."""
    handle = page.wait_for_function(  # type: ignore[attr-defined]
        """([t, done]) => { const s = document.body.innerText;
             const ok = s.includes(t) && (!done || !(s.includes('not processed')
                                                    || s.includes('queued')));
             return ok ? performance.now() : false; }""",
        arg=[f"page {n} of {of}", processed],
        polling="raf",
        timeout=TIMEOUT_MS,
    )
    return float(handle.json_value())


def settled(page: object) -> None:
    """The app is not running a script and the browser has drawn what it sent (its images
    loaded, two frames painted): clicks are made on a page at rest, as a person clicks after
    reading. Without the browser's part, the first click after page 1 was timed while
    Chromium was still drawing page 1 (Playwright waits for the button to hold still)."""
    page.wait_for_selector(  # type: ignore[attr-defined]
        '[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=TIMEOUT_MS
    )
    page.wait_for_function(  # type: ignore[attr-defined]
        "() => Array.from(document.images).every(i => i.complete)", timeout=TIMEOUT_MS
    )
    page.evaluate(  # type: ignore[attr-defined]
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))"
    )


def click(page: object, name: str, n: int, of: int) -> float:
    """Seconds from the press of ``name`` (the browser's pointerdown) to page ``n`` on screen."""
    button = page.get_by_role("button", name=name)  # type: ignore[attr-defined]
    button.wait_for(state="visible")
    settled(page)
    page.evaluate(  # type: ignore[attr-defined]
        """() => document.addEventListener('pointerdown',
             () => { window.__wbDown = performance.now(); }, {capture: true, once: true})"""
    )
    button.click()
    shown = shows(page, n, of)
    return (shown - float(page.evaluate("() => window.__wbDown"))) / 1000  # type: ignore[attr-defined]


def processing(page: object, of: int) -> bool:
    done = page.get_by_role("button", name=f"Document JSON ({of} p.)")  # type: ignore[attr-defined]
    return bool(done.count() == 0)


def measure(browser: object, url: str, pdf: Path, pages: int, clicks: int) -> dict[str, object]:
    ctx = browser.new_context(viewport={"width": 1500, "height": 1100})  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url + "/viewer")
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([pdf])
    t0 = time.perf_counter()
    shows(page, 1, pages, processed=True)
    first = time.perf_counter() - t0
    busy, late = [], 0
    for n in range(2, 2 + clicks):
        if not processing(page, pages):
            late += 1
        busy.append(click(page, "Next ▶", n, pages))
    page.get_by_role("button", name=f"Document JSON ({pages} p.)").wait_for(timeout=TIMEOUT_MS)
    total = time.perf_counter() - t0
    idle = [click(page, "◀ Prev", n, pages) for n in range(clicks, max(clicks - 3, 1) - 1, -1)]
    ctx.close()
    return {"first": first, "busy": busy, "idle": idle, "total": total, "late": late}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--clicks", type=int, default=4)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    modes = {"in the app's process": "1", "in a worker process (default)": "0"}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        pdf = scanned_pdf(Path(tmp) / "scans.pdf", args.pages)
        browser = p.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        print(f"{args.pages} scanned pages, real CPU engine, {os.cpu_count()} cores; click = "
              "Next until the next page's facts line is on screen")  # fmt: skip
        print(f"{'CPU engine':32} {'busy clicks s (median)':>34} {'idle s':>16} "
              f"{'page 1 s':>9} {'all s':>7}")  # fmt: skip
        for label, flag in modes.items():
            proc, url = start_app({"WORKBENCH_CPU_IN_PROCESS": flag}, Path(tmp) / f"runs{flag}")
            try:
                r = measure(browser, url, pdf, args.pages, args.clicks)
            finally:
                proc.terminate()
                proc.wait(timeout=20)
            busy = " ".join(f"{t:.2f}" for t in r["busy"])  # type: ignore[attr-defined]
            med = statistics.median(r["busy"])  # type: ignore[arg-type]
            idle = statistics.median(r["idle"])  # type: ignore[arg-type]
            note = f" ({r['late']} click(s) after the last page)" if r["late"] else ""
            print(f"{label:32} {busy:>26} ({med:.2f}) {idle:>16.2f} {r['first']:>9.1f} "
                  f"{r['total']:>7.1f}{note}")  # fmt: skip
        browser.close()


if __name__ == "__main__":
    main()
