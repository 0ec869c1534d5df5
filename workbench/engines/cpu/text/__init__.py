"""Text: a block's lines as escaped Markdown (paragraphs, lists, ordered runs)."""
