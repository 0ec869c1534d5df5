"""The ``vllm_contract`` lane: the workbench's engine settings checked by the real vLLM of each
release scripts/vllm_contract.sh runs it in (the ends of the supported range and the model
pins between them whose plans differ; ``scripts/setup.sh --list-vllm-lanes``).

Runs only where ``import vllm`` works (``scripts/setup.sh --with-vllm`` makes ``.venv-vllm``;
``scripts/test.sh`` runs this folder with that interpreter). No GPU and no weights are needed:
vLLM's configuration classes, argument parser and request models are pure Python. Each model's
checkpoint ``config.json`` is stood in for by ``tests/data/model_configs/<repo name>/``.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # fixtures are local; never reach for the Hub
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# No GPU here: without this vLLM cannot infer a device when it builds its CLI defaults.
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
# vLLM 0.34's CPU platform refuses x86 without Triton (platforms/cpu.py::
# check_and_update_config), and triton_utils/importing.py disables Triton when no driver is
# active unless CUDA_VISIBLE_DEVICES is set and empty (its "distributed environment" case).
# No GPU is visible here either way.
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

# Without vllm (the main environment) the lane is not collected at all; scripts/test.sh runs
# it with the interpreter of the vllm virtual environment and says so when there is none.
if importlib.util.find_spec("vllm") is None:
    collect_ignore_glob = ["test_*.py"]

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"


def vllm_version() -> tuple[int, int]:
    """(major, minor) of the installed vllm; (0, 0) without it."""
    import importlib.metadata

    try:
        major, minor = importlib.metadata.version("vllm").split(".")[:2]
    except importlib.metadata.PackageNotFoundError:
        return (0, 0)
    return int(major), int(minor)


# Checks that only hold from a vLLM version on: (first version, why older ones differ).
OLD_VLLM_SERVE_PARSER = pytest.mark.skipif(
    vllm_version() < (0, 27),
    reason="vLLM 0.17's and 0.26's `vllm serve` parser needs a device to build its defaults "
    "on a machine with no GPU (RuntimeError: Failed to infer device type, also with "
    "VLLM_TARGET_DEVICE=cpu); EngineArgs are still checked there",
)
OLD_VLLM_STREAM_INTERVAL = pytest.mark.skipif(
    vllm_version() < (0, 27),
    reason="vLLM 0.26's ChatCompletionRequest has no stream_interval field (it accepts the "
    "request and ignores it: one event per token, measured on the H200)",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.vllm_contract)


def fixture_dir(model_id: str) -> Path:
    """The config.json fixture folder of a model (named like the repo, org dropped)."""
    return CONFIGS / model_id.rsplit("/", 1)[-1]
