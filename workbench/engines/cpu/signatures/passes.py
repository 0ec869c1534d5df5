"""Signature pass: ``signature_boxes`` adds the signatures the engine found on the ink
(:func:`~.ink.detect`, run before the passes since it needs the first OCR reading) as
layout boxes of score 1, so that lines inside them (a typed name under the pen) go to them."""

from __future__ import annotations

from workbench.engines.cpu.boxes import LayoutBox
from workbench.engines.cpu.page import Page


def signature_boxes(page: Page) -> Page:
    page.layout = page.layout + [LayoutBox("signature", s, 1.0) for s in page.signatures]
    return page
