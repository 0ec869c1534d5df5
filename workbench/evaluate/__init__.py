"""Measuring OCR output: one normalisation and one set of text metrics
(:mod:`~workbench.evaluate.metrics`: CER, word F1, Markdown read as plain text) and the
region alignment behind Compare's disagreement outlines (:mod:`~workbench.evaluate.compare`).
The benchmarks, the Compare page and the tests all use these."""
