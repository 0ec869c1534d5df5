"""Figures and captions: the text inside a figure, and the caption beside it."""
