"""Prove a memory plan on a real GPU: ``cases`` plans each case and starts ``child``, which
runs real vLLM with that plan in its own process (``python -m workbench.gpu.probe.child``)."""
