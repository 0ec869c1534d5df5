"""The Runs page (``pages/runs.py``): every stored run, its pages and exports (``view``), the
Batch section (``batch``) and the pieces Runs, Batch and Compare share (``common``)."""
