"""Documents: PDFs and images opened and identified (:mod:`.files`), PDF pages drawn
(:mod:`.draw`), their text layer (:mod:`.textlayer`) and its glyphs (:mod:`.glyphs`)."""

from workbench.documents.files import (
    Document,
    open_document,
    parse_page_range,
    poppler_available,
    read_input,
    sniff_kind,
    to_rgb,
)

__all__ = [
    "Document",
    "open_document",
    "parse_page_range",
    "poppler_available",
    "read_input",
    "sniff_kind",
    "to_rgb",
]
