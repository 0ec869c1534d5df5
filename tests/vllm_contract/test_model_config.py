"""``max_model_len`` never exceeds the checkpoint's context, checked by vLLM's ModelConfig.

For each model the largest ``max_model_len`` any profile/GPU plan asks for is handed, with the
rest of the in-process engine arguments, to ``EngineArgs(...).create_model_config()`` on the
model's ``config.json`` fixture: vLLM's own validation (``_get_and_verify_max_len``, the
multimodal options) runs exactly as at start-up, minus the weights. The fixture's numbers are
also compared with the registry's architecture numbers the memory planner uses.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vllm_contract.conftest import fixture_dir
from tests.vllm_contract.test_engine_args import SPECS, _launch, _plans

vllm_arg_utils = pytest.importorskip("vllm.engine.arg_utils")


def _largest_request(spec: Any) -> dict[str, Any]:
    best: dict[str, Any] | None = None
    for _spec, profile, gib in [c for c in _plans() if c[0] is spec]:
        launched = _launch(spec, profile, gib)
        if launched is None:
            continue
        kwargs = launched[1]
        if best is None or kwargs["max_model_len"] > best["max_model_len"]:
            best = kwargs
    assert best is not None, f"{spec.id}: no startable plan"
    return best


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_max_model_len_within_checkpoint_context(spec: Any) -> None:
    folder = fixture_dir(spec.id)
    assert (folder / "config.json").is_file(), f"no config.json fixture for {spec.id}"
    kwargs = {**_largest_request(spec), "model": str(folder), "skip_tokenizer_init": True}
    kwargs["trust_remote_code"] = True  # dots.ocr's auto_map; harmless elsewhere
    config = vllm_arg_utils.EngineArgs(**kwargs).create_model_config()
    assert config.max_model_len == kwargs["max_model_len"] or kwargs["max_model_len"] == -1


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_registry_architecture_matches_the_checkpoint_config(spec: Any) -> None:
    """The planner's numbers are the ones vLLM reads from the checkpoint's config.json."""
    from vllm.config import ModelConfig, ParallelConfig

    config = ModelConfig(
        model=str(fixture_dir(spec.id)), skip_tokenizer_init=True, trust_remote_code=True
    )
    parallel = ParallelConfig()
    arch = spec.arch
    assert config.max_model_len == arch.context  # derived from max_position_embeddings
    assert config.get_num_kv_heads(parallel) == arch.kv_heads
    if config.get_head_size() == 0 and spec.id == "deepseek-ai/DeepSeek-OCR":
        # transformers 4's DeepseekV2Config sets head_dim = qk_rope_head_dim (0 here, no MLA),
        # so vLLM 0.17's ModelConfig reports 0; its attention layers use hidden / heads
        # (model_executor/models/deepseek_v2.py::DeepseekAttention), which is what holds KV.
        heads = config.get_num_attention_heads(parallel)
        assert config.get_hidden_size() // heads == arch.head_dim
    else:
        assert config.get_head_size() == arch.head_dim
    assert config.get_num_layers_by_block_type(parallel, "attention") == arch.kv_layers
    assert config.get_hidden_size() == arch.hidden_size
    assert config.get_vocab_size() == arch.vocab_size
