"""A right-to-left override in an uploaded file's name (issue 31.6): the Viewer shows the name
escaped (``scan\\u202efdp.png``) wherever it shows it (the file list, the page header, the
caption, the runs), never the raw U+202E that would show ``scan`` + ``png.pdf`` reversed.
Streamlit's own uploader chip is Streamlit's and is left out of the check."""

from __future__ import annotations

import io
from typing import Any

import pytest

pytest.importorskip("playwright")
from PIL import Image
from playwright.sync_api import expect

from tests.browser import app_state

pytestmark = pytest.mark.browser

RLO = "\u202e"
NAME = f"scan{RLO}fdp.png"  # shown raw, it reads "scangnp.pdf"
SHOWN = "scan\\u202efdp.png"


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (400, 300), (240, 240, 240)).save(out, format="PNG")
    return out.getvalue()


def test_a_bidi_override_in_a_name_is_shown_escaped(fake_app_url: str, page: Any) -> None:
    page.set_viewport_size({"width": 1400, "height": 1000})
    app_state.open_viewer(page, fake_app_url)
    upload = {"name": NAME, "mimeType": "image/png", "buffer": _png()}
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files([upload])
    expect(page.get_by_test_id("wb-stats").first).to_contain_text(SHOWN)
    app_state.idle(page)
    text = page.evaluate(
        """() => {
            const main = document.querySelector('[data-testid="stMain"]') || document.body;
            const copy = main.cloneNode(true);
            copy.querySelectorAll('[data-testid="stFileUploader"]').forEach(e => e.remove());
            const attrs = Array.from(copy.querySelectorAll('[alt],[title]'))
                .map(e => (e.getAttribute('alt') || '') + (e.getAttribute('title') || ''));
            return copy.innerText + ' ' + attrs.join(' ');
        }"""
    )
    assert SHOWN in text
    assert RLO not in text, [line for line in text.splitlines() if RLO in line]
    assert page.js_errors == []
