"""The app (Home.py -> viewer page) in AppTest, with the deterministic FakeEngine injected
through ``st.session_state["engine_override"]``; real PDFs from tests/data.

The overlay itself (a components-v2 element) renders only in a browser; tests/browser covers
clicking it. Here: uploads, errors, processing, navigation, filters, selection, downloads and
the caching contract (FakeEngine.calls must not grow on reruns). Pages are processed by the
background worker; :func:`~tests.ui.settle.settle` waits for it and reruns, as the page's
polling fragment does in a browser.
"""

from __future__ import annotations

import hashlib
import html
import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from tests.fakes.fake_engine import FakeEngine
from tests.ui.settle import settle
from workbench.engines.base import EngineOutput, PageRequest
from workbench.schema import BBox, Label, Region
from workbench.ui.markdown_view import sanitize

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data"
LATEX = ("latex.pdf", (DATA / "pdflatex_outline.pdf").read_bytes(), "application/pdf")  # 4 p.
CENSUS = ("census.pdf", (DATA / "census_12s0324.pdf").read_bytes(), "application/pdf")  # 1 p.


def app(engine: object | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120)
    at.session_state["engine_override"] = engine or FakeEngine()
    return at


def upload(at: AppTest, *files: tuple[str, bytes, str]) -> AppTest:
    return settle(at.file_uploader(key="wb_uploads").set_value(list(files)).run())


def page_input(at: AppTest) -> Any:
    """The pager's page number field (its key changes as the page does)."""
    return next(n for n in at.number_input if str(n.label).startswith("Page (of "))


def file_input(at: AppTest) -> Any:
    """The pager's file picker (its key changes as the page does)."""
    return next(s for s in at.selectbox if s.label == "File")


def md_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def stats(at: AppTest) -> str:
    """The page's facts line as plain text, ``name · page N of M · status · …``, whether it
    is drawn as Markdown (badges) or as HTML spans."""
    for m in at.markdown:
        if " · page " in m.value:
            text = re.sub(r":[a-z]+-badge\[([^\]]*)\]", r"\1", m.value)
            return text.replace("**", "").replace("`", "")
    for h in at.get("html"):
        body = str(h.proto.body)
        if 'data-testid="wb-stats"' in body:
            body = body[body.index('data-testid="wb-stats"') :]
            spans = re.findall(r"<span[^>]*>([^<]*)</span>", body)
            return " · ".join(html.unescape(t) for t in spans)
    raise AssertionError("no facts line on the page")


def test_empty_app_runs_and_sidebar_names_engine_and_gpu() -> None:
    at = app().run()
    assert not at.exception
    assert any("Drop one or more PDFs" in i.value for i in at.info)
    assert at.sidebar.radio(key="sb_engine_kind").value == "cpu"
    sidebar_text = " ".join(c.value for c in at.sidebar.caption)
    assert "GPU" in sidebar_text or at.sidebar.get("fragment")


def test_upload_processes_every_page_once_and_shows_regions_and_markdown() -> None:
    eng = FakeEngine()
    at = upload(app(eng).run(), LATEX)
    assert not at.exception
    assert eng.calls == 4
    assert "latex.pdf · page 1 of 4" in stats(at)
    text = md_text(at)
    assert "Page 1 title" in text and "| Item | Value |" in text and "E = mc^2" in text
    assert "Running head 1" not in text  # furniture is out of the Markdown by default
    labels = at.pills(key="wb_labels_0")
    assert set(labels.options) >= {"text 2", "table 1", "header 1"}  # formatted with counts
    assert page_input(at).max == 4


def test_navigation_stays_within_1_to_n_and_never_recomputes() -> None:
    eng = FakeEngine()
    at = upload(app(eng).run(), LATEX)
    for _ in range(3):
        at = at.button(key="wb_next").click().run()
    assert page_input(at).value == 4
    assert "page 4 of 4" in stats(at) and "Page 4 title" in md_text(at)
    assert at.button(key="wb_next").disabled
    at = at.button(key="wb_prev").click().run()
    assert "page 3 of 4" in stats(at)
    at = page_input(at).set_value(1).run()
    assert "page 1 of 4" in stats(at) and at.button(key="wb_prev").disabled
    at.session_state["wb_pos"] = 99  # e.g. a file was removed: clamped to the last page
    at = at.run()
    assert "page 4 of 4" in stats(at)
    assert eng.calls == 4 and not at.exception


