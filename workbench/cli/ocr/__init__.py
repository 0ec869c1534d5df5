"""The ``ocr`` command: ``cmd`` runs it on this machine; ``job`` is what its local run and its
Ray run (:mod:`workbench.cli.ray_cmd`) share."""
