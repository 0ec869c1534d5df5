"""The CPU engine the tests of its packages share (its models load once)."""

from __future__ import annotations

import pytest

from workbench.engines.cpu import get_cpu_engine


@pytest.fixture(scope="module")
def engine():
    return get_cpu_engine()
