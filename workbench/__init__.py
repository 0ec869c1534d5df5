"""OCR Workbench: view, compare and tune document-OCR models (see README.md)."""

__version__ = "0.1.0"
__all__ = ["__version__"]
