"""Viewer: drop documents, see each page's layout regions and Markdown."""

from workbench.ui.viewer import viewer_page

viewer_page()
