"""Runs: every run kept in the store; open, delete, export, batch-process, correct by hand."""

from workbench.ui.runs.view import render

render()