def test_one_pager_across_files_and_the_file_picker() -> None:
    eng = FakeEngine()
    at = upload(app(eng).run(), LATEX, CENSUS)
    assert eng.calls == 5
    assert page_input(at).max == 5
    at = file_input(at).set_value("census.pdf").run()
    assert page_input(at).value == 5
    assert "census.pdf · page 1 of 1" in stats(at)
    at = at.button(key="wb_prev").click().run()
    assert "latex.pdf · page 4 of 4" in stats(at)
    assert eng.calls == 5


def _bomb_png() -> bytes:
    buf = io.BytesIO()
    Image.new("1", (15_000, 15_000)).save(buf, "PNG")  # 225 MP claimed, a few KB on disk
    return buf.getvalue()


def test_bad_files_get_named_errors_and_the_good_file_still_works() -> None:
    eng = FakeEngine()
    bad = [
        ("notes.pdf", b"just some text, not a PDF", "application/pdf"),
        ("empty.png", b"", "image/png"),
        ("locked.pdf", (DATA / "bad" / "encrypted.pdf").read_bytes(), "application/pdf"),
        ("cut.pdf", LATEX[1][: len(LATEX[1]) // 3], "application/pdf"),
        ("bomb.png", _bomb_png(), "image/png"),
    ]
    at = upload(app(eng).run(), *bad, CENSUS)
    assert not at.exception
    # One summary (issue 24.6: five tall banners pushed the page away), every file named in it
    # or in the expander under it; the locked PDF first, with a password field.
    [summary] = [e.value for e in at.error]
    assert summary.startswith("5 files cannot be read:")
    lines = summary.splitlines() + "\n".join(m.value for m in at.markdown).splitlines()
    for name, why in [
        ("notes.pdf", "not a PDF or image"),
        ("empty.png", "empty"),
        ("locked.pdf", "encrypted"),
        ("cut.pdf", "damaged"),
        ("bomb.png", "decompression bomb"),
    ]:
        assert any(f"- {name}:" in line and why in line for line in lines), (name, lines)
    assert "- locked.pdf:" in summary.splitlines()[1]
    assert at.text_input(key=f"wb_password_{hashlib.sha256(bad[2][1]).hexdigest()}")
    assert eng.calls == 1
    assert "census.pdf · page 1 of 1" in stats(at) and "Page 1 title" in md_text(at)


def test_page_range_limits_processing_and_navigation() -> None:
    eng = FakeEngine()
    at = app(eng).run()
    at = at.text_input(key="wb_range").set_value("2-3").run()
    at = upload(at, LATEX)
    assert eng.calls == 2
    assert page_input(at).max == 2
    assert "page 2 of 4" in stats(at)
    at = at.text_input(key="wb_range").set_value("9").run()
    assert any("latex.pdf" in w.value and "past the last page" in w.value for w in at.warning)


def test_toggles_selection_and_furniture_never_recompute() -> None:
    eng = FakeEngine()
    at = upload(app(eng).run(), LATEX)
    at = at.pills(key="wb_labels_0").set_value(["title"]).run()
    assert "Page 1 title" in md_text(at) and "Left column of page 1." not in md_text(at)
    at = at.selectbox(key="wb_ov_0_pick").set_value("r4").run()
    assert at.session_state["wb_ov_0__selected"] == "r4"
    at = at.pills(key="wb_labels_0").set_value(["title", "table"]).run()
    captions = " ".join(c.value for c in at.caption)
    assert "**r4 · table**" in captions  # the selected block is marked
    at = at.toggle(key="wb_furniture").set_value(True).run()
    code = " ".join(c.value for c in at.code)
    assert "Running head 1" in code
    at = at.button(key="wb_next").click().run().button(key="wb_prev").click().run()
    assert at.session_state["wb_ov_0__selected"] == "r4"  # selection kept per page
    assert eng.calls == 4 and not at.exception


def test_hidden_labels_carry_over_to_the_next_page() -> None:
    at = upload(app().run(), LATEX)
    at = at.pills(key="wb_labels_0").set_value(["title", "table"]).run()
    at = at.button(key="wb_next").click().run()
    assert set(at.pills(key="wb_labels_1").value) == {"title", "table"}
    assert "Page 2 title" in md_text(at) and "Left column of page 2." not in md_text(at)


def test_downloads_for_page_and_document() -> None:
    at = upload(app().run(), LATEX)
    labels = [d.proto.label for d in at.get("download_button")]
    assert labels[:2] == ["Page Markdown", "Page JSON"]
    assert "Document Markdown (4 p.)" in labels and "Document JSON (4 p.)" in labels


def test_results_are_shared_across_sessions() -> None:
    eng = FakeEngine()
    upload(app(eng).run(), CENSUS)
    at = upload(app(eng).run(), CENSUS)
    assert eng.calls == 1 and "Page 1 title" in md_text(at)


def test_a_failing_page_shows_its_error_and_others_go_on() -> None:
    eng = FakeEngine(fail_keys=["latex.pdf#2"])
    at = upload(app(eng).run(), LATEX)
    at = at.button(key="wb_next").click().run()
    assert " · error · " in stats(at)
    assert any("fake failure on latex.pdf#2" in e.value for e in at.error)
    at = at.button(key="wb_next").click().run()
    assert " · ok · " in stats(at)


class HostileEngine(FakeEngine):
    """Returns model text carrying HTML that must never reach the page as live markup."""

    def run(self, requests: list[PageRequest]):  # type: ignore[override]
        for req in requests:
            self.calls += 1
            w, h = req.image.size
            text = (
                "Hello <iframe srcdoc=\"<script>parent.document.title='PWNED'</script>\"></iframe>"
                "<script>alert(1)</script><img src=x onerror=alert(2)>"
                "<a href='javascript:alert(3)'>link</a><style>h2{color:red}</style>"
            )
            region = Region(
                id="r0", label=Label.TEXT, native_label="text",
                bbox=BBox(x0=10, y0=10, x1=w - 10, y1=h / 2), text=text,
            )  # fmt: skip
            yield EngineOutput(key=req.key, regions=[region], raw=text)


def test_model_html_is_sanitized_before_rendering() -> None:
    at = upload(app(HostileEngine()).run(), CENSUS)
    assert not at.exception
    rendered = [m.value for m in at.markdown if "Hello" in m.value]
    assert rendered, md_text(at)
    for value in rendered:
        low = value.lower()
        for bad in ("<iframe", "<script", "<img", 'href="javascript:', "<style"):
            assert bad not in low, value  # no live markup from the model
        # What the policy does not allow is shown as text, never dropped (issue 24.3).
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in value


@pytest.mark.parametrize(
    ("dirty", "kept"),
    [
        ("<table><tr><td colspan='2'>x</td></tr></table>", 'colspan="2"'),
        ("$$E=mc^2$$ and <sup>2</sup>", "<sup>2</sup>"),
        ("<form action='http://evil'><input></form>ok", "ok"),
    ],
)
def test_sanitize_keeps_tables_and_math_and_drops_forms(dirty: str, kept: str) -> None:
    clean = sanitize(dirty)
    assert kept in clean and "<form" not in clean and "<input" not in clean


def test_samples_are_offered_and_processable() -> None:
    eng = FakeEngine()
    at = app(eng).run()
    samples = at.pills(key="wb_samples")
    assert len(samples.options) >= 2
    at = settle(samples.set_value([samples.options[0]]).run())
    assert not at.exception and eng.calls >= 1
    assert f"{samples.options[0]} · page 1 of" in stats(at)


def test_vllm_server_engine_from_the_sidebar_end_to_end() -> None:
    """No fake engine: the sidebar's server choice, a real HTTP server speaking the OpenAI
    protocol with a recorded Chandra 2 output, the real parser and the viewer."""
    from tests.fakes.openai_server import FakeOpenAIServer

    raw = (DATA / "model_outputs" / "chandra2_2305.03393v1-pg9.html").read_text()
    with FakeOpenAIServer([raw], models=["datalab-to/chandra-ocr-2"]) as server:
        at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=120).run()
        at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm-server").run()
        at = at.sidebar.text_input(key="sb_base_url").set_value(server.base_url).run()
        assert at.sidebar.selectbox(key="sb_server_model").value == "datalab-to/chandra-ocr-2"
        at = upload(at, CENSUS)
        assert not at.exception, at.exception
        assert server.completions == 1
        assert "vllm-server · " in stats(at) and "chandra-ocr-2" in stats(at)
        assert "5.1 Hyper Parameter Optimization" in md_text(at)
        assert at.pills(key="wb_labels_0").options  # parsed regions with boxes
        at = at.toggle(key="wb_furniture").set_value(True).run()
        assert server.completions == 1  # reruns never call the server again


def test_unreachable_server_says_so_and_pages_still_show() -> None:
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60).run()
    at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm-server").run()
    at = at.sidebar.text_input(key="sb_base_url").set_value("http://127.0.0.1:9/v1").run()
    assert any("cannot reach http://127.0.0.1:9/v1" in w.value for w in at.sidebar.warning)
    at = upload(at, CENSUS)
    assert not at.exception
    assert "census.pdf · page 1 of 1 · not processed" in stats(at)
    assert len(at.get("image")) == 1  # the page image, without boxes


