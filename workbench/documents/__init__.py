"""Documents: PDFs and images opened and identified (:mod:`.files`), PDF pages drawn
(:mod:`.draw`), their text layer (:mod:`.textlayer`) and its glyphs (:mod:`.glyphs`); the file types
read (:mod:`.types`)."""

from workbench.documents.files import (
    Document,
    open_document,
    parse_page_range,
    poppler_available,
    read_input,
    sniff_kind,
    to_rgb,
)
from workbench.documents.source import AnyDocument, DocumentSource, probe_input
from workbench.documents.types import FILE_TYPES, supported

__all__ = [
    "FILE_TYPES",
    "AnyDocument",
    "Document",
    "DocumentSource",
    "open_document",
    "parse_page_range",
    "poppler_available",
    "probe_input",
    "read_input",
    "sniff_kind",
    "supported",
    "to_rgb",
]
