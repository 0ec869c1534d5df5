"""The models' specs, one module per family: ``vlm`` (Chandra, LightOnOCR) and ``others``
(olmOCR, dots.ocr, DeepSeek-OCR). :mod:`workbench.models.registry` is the one lookup."""
