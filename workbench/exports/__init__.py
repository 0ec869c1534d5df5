"""Exports of a run: Markdown, JSON, ZIP (:mod:`~workbench.exports.formats`), self-contained
HTML (:mod:`~workbench.exports.html`, sanitized by :mod:`workbench.markdown.sanitize`) and
COCO (:mod:`~workbench.exports.coco`). Each states its coordinate space; all take pages as the
run folder holds them (``page_px`` of the page PNG)."""
