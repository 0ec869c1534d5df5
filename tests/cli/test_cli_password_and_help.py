"""Issue 30.9: ``ocr --help`` reads as plain text (it showed reST: ````x````, :mod:`…`, ``::``),
and ``ocr --password`` opens an encrypted PDF (the app had a password field, the CLI none).
Real CLI subprocesses, the real CPU engine, tests/data/bad/encrypted.pdf (pypdf's AES-256
sample, user password "password")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_cli_ocr import DATA, run_cli

ENCRYPTED = DATA / "bad" / "encrypted.pdf"


def test_ocr_help_has_no_rest_markup() -> None:
    out = run_cli("ocr", "--help")
    assert out.returncode == 0
    assert "``" not in out.stdout and not re.search(r":(mod|func|class):`", out.stdout)
    assert not re.search(r"::$", out.stdout, re.M)
    assert "python -m workbench ocr INPUT... --out DIR: OCR documents" in out.stdout
    assert "--password" in out.stdout


@pytest.mark.slow
def test_password_opens_an_encrypted_pdf_and_a_wrong_one_is_one_error_line(
    tmp_path: Path,
) -> None:
    out = run_cli("ocr", str(ENCRYPTED), "--out", str(tmp_path / "none"), "--quiet")
    assert out.returncode == 1 and "encrypted" in out.stderr  # as before, without a password
    wrong = run_cli(
        "ocr", str(ENCRYPTED), "--out", str(tmp_path / "wrong"), "--password", "nope", "--quiet"
    )
    assert wrong.returncode == 1 and "Traceback" not in wrong.stderr
    assert "encrypted.pdf: the PDF is encrypted and the password given does not open it" in (
        wrong.stderr
    )
    right = run_cli(
        "ocr", str(ENCRYPTED), "--out", str(tmp_path / "ok"), "--password", "password", "--quiet"
    )
    assert right.returncode == 0, right.stderr
    page = json.loads((tmp_path / "ok" / "encrypted" / "page-0001.json").read_text())
    assert page["status"] == "ok" and page["markdown"].strip()
    assert "password" not in (tmp_path / "ok" / "manifest.json").read_text().lower()