class FigureEngine(FakeEngine):
    """One figure with a caption and one region the model gave no box for."""

    def run(self, requests: list[PageRequest]):  # type: ignore[override]
        for req in requests:
            self.calls += 1
            w, h = req.image.size
            regions = [
                Region(
                    id="r0", label=Label.FIGURE, native_label="Picture",
                    bbox=BBox(x0=w * 0.2, y0=h * 0.2, x1=w * 0.8, y1=h * 0.5), text="A chart",
                ),
                Region(id="r1", label=Label.TEXT, native_label="Text", text="No box here", order=1),
            ]  # fmt: skip
            yield EngineOutput(key=req.key, regions=regions, raw="{}")


def test_figures_show_as_crops_and_unlocated_regions_keep_their_text() -> None:
    at = upload(app(FigureEngine()).run(), CENSUS)
    assert not at.exception
    images = at.get("image")
    assert len(images) == 1  # the figure crop (the page itself is in the overlay component)
    text = md_text(at)
    assert "A chart" in text and "No box here" in text
    assert "page-0001-r0.png" not in text  # no broken placeholder link in the rendered view
    assert "2 regions" in stats(at)
    code = " ".join(c.value for c in at.code)
    assert "![Figure r0](page-0001-r0.png)" in code  # the raw Markdown keeps the placeholder


