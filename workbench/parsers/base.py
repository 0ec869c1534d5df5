"""The parser contract and registry.

A parser is a pure function ``(raw model text, ParseContext) -> ParsedPage``. It

* converts the model's native box scale to ``page_px`` once, here, with ``BBox.from_scaled``
  (see :mod:`workbench.schema`); an unreadable box gives an unlocated region (``bbox=None``);
* maps native labels to :class:`~workbench.schema.Label`, keeping the native label;
* converts HTML content to Markdown (tables may stay HTML tables, math becomes ``$…$``);
* never raises on model output: truncated tags, invalid JSON and unknown labels degrade to
  what can be recovered, with a note.

Parsers are looked up by name (``ModelSpec.parser``) in a registry, never by an if-chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from workbench.schema import Region


@dataclass(frozen=True)
class ParseContext:
    width: int  # page image (page_px)
    height: int
    # The image size the model actually saw, where the server resizes it again (dots.ocr's
    # 28-pixel smart resize); None when it saw the page image as sent.
    input_width: int | None = None
    input_height: int | None = None


#: The one wording of "no boxes on this page", said by the parsers of box-less models and by
#: the pipeline for any engine without boxes: equal texts, so a page carries it once.
NO_BOXES_NOTE = "this model gives no layout boxes: Markdown only, nothing to draw"


@dataclass
class ParsedPage:
    regions: list[Region]
    rotation: int = 0  # degrees the page must be turned counter-clockwise (olmOCR front matter)
    truncated: bool = False  # the output was cut off mid-structure
    notes: list[str] = field(default_factory=list)


Parser = Callable[[str, ParseContext], ParsedPage]

_REGISTRY: dict[str, Parser] = {}


def register(name: str) -> Callable[[Parser], Parser]:
    def deco(fn: Parser) -> Parser:
        if name in _REGISTRY and _REGISTRY[name] is not fn:
            raise ValueError(f"parser {name!r} registered twice")
        _REGISTRY[name] = fn
        return fn

    return deco


def get_parser(name: str) -> Parser:
    """The parser registered as ``name``. Every parser module is imported by the package's
    ``__init__``, which Python runs before this module whoever imports it, so the registry
    is complete here without this module importing the package back."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no parser named {name!r}; known: {sorted(_REGISTRY)}") from None


def parser_names() -> list[str]:
    return sorted(_REGISTRY)
