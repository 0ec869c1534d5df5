"""Layout: the layout model's boxes, and how lines become blocks."""
