"""``load_cause.inspection_cause`` against each release's real ``ModelRegistry``.

vLLM says only "Model architectures [...] failed to be inspected" when a model's module cannot
be imported (measured on an H100 with vLLM 0.26: Chandra OCR 2 without ``compressed_tensors``);
the workbench imports the classes through ``ModelRegistry.models[arch].load_model_cls()`` to
name the cause. These tests hold each release to that shape: the seed models' architectures are
registered entries with ``load_model_cls``, and an entry whose module is missing yields the
``ModuleNotFoundError`` vLLM's own inspection would have logged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.vllm_contract.conftest import fixture_dir
from tests.vllm_contract.test_engine_args import SPECS
from workbench.engines.load_cause import inspection_cause

registry_module = pytest.importorskip("vllm.model_executor.models.registry")


def test_an_architecture_whose_module_is_missing_names_that_module() -> None:
    registry = registry_module.ModelRegistry
    registry.register_model("WorkbenchNoSuchArch", "workbench_no_such_module:Cls")
    message = (
        "1 validation error for ModelConfig\n  Value error, Model architectures "
        "['WorkbenchNoSuchArch'] failed to be inspected. Please check the logs for more details."
    )
    cause = inspection_cause(message)
    assert cause == "ModuleNotFoundError: No module named 'workbench_no_such_module'"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_each_seed_model_architecture_is_a_registry_entry_it_can_load(spec: Any) -> None:
    config = json.loads((fixture_dir(spec.id) / "config.json").read_text())
    arch = config["architectures"][0]
    entry = registry_module.ModelRegistry.models.get(arch)
    assert entry is not None, f"{arch} is not in this vLLM's ModelRegistry"
    assert callable(getattr(entry, "load_model_cls", None))
