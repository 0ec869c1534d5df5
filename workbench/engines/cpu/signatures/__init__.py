"""Signatures: handwritten signatures found among the ink no line explains
(:mod:`~workbench.engines.cpu.signatures.ink`)."""

from workbench.engines.cpu.signatures.ink import Blob, detect, measure

__all__ = ["Blob", "detect", "measure"]
