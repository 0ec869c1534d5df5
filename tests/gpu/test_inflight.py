"""Pages in flight against a vLLM server when the user gives no number: what its KV cache
holds (issue 29: a fixed 32 kept the server a quarter busy). The KV cache is read from the
server's own ``/metrics`` (vLLM's ``cache_config_info``), the page's tokens with the planner's
rule; the CLI end to end against a real HTTP server that reports a KV cache."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, metrics_text
from workbench.cli import main
from workbench.engines.server.engine import VllmServerEngine
from workbench.engines.stats import kv_cache_tokens
from workbench.gpu.inflight import MAX_IN_FLIGHT, fit_in_flight, page_tokens, pages_held
from workbench.gpu.planner import plan_memory
from workbench.gpu.profiles import get_profile
from workbench.models.registry import get_spec

LIGHTON = "lightonai/LightOnOCR-2-1B"


def test_the_kv_cache_is_read_from_vllms_metrics() -> None:
    assert kv_cache_tokens(metrics_text(73_876)) == 73_876 * 16
    two_engines = metrics_text(100) + metrics_text(50).replace('engine="0"', 'engine="1"')
    assert kv_cache_tokens(two_engines) == 150 * 16
    assert kv_cache_tokens("vllm:num_requests_running 3.0\n") is None
    assert kv_cache_tokens("<html>not metrics</html>") is None


def test_a_pages_tokens_are_the_planners() -> None:
    spec = get_spec(LIGHTON)
    plan = plan_memory(spec, get_profile("h100-h200"), 80 * 2**30)
    assert page_tokens(spec) == plan.tokens_per_page  # one rule, two users
    assert pages_held(spec, 10 * page_tokens(spec) + 5) == 10
    assert pages_held(spec, 10**9) == MAX_IN_FLIGHT
    assert pages_held(spec, 1) == 1


def test_a_server_engine_is_sized_only_when_no_number_was_given() -> None:
    spec = get_spec(LIGHTON)
    with FakeOpenAIServer(models=[LIGHTON]) as server:
        server.kv_blocks = (40 * page_tokens(spec)) // 16 + 1
        auto = VllmServerEngine(server.base_url)
        assert not auto.sized and fit_in_flight(auto, spec) == 40 and auto.concurrency == 40
        chosen = VllmServerEngine(server.base_url, concurrency=7)
        assert fit_in_flight(chosen, spec) is None and chosen.concurrency == 7
        server.kv_blocks = None  # not vLLM (no metrics): the default stands
        other = VllmServerEngine(server.base_url)
        assert fit_in_flight(other, spec) is None and other.concurrency == 64


@pytest.mark.slow
def test_the_cli_keeps_as_many_pages_in_flight_as_the_server_holds(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(48):
        pdf = pdfium.PdfDocument.new()
        pdf.new_page(300, 400)
        pdf.save(str(folder / f"doc{i:02d}.pdf"))
    # Long enough that the CLI prepares every page while the first are answered, even on a
    # loaded machine (at 1 s a busy CI machine kept 32 in flight).
    replies = [Reply("Page text.", delay=3.0) for _ in range(48)]
    with FakeOpenAIServer(replies, models=[LIGHTON]) as server:
        server.kv_blocks = 10**7  # room for far more pages than 48
        code = main(["ocr", str(folder), "--out", str(tmp_path / "out"), "--engine",
                     "vllm-server", "--base-url", server.base_url, "--quiet"])  # fmt: skip
        assert code == 0 and server.completions == 48
        assert server.max_in_flight > 32  # the old fixed default capped it at 32
