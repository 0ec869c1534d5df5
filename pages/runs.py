"""Runs: every run kept in the store; open, delete, export, batch-process, correct by hand."""

from workbench.ui.runs_view import render

render()
