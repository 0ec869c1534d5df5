"""The About page in AppTest: it runs and lists engines, models and the samples' sources."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_about_page_lists_engines_models_and_samples() -> None:
    at = AppTest.from_file(str(ROOT / "pages" / "about.py"), default_timeout=60).run()
    assert not at.exception
    engines, models, versions = (d.value for d in at.dataframe[:3])
    assert "Embedded CPU engine" in set(engines["engine"])
    assert "cpu" in set(models["model"])
    assert "streamlit" in set(versions["package"])
    assert any("census-table.pdf" in m.value for m in at.markdown)


def test_home_routes_to_the_viewer_and_about() -> None:
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60).run()
    assert not at.exception
    assert at.file_uploader(key="wb_uploads") is not None  # the default page is the viewer
    at.switch_page("../pages/about.py").run()
    assert not at.exception and at.title[0].value == "OCR Workbench"
