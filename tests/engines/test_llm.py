"""The vllm.LLM helpers on fakes of vLLM's object layout (the contract lanes run the real one)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from workbench.engines.llm import INSTALL_HINT, attr_path, free, import_vllm, read_actual
from workbench.errors import EngineUnavailable


def _llm(blocks: int | None, block_size: int | None) -> SimpleNamespace:
    cache = SimpleNamespace(num_gpu_blocks=blocks, block_size=block_size)
    config = SimpleNamespace(model_config=SimpleNamespace(max_model_len=8192), cache_config=cache)
    return SimpleNamespace(llm_engine=SimpleNamespace(vllm_config=config))


def test_attr_path_follows_the_dots_and_stops_at_a_missing_step() -> None:
    llm = _llm(10, 16)
    assert attr_path(llm, "llm_engine.vllm_config.cache_config.block_size") == 16
    assert attr_path(llm, "llm_engine.nothing.block_size") is None


def test_read_actual_gives_the_kv_tokens_only_when_vllm_says_both_halves() -> None:
    assert read_actual(_llm(10, 16)) == {
        "max_model_len": 8192,
        "num_gpu_blocks": 10,
        "block_size": 16,
        "kv_tokens": 160,
    }
    assert read_actual(_llm(None, 16))["kv_tokens"] is None
    assert read_actual(object()) == dict.fromkeys(
        ("max_model_len", "num_gpu_blocks", "block_size", "kv_tokens")
    )


def test_free_shuts_the_engine_core_down_and_survives_its_failure() -> None:
    calls: list[str] = []

    class Core:
        def shutdown(self) -> None:
            calls.append("shutdown")
            raise RuntimeError("already gone")

    llm = SimpleNamespace(llm_engine=SimpleNamespace(engine_core=Core()))
    free(llm)  # must not raise: closing an engine never fails the app
    assert calls == ["shutdown"]


def test_import_vllm_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)
    with pytest.raises(EngineUnavailable, match="not installed") as err:
        import_vllm()
    assert str(err.value) == INSTALL_HINT
