"""``tests/data/make_born_digital.py`` as a module for tests that draw their own pages with
PDFium (its ``Page``: real text objects and paths). It lives in ``tests/data`` beside the
PDFs it writes, outside any package, so it is loaded from its file once, here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

_spec = importlib.util.spec_from_file_location("make_born_digital", DATA / "make_born_digital.py")
assert _spec is not None and _spec.loader is not None
mbd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mbd)
