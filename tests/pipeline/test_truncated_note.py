"""A page the parser finds cut short is ``truncated``; its note blames max_tokens only when the
engine said so (finish reason ``length``), issue 31.3."""

from __future__ import annotations

import pytest

from workbench.engines.base import EngineOutput
from workbench.models.registry import get_spec
from workbench.pipeline.process import to_result
from workbench.schema import PageStatus

CUT = '<div data-bbox="10 10 500 80" data-label="Text"><p>Cut in the mid'


@pytest.mark.parametrize(
    ("finish", "note"),
    [("length", "output cut off by max_tokens"), ("stop", "the output ends mid-block")],
)
def test_the_truncated_note_names_what_cut_it(finish: str, note: str) -> None:
    spec = get_spec("datalab-to/chandra-ocr-2")
    output = EngineOutput(key="k", raw=CUT, finish_reason=finish, tokens=7)
    result = to_result(spec, output, document="d.pdf", page=1, size=(1000, 1000),
                       engine="vllm-server", model=spec.id)  # fmt: skip
    assert result.status is PageStatus.TRUNCATED
    assert note in result.notes
    if finish != "length":
        assert not any("max_tokens" in n for n in result.notes)
