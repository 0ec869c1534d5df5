"""The soak through the app's Batch page (issue 25.3's last sentence), in the real app and Chromium.

The faulty fake server of the CLI soak (:mod:`tests.fakes.soak_server`, its own process: a
reset mid-answer, a 500 once, a 500 always, a hang, a repetition loop) answers the real server
engine; it is killed (SIGKILL) and started again once half the pages are written, with
completions in flight. The pages are flat colours encoding their id, in multi-frame TIFFs
(:func:`benchmarks.soak.make_inputs`), uploaded on Runs → Batch. While the batch runs the user
goes to the Viewer and back, opens a finished page of the running batch's run and sees the
view follow the batch with no click; each effect must be on screen while the run is still
``running`` in the store (the order, not a time). At the end the run folder is checked by the
CLI soak's own :func:`benchmarks.soak.check` (every page written exactly once, with its true
status and reason), and the page's final line must give the manifest's counts.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect

from benchmarks.soak import SoakServer, check, make_inputs
from tests.browser import app_state
from tests.browser.conftest import _serve
from tests.fakes.soak_server import RATES, expected, fault_plan
from workbench.schema import PageStatus

pytestmark = [pytest.mark.browser, pytest.mark.slow]

N, SEED = 60, 25  # 60 pages in 8 TIFFs of 1-20 pages; seed 25 gives every kind of fault
#: seconds per completion and pages in flight: the batch lasts long enough (~35 s) for three
#: clicks on a loaded 2-core box (at 0.5 s, a load of 14 left it 13 pages to spare), and short
#: enough for the test to stay near a minute
DELAY_S, CONCURRENCY = 0.8, 2
TIMEOUT_S = 3.0  # the engine's request timeouts: how long the hung page holds its slot


@dataclass
class SoakApp:
    url: str
    server: SoakServer
    store: Path
    docs: dict[str, list[int]]  # TIFF name → its pages' ids
    inputs: Path


@pytest.fixture(scope="module")
def soak_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SoakApp]:
    work = tmp_path_factory.mktemp("batch-soak")
    docs = make_inputs(work / "inputs", N)
    server = SoakServer(N, SEED, work / "requests.log", delay=DELAY_S).start()
    env = {
        "WORKBENCH_ENGINE_FACTORY": "tests.fakes.openai_server:engine_from_env",
        "WORKBENCH_BASE_URL": server.url,
        "WORKBENCH_STORE_DIR": str(work / "runs"),
        "WORKBENCH_TIMEOUT": f"{TIMEOUT_S:g}",
        "WORKBENCH_IDLE_TIMEOUT": f"{TIMEOUT_S:g}",
        "WORKBENCH_CONCURRENCY": str(CONCURRENCY),
    }
    app = _serve(tmp_path_factory, env)
    try:
        url = next(app)
        yield SoakApp(url, server, work / "runs", docs, work / "inputs")
        next(app, None)
    finally:
        server.kill()


def written(store: Path) -> int:
    return sum(1 for _ in store.glob("*/*/page-*[0-9].json"))


def run_dir(store: Path) -> Path:
    (manifest,) = store.glob("*/manifest.json")
    return manifest.parent


def run_status(store: Path) -> str:
    return str(json.loads((run_dir(store) / "manifest.json").read_text())["status"])


class Restarter(threading.Thread):
    """Kills the server and starts it again once half the pages are written, while it is
    answering completions (as the CLI soak does)."""

    def __init__(self, app: SoakApp) -> None:
        super().__init__(daemon=True)
        self.app, self.at = app, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.05):
            if written(self.app.store) >= N // 2 and self.app.server.busy() > 0:
                self.at = written(self.app.store)
                self.app.server.restart()
                return


def first_ok_page(app: SoakApp, doc: str) -> tuple[int, int]:
    """(page number, id) of a page of ``doc`` written ``ok``, once there is one."""
    folder, deadline = run_dir(app.store) / Path(doc).stem, time.monotonic() + 60
    while time.monotonic() < deadline:
        for number, pid in enumerate(app.docs[doc], start=1):
            path = folder / f"page-{number:04d}.json"
            if path.exists() and json.loads(path.read_text())["status"] == "ok":
                return number, pid
        time.sleep(0.1)
    raise AssertionError(f"no page of {doc} was written ok")


def still_running(app: SoakApp, what: str) -> None:
    """The click's effect (just asserted visible) came before the batch's end."""
    print(f"{what}: {written(app.store)} pages written, run {run_status(app.store)}")
    assert run_status(app.store) == "running", f"{what}: the batch had ended"
    assert written(app.store) < N, f"{what}: every page was already written"


def test_batch_soak_clicks_answered_while_it_runs(
    soak_app: SoakApp, page: Any, shots: Path
) -> None:
    app = soak_app
    started = time.monotonic()
    marks: dict[str, float] = {}
    page.goto(app.url + "/runs")
    app_state.connected(page)
    files = [app.inputs / name for name in app.docs]
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(files)
    expect(page.get_by_test_id("stFileChip")).to_have_count(len(files))
    app_state.idle(page)
    restarter = Restarter(app)
    restarter.start()
    page.get_by_role("button", name="Start batch").click()
    live = page.get_by_text(re.compile(rf"\b\d+/{N} pages ·"))
    # The clicks begin once pages are being written (the engine's part of the batch).
    expect(page.get_by_text(re.compile(rf"\b[1-9]\d*/{N} pages ·"))).to_be_visible()
    first_pages = written(app.store)
    marks["started"] = time.monotonic() - started

    # 1. Another page of the app: the Viewer answers while the batch goes on.
    page.get_by_role("link", name="Viewer").click()
    expect(page.get_by_test_id("stFileUploaderDropzone")).to_be_visible()
    still_running(app, "the Viewer")
    marks["viewer"] = time.monotonic() - started
    # 2. Back on Runs: the batch is still shown going on, with its progress.
    page.get_by_role("link", name="Runs").click()
    expect(live.first).to_be_visible()
    still_running(app, "back on Runs")
    marks["runs"] = time.monotonic() - started
    page.screenshot(path=str(shots / "batch-soak-back-on-runs.png"))
    # 3. A finished page of the running batch: its document picked in the run's view below
    # (the first document is the one shown; the pick is a click that reruns the page).
    doc = list(app.docs)[1]
    number, pid = first_ok_page(app, doc)
    marks["ok page"] = time.monotonic() - started
    page.get_by_role("combobox", name="Document").click()
    page.get_by_role("option", name=doc).click()
    expect(page.get_by_text(f"Text of soak page {pid}, read by the fake server.")).to_be_visible()
    still_running(app, f"{doc} page {number}")
    page.screenshot(path=str(shots / "batch-soak-running.png"))
    # 4. The run's view follows the batch with no click: the page is drawn again with more
    # pages, and the page the user opened stays open.
    follow = page.get_by_text(re.compile(r"A batch is writing this run: \d+ page"))
    expect(follow).to_be_visible()
    shown = int(re.findall(r"\d+", follow.inner_text())[0])
    expect(page.get_by_text(re.compile(rf"A batch is writing this run: (?!{shown}\b)\d+ page")))\
        .to_be_visible()  # fmt: skip
    expect(page.get_by_text(f"Text of soak page {pid}, read by the fake server.")).to_be_visible()
    still_running(app, "the view followed")
    marks["followed"] = time.monotonic() - started
    clicked_at = written(app.store)
    marks["clicked"] = time.monotonic() - started

    # The end: the page gives the run's final counts, those of its manifest.
    final = page.get_by_text(re.compile(rf"Last batch: run \S+, {N}/{N} pages"))
    expect(final).to_be_visible(timeout=120_000)
    restarter.stop.set()
    restarter.join(timeout=5)
    seconds = time.monotonic() - started
    page.screenshot(path=str(shots / "batch-soak-done.png"))
    folder = run_dir(app.store)
    manifest = json.loads((folder / "manifest.json").read_text())
    statuses = check(folder, app.docs, N, SEED, "")  # every page once, its true status
    assert statuses == Counter(status for status, _ in expected(N, SEED).values())
    assert Counter(e["status"] for e in manifest["pages"]) == statuses
    assert manifest["status"] == "partial"  # the hang and the 500 failed: their reasons kept
    counts = " · ".join(f"{statuses[s]} {s}" for s in PageStatus if s in statuses)
    expect(final).to_contain_text(f"{manifest['id']}, {N}/{N} pages, partial · {counts}")
    # The run picker says the run's end too, not "running" (as it said while the batch ran).
    picker = page.get_by_role("combobox", name="Run")
    expect(picker).to_have_value(re.compile(rf" · partial · .*{manifest['id']}"))
    expect(page.get_by_text(f"Text of soak page {pid}, read by the fake server.")).to_be_visible()
    # Every kind of fault was met, and the restart cost completions in flight.
    assert set(Counter(fault_plan(N, SEED).values())) == set(RATES)
    assert app.server.starts == 2 and restarter.at >= N // 2
    requests = Counter(int(x) for x in app.server.log.read_text().split())
    assert sum(requests.values()) > N + len(fault_plan(N, SEED))  # retries and re-asks
    assert page.get_by_test_id("stException").count() == 0
    assert page.js_errors == []
    steps = ", ".join(f"{k} {v:.1f} s" for k, v in marks.items())
    print(f"batch soak: {seconds:.1f} s ({steps}); clicks from page {first_pages} to "
          f"{clicked_at} of {N}; server restarted at page {restarter.at}; "
          f"{sum(requests.values())} requests")  # fmt: skip
