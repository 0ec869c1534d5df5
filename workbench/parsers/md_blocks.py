"""Split a Markdown page into labelled blocks, for models that give no layout boxes.

Blocks, in order of precedence at the start of a line:

* fenced code (```` ``` ````) → ``code`` (an unclosed fence runs to the end);
* display math ``$$…$$`` or ``\\[…\\]`` → ``formula``;
* an HTML ``<table>…</table>`` (cleaned with nh3, table tags only) or a run of ``|`` lines →
  ``table``;
* ``# heading`` → ``title``; ``##``.. → ``section_header``;
* a run of list lines (``-``, ``*``, ``+``, ``1.``, ``1)``) → ``list``;
* a paragraph that is only an image ``![alt](…)`` → ``figure`` (its text is the alt text);
* a paragraph starting "Figure 3:" / "Table 2." → ``caption``;
* anything else, up to a blank line → ``text``.

Returns ``(label, native_label, text)`` triples; never raises.
"""

from __future__ import annotations

import re

from workbench.parsers.html_md import clean_tables
from workbench.schema import Label

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+\S")
_LIST = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S")
_IMAGE = re.compile(r"^!\[([^\]]*)\]\([^)]*\)\s*$")
_CAPTION = re.compile(r"^(?:\*\*)?(?:Figure|Fig\.|Table|Tab\.|Chart)\s*\d+[.:]", re.I)

Block = tuple[Label, str, str]


def split_markdown(text: str) -> list[Block]:
    lines = text.replace("\r\n", "\n").split("\n")
    blocks: list[Block] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if _FENCE.match(line):
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            j = i + 1
            while j < n and not lines[j].strip().startswith(fence):
                j += 1
            blocks.append((Label.CODE, "code", "\n".join(lines[i : j + 1])))
            i = j + 1
            continue
        if stripped.startswith(("$$", "\\[")):
            close = "$$" if stripped.startswith("$$") else "\\]"
            rest = stripped[2:]
            j = i
            if close not in rest:
                j = i + 1
                while j < n and close not in lines[j]:
                    j += 1
            blocks.append((Label.FORMULA, "formula", "\n".join(lines[i : j + 1]).strip()))
            i = j + 1
            continue
        if stripped.lower().startswith("<table"):
            j = i
            while j < n and "</table" not in lines[j].lower():
                j += 1
            chunk = "\n".join(lines[i : j + 1])
            blocks.append((Label.TABLE, "table", clean_tables(chunk)))
            i = j + 1
            continue
        if stripped.startswith("|"):
            j = i
            while j < n and lines[j].strip().startswith("|"):
                j += 1
            blocks.append((Label.TABLE, "table", "\n".join(lines[i:j])))
            i = j
            continue
        heading = _HEADING.match(stripped)
        if heading:
            level = len(heading.group(1))
            label = Label.TITLE if level == 1 else Label.SECTION_HEADER
            blocks.append((label, f"h{level}", stripped))
            i += 1
            continue
        if _LIST.match(line):
            j = i
            while j < n and lines[j].strip() and (_LIST.match(lines[j]) or lines[j][:1] in " \t"):
                j += 1
            blocks.append((Label.LIST, "list", "\n".join(lines[i:j])))
            i = j
            continue
        j = i
        while j < n and lines[j].strip() and not _starts_block(lines[j]):
            j += 1
        j = max(j, i + 1)
        para = "\n".join(lines[i:j]).strip()
        image = _IMAGE.match(para)
        if image:
            blocks.append((Label.FIGURE, "image", image.group(1).strip()))
        elif _CAPTION.match(para):
            blocks.append((Label.CAPTION, "caption", para))
        else:
            blocks.append((Label.TEXT, "paragraph", para))
        i = j
    return blocks


def _starts_block(line: str) -> bool:
    s = line.strip()
    return bool(
        _FENCE.match(line)
        or _HEADING.match(s)
        or s.startswith(("$$", "\\[", "|"))
        or s.lower().startswith("<table")
    )
