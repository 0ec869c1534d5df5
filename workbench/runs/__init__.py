"""Runs on disk: one folder per run, many runs in a store.

* :mod:`~workbench.runs.layout`: the folder's names and records (manifest, identities).
* :mod:`~workbench.runs.folder`: the atomic page-by-page writer (the folder layout and its
  crash contract are in that module's docstring); :mod:`~workbench.runs.reader`: the tolerant
  reader (re-exported by ``folder``).
* :mod:`~workbench.runs.files`: one file written atomically with the user's umask; crops.
* :mod:`~workbench.runs.store`: the app's store of runs (list, open, delete).

Storage only: what to process and when is :mod:`workbench.pipeline.runner`'s job.
"""
