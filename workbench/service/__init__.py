"""``python -m workbench serve``: the OCR service, an HTTP front end on the same core as the
app and the CLI (FastAPI on uvicorn; endpoints in :mod:`workbench.service.app`, the API's
guide in docs/service.md).

* :mod:`~workbench.service.cmd`: the command, its flags and the one engine it opens (the
  ``ocr`` command's engine flags read into a :class:`~workbench.pipeline.request.RunRequest`
  by the CLI's reader, opened by :meth:`RunRequest.open`: one rule for every front end).
* :mod:`~workbench.service.jobs`: runs submitted to the service, processed in the background
  on that one engine by the one run writer (:class:`~workbench.pipeline.runner.RunJob`) into
  the app's run store, so the app's Runs page lists them and the service lists the app's.
* :mod:`~workbench.service.errors`: JSON errors with a stable ``code``.
* :mod:`~workbench.service.intake`: uploads and folders checked against the limits.
* :mod:`~workbench.service.results`: Markdown, regions and exports of stored runs.
* :mod:`~workbench.service.telemetry`: vLLM's own numbers and the GPUs' readings.

A front end: it imports neither streamlit nor :mod:`workbench.ui` (.importlinter contracts).
"""
