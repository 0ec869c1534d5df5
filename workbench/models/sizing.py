"""One page-sizing rule, used by the pipeline (what is sent) and the planner (what it plans).

:func:`fit_size` turns a page's pixel size into the size the model is sent, by the model's
:class:`~workbench.models.spec.PageSizing` (see there for the order of the steps).
:func:`planned_page` is the page the memory planner assumes: a US-letter portrait page
rendered at the sizing's DPI (200 DPI when none is given, the workbench default), or, when
the model asks for a longest edge only, that edge; the largest of the PDF and image-file
results, because the planner must hold the largest page the pipeline can send.
:func:`page_tokens` is what one such page holds in the KV cache (the planner's rule, and the
server client's pages in flight).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.models.architectures import Architecture
from workbench.models.spec import PageSizing

LETTER = (8.5, 11.0)  # inches, portrait
DEFAULT_DPI = 200


@dataclass(frozen=True)
class PageTokens:
    """One page's tokens in the KV cache."""

    vision: int
    prompt: int
    output: int

    @property
    def total(self) -> int:
        return self.vision + self.prompt + self.output


def page_tokens(
    arch: Architecture, width: int, height: int, prompt: int, max_tokens: int
) -> PageTokens:
    """A ``width`` x ``height`` page's image tokens, the ``prompt``'s and the output vLLM
    allows it: ``max_tokens``, cut where the context ends (vLLM ends a sequence there, so the
    output can only use what prompt and image leave)."""
    vision = arch.vision_tokens(width, height)
    return PageTokens(vision, prompt, max(min(max_tokens, arch.context - prompt - vision), 0))


def fit_size(
    width: int, height: int, sizing: PageSizing, *, is_image: bool, cap: int | None = None
) -> tuple[int, int]:
    """(width, height) a ``width`` x ``height`` page is resized to for the model.

    ``is_image``: the page came from an image file (``image_min_short_edge`` applies);
    ``cap``: a tuning profile's limit on the long edge (``page_longest_edge``)."""
    w, h = float(max(width, 1)), float(max(height, 1))
    f = 1.0
    short_min = sizing.image_min_short_edge if is_image and sizing.image_min_short_edge else None
    short_min = short_min or sizing.min_short_edge
    if short_min and min(w, h) < short_min:
        f = short_min / min(w, h)
    for edge in (sizing.longest_edge, cap):
        if edge and max(w, h) * f > edge:
            f = edge / max(w, h)
    if sizing.max_pixels and w * h * f * f > sizing.max_pixels:
        f = math.sqrt(sizing.max_pixels / (w * h))
    if sizing.min_pixels and w * h * f * f < sizing.min_pixels:
        f = math.sqrt(sizing.min_pixels / (w * h))
    nw, nh = max(1, round(w * f)), max(1, round(h * f))
    if sizing.grid:
        g = sizing.grid
        nw, nh = max(g, nw // g * g), max(g, nh // g * g)
        if sizing.min_pixels and nw * nh < sizing.min_pixels:
            nw, nh = math.ceil(w * f / g) * g, math.ceil(h * f / g) * g
    return nw, nh


def planned_page(sizing: PageSizing, cap: int | None = None) -> tuple[int, int]:
    """The page the planner plans for (module doc): the larger of a rendered PDF page and the
    same page given as an image file."""
    if sizing.dpi or not sizing.longest_edge:
        dpi = sizing.dpi or DEFAULT_DPI
        w, h = round(LETTER[0] * dpi), round(LETTER[1] * dpi)
    else:
        h = sizing.longest_edge
        w = round(h * LETTER[0] / LETTER[1])
    pdf = fit_size(w, h, sizing, is_image=False, cap=cap)
    image = fit_size(w, h, sizing, is_image=True, cap=cap)
    return max(pdf, image, key=lambda s: s[0] * s[1])
