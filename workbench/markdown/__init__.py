"""Markdown from regions, and what may be shown of it.

* :mod:`~workbench.markdown.assemble`: a page's regions (reading order, ``page_px`` boxes)
  to page Markdown, and pages to a document's Markdown; one rule for page markers, figure
  links (``page-NNNN-rN.png``) and furniture (left out by default).
* :mod:`~workbench.markdown.sanitize`: the one nh3 policy for untrusted model output, used by
  the viewer, the HTML export, the Compare diff and the parsers' table cleaning.
* :mod:`~workbench.markdown.commonmark`: the one CommonMark reading the workbench's own code
  makes (metrics, structure, HTML export), never cut short by deep nesting.
* :mod:`~workbench.markdown.display`: bounds what a page shows (huge answers truncated for
  display with a note; downloads keep the full text).

A foundation layer: it imports only :mod:`workbench.schema` and its own modules.
"""
