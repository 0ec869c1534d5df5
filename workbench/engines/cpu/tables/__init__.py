"""Tables: finding them from word alignment, their grid, their Markdown."""
