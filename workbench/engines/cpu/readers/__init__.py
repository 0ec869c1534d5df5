"""Readers: what turns the page image (or its PDF text layer) into lines."""
