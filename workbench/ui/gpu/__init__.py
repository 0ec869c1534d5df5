"""The GPU page (``pages/gpu.py``) and the sidebar's GPU card: live memory, the tuning profile
(``panel``) and what to do when vLLM runs out of memory (``oom``)."""
