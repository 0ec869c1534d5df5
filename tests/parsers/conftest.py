from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "model_outputs"


@pytest.fixture
def sample():
    def read(name: str) -> str:
        return (SAMPLES / name).read_text(encoding="utf-8")

    return read
