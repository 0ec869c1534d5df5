"""A heading's section label: the one rule for what numbers a heading rather than names it.

"Chapter 5", "Appendix A:", "2.3", "IV.", "III-A", "A." (roman and lettered sections, as a
PDF outline writes them, "III-A Google DeepDream", and as the page sets them, "A. Google
DeepDream") are labels; :func:`without_label` drops one at the start of a heading so that two
spellings of the same heading compare equal. Used by the CPU engine to match a page's lines
to its PDF's bookmarks and by the evaluation to match headings to their truth.
"""

from __future__ import annotations

import re

#: a leading label: "Chapter 5", "2.3", "IV.", "III-A", "A." (roman and lettered sections)
LABEL = re.compile(
    r"^\s*(?:(?i:chapter|appendix|part|section)\s+\w+[:.]?|\d+(?:\.\d+)*\.?"
    r"|(?:[IVXL]+|[A-Z])(?:-[A-Z0-9]+)*\.?|[A-Z]\.(?:\d+\.?)*)\s+",
)


def without_label(text: str) -> str:
    """``text`` without its leading section label (unchanged when it has none)."""
    return LABEL.sub("", text, count=1)
