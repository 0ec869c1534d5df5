"""The one CommonMark reading of Markdown that the workbench's own code makes (the viewer's
Markdown is drawn by Streamlit in the browser): metrics' plain text, the structure metrics'
tables and headings, the HTML export.

markdown-it stops reading a document where containers nest deeper than its limit (20 in its
CommonMark preset) and drops everything after it without a word: a court transcript's rule
line ``- - - - - - - - - - - - - - - - - x`` is 17 nested list items, and the page's text
after it was lost to every metric (word F1 0.13 for a page read right). Two guards, so text
is never dropped:

* a line that opens :data:`DEEP_MARKERS` or more list or quote markers before its text is
  text, not structure (its first marker escaped: ``\\- - - … x`` reads as the line as
  written); a line of markers alone stays what CommonMark makes of it (a rule);
* the nesting limit is :data:`MAX_NESTING` for what indentation alone nests.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

DEEP_MARKERS = 6  # list/quote markers opening one line: no page nests six containers in a line
MAX_NESTING = 200  # markdown-it's limit (its preset's 20 cuts real pages short)

_MARKER = r"(?:[-+*>]|\d{1,9}[.)])"
_RUN = rf"(?:{_MARKER}[ \t]+){{{DEEP_MARKERS - 1},}}{_MARKER}(?:[ \t]|$)"
# ...followed by text on the line: a line of markers alone ("- - - - - -") stays a rule
_DEEP = re.compile(rf"^([ \t]*)({_RUN})(?=[^\n]*[^-+*>\d.)\s])", re.M)


def _escape_first(match: re.Match[str]) -> str:
    indent, markers = match.group(1), match.group(2)
    digits = re.match(r"\d+", markers)
    if digits:  # "1." / "1)": escape the delimiter
        return indent + markers[: digits.end()] + "\\" + markers[digits.end() :]
    return indent + "\\" + markers


def flatten_deep(markdown: str) -> str:
    """``markdown`` with each line that opens ``DEEP_MARKERS`` or more markers made text."""
    return _DEEP.sub(_escape_first, markdown)


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """CommonMark with tables, HTML passed through (sanitize after), the raised limit."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING}).enable("table")


def render(markdown: str) -> str:
    """``markdown`` as HTML (unsanitized: the caller cleans it), never cut short."""
    return parser().render(flatten_deep(markdown))


def parse(markdown: str) -> list[Token]:
    """``markdown``'s tokens (line maps as in ``markdown``), never cut short."""
    return parser().parse(flatten_deep(markdown))
