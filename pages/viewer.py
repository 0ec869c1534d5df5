"""Viewer: drop documents, see each page's layout regions and Markdown."""

from workbench.ui.viewer.page import viewer_page

viewer_page()
