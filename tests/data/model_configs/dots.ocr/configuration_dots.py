"""Test fixture: the checkpoint's ``auto_map`` points at remote code (``--trust-remote-code``).

vLLM 0.33 ships its own copy of that config class; this shim re-exports it so the fixture
loads offline without the checkpoint's files."""

from vllm.transformers_utils.configs.dotsocr import DotsOCRConfig

__all__ = ["DotsOCRConfig"]
