"""Model-output parsers; importing this package registers every parser (see ``base``)."""

from workbench.parsers.base import ParseContext, ParsedPage, get_parser, parser_names, register

__all__ = ["ParseContext", "ParsedPage", "get_parser", "parser_names", "register"]
