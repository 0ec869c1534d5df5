"""Compare: two runs of one document side by side (overlays, disagreements, diff, metrics)."""

from workbench.ui.compare_view import render

render()
