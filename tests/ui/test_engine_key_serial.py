"""An injected engine's cache key names that object, never an address a freed engine had."""

from __future__ import annotations

import gc

import pytest

from tests.fakes.fake_engine import FakeEngine
from workbench.ui import engines


def test_an_engine_at_a_freed_address_gets_a_new_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "overridden", lambda: True)
    keys, addresses = set(), set()
    for _ in range(50):  # CPython hands a freed object's address to the next one made
        eng = FakeEngine()
        addresses.add(id(eng))
        keys.add(engines.engine_key(eng, None))  # type: ignore[arg-type]
        del eng
        gc.collect()
    assert len(addresses) < 50, "the interpreter did not reuse an address; the test proves nothing"
    assert len(keys) == 50


def test_the_same_engine_keeps_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engines, "overridden", lambda: True)
    eng = FakeEngine()
    assert engines.engine_key(eng, None) == engines.engine_key(eng, None)  # type: ignore[arg-type]
