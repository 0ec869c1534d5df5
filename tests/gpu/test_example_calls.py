"""The example API calls printed beside ``vllm serve`` (issue 24, "missing") send exactly the
body the workbench sends for a page: run for every served model, the Python example against a
stand-in OpenAI client and the curl example through bash and jq with a stand-in curl, both
compared with :func:`workbench.engines.messages.chat_body` on the same ``page.png``."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from workbench.engines.base import PageRequest
from workbench.engines.messages import chat_body
from workbench.gpu.commands import example_curl, example_python
from workbench.models.registry import all_specs

SERVED = [s for s in all_specs() if s.parser != "native"]


def expected(spec: Any, png: bytes) -> dict[str, Any]:
    request = PageRequest(
        key="k",
        image=Image.new("RGB", (1, 1)),
        prompt=spec.prompt,
        sampling=spec.sampling,
        system=spec.system,
        chat_template_kwargs=dict(spec.chat_template_kwargs),
        prompt_first=spec.prompt_first,
    )
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return chat_body(spec.id, request, spec.sampling, image_url=url)


@pytest.fixture
def page_png(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    image = Image.new("RGB", (400, 300), "white")  # big enough that base64 is not trivial
    for x in range(0, 400, 7):
        image.putpixel((x, x % 300), (x % 255, 0, 0))
    image.save(tmp_path / "page.png")
    monkeypatch.chdir(tmp_path)
    return (tmp_path / "page.png").read_bytes()


@pytest.mark.parametrize("spec", SERVED, ids=lambda s: s.id)
def test_python_example_sends_the_workbench_body(
    spec: Any, page_png: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: dict[str, Any] = {}

    class Completions:
        def create(self, **kwargs: Any) -> Any:
            sent.update(kwargs)
            message = types.SimpleNamespace(content="ok")
            return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])

    class OpenAI:
        def __init__(self, base_url: str, api_key: str) -> None:
            assert base_url.endswith("/v1")
            self.chat = types.SimpleNamespace(completions=Completions())

    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=OpenAI))
    exec(compile(example_python(spec), "example.py", "exec"), {})
    extra = sent.pop("extra_body", {})
    assert {**sent, **extra} == expected(spec, page_png)


@pytest.mark.skipif(not shutil.which("jq"), reason="jq is not installed")
@pytest.mark.parametrize("spec", SERVED, ids=lambda s: s.id)
def test_curl_example_sends_the_workbench_body(spec: Any, page_png: bytes) -> None:
    stand_in = (
        'curl() { local f=""; while [ $# -gt 0 ]; do [ "$1" = -d ] && f="${2#@}"; shift; done;'
        " jq -n --rawfile b \"$f\" '{choices: [{message: {content: $b}}]}'; }\n"
    )
    out = subprocess.run(
        ["bash", "-c", stand_in + example_curl(spec)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == expected(spec, page_png)
