"""The service over HTTP against the real server process and the real CPU engine: submit,
follow by polling and by Server-Sent Events, read Markdown, regions and every export, list
and delete runs, two clients at once, folders, and the app's store code reading API runs."""

from __future__ import annotations

import io
import json
import shutil
import threading
import zipfile

import httpx

from tests.service.conftest import DATA, Service, submit, wait_finished
from workbench.runs.store import RunReader, RunStore
from workbench.schema import RunInfo, RunStatus

FORM = "keyvalue_form.pdf"  # one page; its first heading reads "Package Metadata Record"
TWO = "dd0293_p1-2.pdf"  # two pages


def _events(client: httpx.Client, run_id: str) -> list[tuple[str, dict]]:
    """Every (event, data) of the run's stream, read to its end."""
    events: list[tuple[str, dict]] = []
    name = ""
    with client.stream("GET", f"/v1/runs/{run_id}/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line.split(":", 1)[1])))
    return events


def test_upload_a_pdf_and_get_real_ocr_back(service: Service) -> None:
    with service.client() as client:
        answer = submit(client, FORM)
        assert answer.status_code == 202, answer.text
        run = answer.json()
        assert run["status"] in ("queued", "running") and run["pages_total"] == 1
        done = wait_finished(client, run["id"])
        assert done["status"] == "done" and done["pages_done"] == 1
        base = f"/v1/runs/{run['id']}/documents/{FORM}"
        page = client.get(f"{base}/pages/1/markdown")
        assert page.status_code == 200
        assert "Package Metadata Record" in page.text  # read off the page by the CPU engine
        assert page.text.strip() in client.get(f"{base}/markdown").text
        regions = client.get(f"{base}/pages/1/regions").json()
        assert regions["regions"], "the CPU engine found regions"
        for region in regions["regions"]:
            x0, y0, x1, y1 = region["bbox"]
            assert 0 <= x0 < x1 <= regions["width"] and 0 <= y0 < y1 <= regions["height"]


def test_progress_by_sse_page_by_page_to_the_end(service: Service) -> None:
    with service.client() as client:
        run_id = submit(client, TWO).json()["id"]
        events = _events(client, run_id)
    names = [name for name, _ in events]
    assert names[-1] == "end" and set(names[:-1]) == {"progress", "page"}
    done_counts = [data["pages_done"] for name, data in events if name == "progress"]
    assert done_counts == sorted(done_counts) and done_counts[-1] == 2
    assert events[-1][1]["status"] == "done"
    # one page event a page, even when both finish between two looks (progress snapshots
    # then carry only the last: a loaded machine showed {2})
    assert sorted(d["page"] for name, d in events if name == "page") == [1, 2]


def test_every_export_of_a_run_a_document_and_a_page(service: Service) -> None:
    with service.client() as client:
        run_id = submit(client, TWO).json()["id"]
        wait_finished(client, run_id)
        url = f"/v1/runs/{run_id}/export"
        md = client.get(f"{url}/md")
        assert md.headers["content-type"].startswith("text/markdown") and md.text.strip()
        exported = client.get(f"{url}/json").json()
        assert [p["page"] for p in exported["pages"]] == [1, 2]
        html = client.get(f"{url}/html")
        assert "<html" in html.text.lower() and "page_px" in html.text
        coco = client.get(f"{url}/coco").json()
        assert len(coco["images"]) == 2 and coco["annotations"]
        with zipfile.ZipFile(io.BytesIO(client.get(f"{url}/zip").content)) as zf:
            names = set(zf.namelist())
        assert {"README.txt", "manifest.json", "coco.json"} <= names
        assert any(n.endswith("page-0002.png") for n in names)
        one = client.get(f"{url}/json", params={"document": TWO, "page": 2}).json()
        assert [p["page"] for p in one["pages"]] == [2]
        zipped = client.get(f"{url}/zip", params={"document": TWO, "page": 1})
        assert zipped.headers["content-disposition"].endswith('-p1.zip"')
        with zipfile.ZipFile(io.BytesIO(zipped.content)) as zf:
            assert not any("page-0002" in n for n in zf.namelist())


def test_two_clients_submitting_at_once_get_their_own_runs(service: Service) -> None:
    answers: dict[str, httpx.Response] = {}
    go = threading.Barrier(2)

    def client_submits(name: str) -> None:
        with service.client() as client:
            go.wait()
            answers[name] = submit(client, name)

    threads = [threading.Thread(target=client_submits, args=(n,)) for n in (FORM, TWO)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a.status_code == 202 for a in answers.values())
    ids = {name: a.json()["id"] for name, a in answers.items()}
    assert len(set(ids.values())) == 2
    with service.client() as client:
        for name, run_id in ids.items():
            done = wait_finished(client, run_id)
            assert done["status"] == "done" and done["documents"] == [name]
        pages = {n: RunReader(service.store / i).page_numbers(n) for n, i in ids.items()}
    assert pages == {FORM: [1], TWO: [1, 2]}


def test_a_folder_on_the_server(service: Service) -> None:
    folder = service.store.parent / "folders" / "in"
    folder.mkdir()
    for name in (FORM, "financial_statement.pdf"):
        shutil.copy(DATA / name, folder / name)
    (folder / "notes.txt").write_text("left out")
    with service.client() as client:
        answer = client.post("/v1/runs/folder", json={"path": str(folder)})
        assert answer.status_code == 202, answer.text
        done = wait_finished(client, answer.json()["id"])
    assert done["status"] == "done"
    assert sorted(done["documents"]) == ["financial_statement.pdf", FORM]


def test_an_api_run_is_in_the_apps_store_and_an_app_run_in_the_api(service: Service) -> None:
    with service.client() as client:
        run_id = submit(client, FORM, name="from the api").json()["id"]
        wait_finished(client, run_id)
        store = RunStore(service.store)  # the store code the app's Runs page lists with
        [row] = [r for r in store.list() if r.id == run_id]
        assert (row.name, row.status, row.pages, row.settings["source"]) == (
            "from the api", "done", 1, "api",
        )  # fmt: skip
        assert "Package Metadata Record" in store.open(run_id).markdown(FORM)
        info = RunInfo(id="", name="made by the app", engine="fake", model="fake")
        writer = store.create(info)
        writer.finish(RunStatus.DONE)
        listed = {r["id"]: r for r in client.get("/v1/runs").json()}
        assert listed[writer.info.id]["name"] == "made by the app"
        assert listed[run_id]["source"] == "api"
        store.delete(run_id)  # as the app's Runs page deletes it
        assert client.get(f"/v1/runs/{run_id}").json()["error"]["code"] == "unknown_run"


def test_delete_a_run(service: Service) -> None:
    with service.client() as client:
        keep = submit(client, FORM).json()["id"]
        gone = submit(client, TWO).json()["id"]
        followed: list[list[tuple[str, dict]]] = []
        follower = threading.Thread(target=lambda: followed.append(_events(client, gone)))
        follower.start()
        assert client.delete(f"/v1/runs/{gone}").status_code == 204  # stopped first if running
        follower.join(60)
        assert not follower.is_alive(), "the stream of a deleted run ends"
        assert followed[0][-1][0] in ("end", "error")
        assert client.get(f"/v1/runs/{gone}").json()["error"]["code"] == "unknown_run"
        assert not (service.store / gone).exists()
        assert wait_finished(client, keep)["status"] == "done"
        assert gone not in {r["id"] for r in client.get("/v1/runs").json()}
        assert client.delete(f"/v1/runs/{gone}").status_code == 404


def test_upload_names_stay_names(service: Service) -> None:
    """A name with folders, a very long one and a right-to-left override: each is a file
    name in the run (never a path on the server), shown escaped."""
    data = (DATA / FORM).read_bytes()
    names = ["../../outside.pdf", "x" * 300 + ".pdf", "evil\u202efdp.exe.pdf"]
    with service.client() as client:
        files = [
            ("files", (n, data[:-1] + bytes([data[-1]]) + b" " * i)) for i, n in enumerate(names)
        ]
        answer = client.post("/v1/runs", files=files)
        assert answer.status_code == 202, answer.text
        done = wait_finished(client, answer.json()["id"])
    assert done["status"] == "done"
    assert done["documents"][0] == "outside.pdf"
    assert done["documents"][1] == "x" * 196 + ".pdf"
    assert done["documents"][2] == "evil\\u202efdp.exe.pdf"
    assert not (service.store.parent / "outside.pdf").exists()


def test_the_stream_of_an_unknown_run_is_a_404_not_an_empty_stream(service: Service) -> None:
    """A fresh walkthrough: ``/v1/runs/nope/events`` answered 200 with an empty event stream
    (the run was looked up inside the stream, after the headers went); the docs say 404."""
    with service.client() as client:
        answer = client.get("/v1/runs/nope/events")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "unknown_run"
