"""``python -m workbench --help`` speaks to users (issue 24.6), not in the module's docstring."""

from __future__ import annotations

import pytest

from workbench.cli import main


def test_help_says_what_it_does_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "OCR Workbench on the command line" in out
    assert "python -m workbench ocr scan.pdf" in out and "exit status:" in out
    for internal in ("``", ":func:", "register(subparsers)", "importlib"):
        assert internal not in out, internal
    assert max(len(line) for line in out.splitlines()) <= 100
