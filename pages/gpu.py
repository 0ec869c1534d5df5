"""GPU page: readings, the selected profile with its reasons, the memory plan and commands."""

from workbench.ui.gpu.panel import render_gpu_page

render_gpu_page()
