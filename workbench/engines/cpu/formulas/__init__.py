"""Formulas: display and inline math from PDF glyph geometry, OCR'd math as crops."""
