"""Model-output parsers; importing this package registers every parser (see ``base``).

Registered names: ``chandra2``, ``chandra1``, ``lighton_plain``, ``lighton_grounding``,
``olmocr``, ``dots_ocr``, ``deepseek_ocr`` (the spec registry in
:mod:`workbench.models.registry` names the parser for each model).
"""

from workbench.parsers import chandra, deepseek, dots, lighton, olmocr  # noqa: F401  (register)
from workbench.parsers.base import (
    NO_BOXES_NOTE,
    ParseContext,
    ParsedPage,
    get_parser,
    parser_names,
    register,
)

__all__ = [
    "NO_BOXES_NOTE",
    "ParseContext",
    "ParsedPage",
    "get_parser",
    "parser_names",
    "register",
]
