"""Compare: two runs of one document side by side (overlays, disagreements, diff, metrics)."""

from workbench.ui.compare.view import render

render()
