"""Furniture and headings: running heads, folios, page numbers; headings from type."""