def test_all_labels_off_hides_every_block() -> None:
    at = upload(app().run(), CENSUS)
    at = at.pills(key="wb_labels_0").set_value([]).run()
    assert "Page 1 title" not in md_text(at)
    assert any("region(s) hidden" in c.value for c in at.caption)


def test_vllm_in_process_without_vllm_shows_how_to_install() -> None:
    pytest.importorskip("workbench.engines.factory")
    import importlib.util

    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vllm is installed here")
    at = AppTest.from_file(str(ROOT / "workbench" / "Home.py"), default_timeout=60).run()
    at = at.sidebar.radio(key="sb_engine_kind").set_value("vllm").run()
    assert not at.exception
    assert any("pip install" in i.value for i in at.sidebar.info)


class _Recording(FakeEngine):
    """Remembers the order in which pages reached the engine."""

    def __init__(self) -> None:
        super().__init__()
        self.order: list[str] = []

    def run(self, requests):  # type: ignore[no-untyped-def]
        self.order.extend(r.key for r in requests)
        yield from super().run(requests)


def test_the_page_on_screen_is_processed_before_the_rest_of_the_document() -> None:
    """Nobody waits for a whole document: the page being looked at goes to the engine first,
    the others after it, and every page ends up processed once."""
    eng = _Recording()
    at = app(eng)
    at.session_state["wb_pos"] = 2  # the user is on page 3 when the file arrives
    upload(at.run(), LATEX)
    assert not at.exception
    assert eng.order[0].endswith("#3"), eng.order
    assert sorted(k.rsplit("#", 1)[-1] for k in eng.order) == ["1", "2", "3", "4"]
    assert "page 3 of 4" in stats(at)
    assert any("(4 p.)" in b.label for b in at.get("download_button"))


def test_the_selection_follows_in_the_markdown_tab_and_it_wraps() -> None:
    """Issue 30.7: a box picked on the page shows its Markdown in the Markdown tab too (only
    Rendered followed on e859558), and the raw Markdown wraps (it was cut off at 1100 px)."""
    at = upload(app().run(), LATEX)
    page_md = [c for c in at.code if c.language == "markdown"]
    assert len(page_md) == 1 and page_md[0].proto.wrap_lines  # the page's Markdown, wrapped
    at = at.selectbox(key="wb_ov_0_pick").set_value("r4").run()
    assert not at.exception
    md = [c for c in at.code if c.language == "markdown"]
    assert len(md) == 2 and md[0].proto.wrap_lines
    assert "Running head" not in md[0].value and md[0].value.strip() in md[1].value
    assert md[0].value.strip().startswith("|")  # r4 is the table: its Markdown, not the page's
    assert any("Selected **r4 · table**" in c.value for c in at.caption)


def test_a_file_added_is_shown() -> None:
    """Issue 30.9: adding a file (or a sample) to those loaded shows it; on e859558 the pager
    stayed on the page it was on, the new file out of sight."""
    at = upload(app().run(), LATEX)
    at = page_input(at).set_value(3).run()
    assert "latex.pdf · page 3 of 4" in stats(at)
    at = upload(at, LATEX, CENSUS)
    assert "census.pdf · page 1 of 1" in stats(at)
    sample = next(o for o in at.pills(key="wb_samples").options if o.startswith("sf424"))
    at = settle(at.pills(key="wb_samples").set_value([sample]).run())
    assert f"{sample} · page 1 of" in stats(at)  # the sample, shown
    assert not at.exception
