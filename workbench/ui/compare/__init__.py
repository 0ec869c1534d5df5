"""Compare (``pages/compare.py``): two runs of one document side by side, overlays in step.

``view`` draws the page; ``parts`` holds its pieces (run picker, panes, word diff); ``metrics``
the agreement table between the two runs."""
