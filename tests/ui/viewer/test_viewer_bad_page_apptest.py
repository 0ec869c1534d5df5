"""The app with a file whose one page cannot be read (issue 25.1): a TIFF whose second frame
claims 40000×40000 pixels, uploaded with a good PDF. The other pages of that file and the
other file are processed and shown; the bad page says why, and the app stays up."""

from __future__ import annotations

from tests.fakes.bad_documents import tiff_with_huge_frame
from tests.fakes.fake_engine import FakeEngine
from tests.ui.settle import settle
from tests.ui.viewer.test_viewer_apptest import (
    CENSUS,
    app,
    file_input,
    md_text,
    page_input,
    stats,
    upload,
)


def test_a_bad_frame_fails_its_page_only_in_the_viewer() -> None:
    eng = FakeEngine()
    fax = ("fax.tif", tiff_with_huge_frame(), "image/tiff")
    at = upload(app(eng).run(), fax, CENSUS)
    assert not at.exception
    assert "fax.tif · page 1 of 3" in stats(at) and "Page 1 title" in md_text(at)
    at = settle(page_input(at).set_value(2).run())
    assert not at.exception
    shown = " ".join(e.value for e in at.error) + " " + md_text(at)
    assert "page 2 claims 40000×40000 pixels" in shown, shown
    at = settle(page_input(at).set_value(3).run())
    assert not at.exception
    assert "fax.tif · page 3 of 3" in stats(at) and "Page 3 title" in md_text(at)
    at = settle(file_input(at).set_value("census.pdf").run())
    assert "census.pdf · page 1 of 1" in stats(at) and "Page 1 title" in md_text(at)
    assert eng.calls == 3  # fax pages 1 and 3, census page 1: the bad page is never sent
