"""The Viewer's region picker names a table by the text a reader sees, not by its HTML: on
census_12s0324.pdf the CPU engine's table read "r2 · table · <table> <thead> <t" at 1100 px."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.settle import settle
from workbench.engines.base import EngineOutput, PageRequest
from workbench.schema import BBox, Label, Region

ROOT = Path(__file__).resolve().parents[3]
CENSUS = ("census.pdf", (ROOT / "tests/data/census_12s0324.pdf").read_bytes(), "application/pdf")
TABLE = (
    "<table><thead><tr><th>Offense charged</th><th>Total</th></tr></thead>"
    "<tbody><tr><td>Violent crime</td><td>467.9</td></tr></tbody></table>"
)


class TableEngine(FakeEngine):
    """One table region, its text an HTML table as the CPU engine and the VLMs give it."""

    def run(self, requests: list[PageRequest]):  # type: ignore[override]
        for req in requests:
            self.calls += 1
            w, h = req.image.size
            region = Region(
                id="r0", label=Label.TABLE, native_label="table",
                bbox=BBox(x0=10, y0=10, x1=w - 10, y1=h / 2), text=TABLE,
            )  # fmt: skip
            yield EngineOutput(key=req.key, regions=[region], raw=TABLE)


def test_the_picker_shows_a_tables_cells_not_its_markup() -> None:
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    at.session_state["engine_override"] = TableEngine()
    at = settle(at.run().file_uploader(key="wb_uploads").set_value([CENSUS]).run())
    assert not at.exception
    picker = at.selectbox(key="wb_ov_0_pick")
    [option] = picker.options
    assert option.startswith("r0 · table · Offense charged Total Violent crime"), option
    assert "<" not in option, option
