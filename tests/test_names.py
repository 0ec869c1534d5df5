"""One helper shows a file name (issue 31.6): ``display_name`` escapes what is not printable
(bidi overrides and marks, controls, zero-width characters) and keeps the rest; documents get
their names through it, so a run, the CLI and the app never show a raw U+202E."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.fakes.openai_server import FakeOpenAIServer
from workbench.cli import main
from workbench.documents import open_document
from workbench.errors import display_name


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("résumé 日本.pdf", "résumé 日本.pdf"),
        ("scan\u202efdp.png", "scan\\u202efdp.png"),
        ("a\u200fb\u2066c\u200bd.pdf", "a\\u200fb\\u2066c\\u200bd.pdf"),
        ("bad\nname\x1b.pdf", "bad\\nname\\x1b.pdf"),
        ("line\u2028sep.pdf", "line\\u2028sep.pdf"),
    ],
)
def test_display_name_escapes_only_what_cannot_be_shown(name: str, shown: str) -> None:
    assert display_name(name) == shown


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (120, 90), "white").save(out, format="PNG")
    return out.getvalue()


def test_a_document_is_named_escaped() -> None:
    doc = open_document("scan\u202efdp.png", _png())
    assert doc.name == "scan\\u202efdp.png" and doc.info().name == doc.name


def test_the_cli_run_stores_and_says_the_name_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "scan\u202efdp.png"
    src.write_bytes(_png())
    out = tmp_path / "out"
    with FakeOpenAIServer() as server:
        code = main(["ocr", str(src), "--out", str(out), "--engine", "vllm-server", "--base-url",
                     server.base_url, "--spec", "lightonai/LightOnOCR-2-1B"])  # fmt: skip
    assert code == 0
    raw = (out / "manifest.json").read_text()
    assert "\u202e" not in json.loads(raw)["documents"][0]["name"]
    assert "\u202e" not in capsys.readouterr().err
