"""GPU page: readings, the selected profile with its reasons, the memory plan and commands."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from workbench.ui.gpu.panel import render_gpu_page  # noqa: E402

render_gpu_page()
