"""One settings object for the whole workbench.

Precedence, highest first: explicit arguments (CLI flags, UI widgets) > ``WORKBENCH_*``
environment variables > the defaults below. No other module reads ``os.environ`` for
workbench settings.

=============================  ====================================================
variable                        meaning
=============================  ====================================================
``WORKBENCH_STORE_DIR``         where runs are kept (default: the user data directory)
``WORKBENCH_DPI``               PDF rasterization DPI for the CPU engine (200)
``WORKBENCH_MAX_PIXELS``        cap on a rendered page's pixels; giant pages shrink to it
``WORKBENCH_MAX_PAGES``         most pages processed from one file (1000)
``WORKBENCH_PDF_BACKEND``       ``pdfium`` (default) or ``poppler`` (needs pdftoppm)
``WORKBENCH_BASE_URL``          default OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1
``WORKBENCH_API_KEY``           its key, if any
``WORKBENCH_SERVICE_KEY``       the key clients of ``python -m workbench serve`` must send (none:
                                no key asked); not the vLLM server's key above
``WORKBENCH_CONCURRENCY``       pages in flight against a server (32)
``WORKBENCH_TIMEOUT``           most seconds one page's answer may take (600); the budget is
                                60 s + max_tokens at 8 tokens/s, capped by this
``WORKBENCH_IDLE_TIMEOUT``      seconds a server may stay silent (no token) before a page
                                fails as timed out (60); see engines/server/calls.py
``WORKBENCH_CPU_IN_PROCESS``    ``1``: the app runs the CPU engine in its own process instead
                                of a worker process (for measurements; default ``0``)
=============================  ====================================================
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_data_dir
from pydantic import BaseModel, Field

PdfBackend = Literal["pdfium", "poppler"]


class Settings(BaseModel):
    store_dir: Path = Field(default_factory=lambda: Path(user_data_dir("ocr-workbench")) / "runs")
    dpi: int = Field(200, ge=36, le=600)
    max_pixels: int = Field(40_000_000, ge=1_000_000)  # ~ letter page at 600 DPI
    max_pages: int = Field(1000, ge=1)
    max_file_mb: int = Field(200, ge=1)
    pdf_backend: PdfBackend = "pdfium"
    base_url: str = "http://127.0.0.1:8000/v1"
    api_key: str | None = None
    service_key: str | None = None
    concurrency: int | None = Field(None, ge=1, le=1024)  # None: what the server takes
    timeout: float = Field(600.0, gt=0)
    idle_timeout: float = Field(60.0, gt=0)
    cpu_in_process: bool = False

    @property
    def server_named(self) -> bool:
        """Whether a server was named (``WORKBENCH_BASE_URL`` or an argument), not the default
        one assumed: the app then starts on that server rather than the CPU engine."""
        return "base_url" in self.model_fields_set

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """Defaults < ``WORKBENCH_*`` variables < ``overrides`` (None values are ignored)."""
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            env = os.environ.get(f"WORKBENCH_{name.upper()}")
            if env not in (None, ""):
                values[name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)
