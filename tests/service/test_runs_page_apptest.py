"""A run submitted through the service shows in the app's Runs page (AppTest on the real
page over the service's store), with the page the CPU engine read; and a run the service
deletes is gone from the page."""

from __future__ import annotations

from pathlib import Path

from tests.service.conftest import start_service, stop_service, submit, wait_finished
from tests.ui.runs.test_runs_apptest import runs_app


def test_an_api_run_is_listed_and_opened_in_the_runs_page(tmp_path: Path) -> None:
    service = start_service(tmp_path / "store")
    try:
        with service.client() as client:
            kept = submit(client, "keyvalue_form.pdf", name="posted by a program").json()["id"]
            gone = submit(client, "financial_statement.pdf").json()["id"]
            assert wait_finished(client, kept)["status"] == "done"
            wait_finished(client, gone)
            assert client.delete(f"/v1/runs/{gone}").status_code == 204
    finally:
        stop_service(service)
    at = runs_app(service.store).run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("run")
    assert list(table.index) == [kept]  # the deleted one is gone
    row = table.loc[kept]
    assert row["pages"] == 1 and list(row["status"]) == ["done"]
    assert row["document"] == "keyvalue_form.pdf"
    at.selectbox(key="runs_pick").set_value(kept).run()
    assert any("keyvalue_form.pdf · page 1" in c.value for c in at.caption)
    assert any("Package Metadata Record" in m.value for m in at.markdown)
