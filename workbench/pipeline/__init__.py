"""Documents through an engine into run folders: the one path every front end uses.

* :mod:`~workbench.pipeline.request`: the typed run request every front end builds once (its
  engine, spec, ``max_tokens``, DPI, manifest head and the one resume comparison).
* :mod:`~workbench.pipeline.prepare`: pages rendered once at the model's size and encoded once,
  in worker processes; :mod:`~workbench.pipeline.feed`: the one stream of such pages to an
  engine, one document or many, a bounded number ahead (streaming).
* :mod:`~workbench.pipeline.process`: pages → engine → parser → assembled
  :class:`~workbench.schema.PageResult`, yielded as each page finishes.
* :mod:`~workbench.pipeline.runner`: :class:`~workbench.pipeline.runner.RunJob`, the one run
  writer (figure crops, resume, identity by content, cancellation, one status rule) that the
  CLI, the Viewer, Batch, Compare and the Ray cluster path all call.
"""
