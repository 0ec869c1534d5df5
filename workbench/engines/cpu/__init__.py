"""The embedded CPU engine (see :mod:`workbench.engines.cpu.engine`)."""

from workbench.engines.cpu.engine import CpuEngine, get_cpu_engine

__all__ = ["CpuEngine", "get_cpu_engine"]
