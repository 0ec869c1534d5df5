"""Type faces of a text-layer line beyond its words' own flags.

:func:`run_in`: a paragraph that opens on a bold run-in head ("**Annual information
statement.** If the …", "**Penalty.** If you fail …") sets its first line mostly in bold, yet
the line is the paragraph's, not a bold heading line (issue 35: the heading pass cut the line
out of its paragraph, "If the" with it). :mod:`.pdftext` does not call such a line bold.
"""

from __future__ import annotations

from workbench.schema import TextWord

RUN_IN_END = (".", ":", "—")  # how a run-in head ends


def run_in(words: list[TextWord]) -> bool:
    """A paragraph opening on a bold run-in head ("**Annual information statement.** If the
    …"): bold words ending a sentence or a label, then only regular ones. Such a line is the
    paragraph's, not a bold heading line, however few its regular words."""
    k = next((i for i, w in enumerate(words) if not w.bold), len(words))
    tail = words[k:]
    return (
        0 < k < len(words)
        and words[k - 1].text.endswith(RUN_IN_END)
        and not any(w.bold for w in tail)
    )
