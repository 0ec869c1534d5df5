"""HTML to Markdown for model output (Chandra's block HTML), on the standard library's parser.

Contract:

* headings ``<h1>``..``<h6>`` become ``#``..``######``; ``<p>`` and ``<div>`` paragraphs are
  separated by a blank line; ``<br>`` is a line break;
* ``<ul>``/``<ol>`` become ``-`` / ``1.`` lists, nested lists indented; a bullet character the
  model typed inside ``<li>`` ("• item") is dropped;
* ``<b>``/``<strong>`` → ``**``, ``<i>``/``<em>`` → ``*``, ``<del>`` → ``~~``, ``<code>`` →
  backticks, ``<pre>`` → a fenced block, ``<hr>`` → ``---``, checkboxes → ``[x]``/``[ ]``;
* ``<math>`` → ``$…$``, ``<math display="block">`` → ``$$…$$`` on its own lines;
* ``<img alt=…>`` → ``*[Image: alt]*`` (models leave ``src`` empty);
* tables stay HTML, rebuilt from table tags only (cell text flattened, math as ``$…$``) and
  cleaned with :func:`~workbench.markdown.sanitize.clean_table_html` (nh3, table tags and
  colspan/rowspan only);
* links keep their text only; unknown tags are transparent; ``$``, ``*``, ``_``, `` ` `` and
  ``<`` in plain text are escaped so they stay literal.

Truncated HTML (an unclosed tag at the end) never raises: what was read is converted.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

# The one sanitizing policy (workbench.markdown.sanitize); re-exported for the other parsers.
from workbench.markdown.sanitize import TABLE_TAGS, clean_table_html, clean_tables

__all__ = ["TABLE_TAGS", "clean_table_html", "clean_tables", "escape_md", "html_to_markdown"]

_BULLET = re.compile(r"^\s*[•·▪‣◦●○■□\-*–]\s+")
_ESCAPE = re.compile(r"([\\`*_$])")


def escape_md(text: str) -> str:
    return _ESCAPE.sub(r"\\\1", text).replace("<", "&lt;")


#: Inline tags and their Markdown marker, the same on open and close ("" keeps the tag:
#: Markdown has no sub/superscript).
_INLINE = {
    "b": "**",
    "strong": "**",
    "i": "*",
    "em": "*",
    "del": "~~",
    "s": "~~",
    "strike": "~~",
    "code": "`",
    "sup": "",
    "sub": "",
}


class _Converter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []  # finished Markdown blocks
        self.line: list[str] = []  # inline text of the block being built
        self.lists: list[list[int | str]] = []  # stack of [kind, counter]
        self.pre = 0
        self.math: list[str] | None = None
        self.math_block = False
        self.table: list[str] | None = None  # rebuilt table HTML while inside <table>
        self.table_depth = 0
        self.heading = 0
        self.skip = 0  # inside <script>/<style>

    # -- helpers -----------------------------------------------------------------------------
    def _text(self, piece: str) -> None:
        if self.math is not None:
            self.math.append(piece)
        elif self.table is not None:
            self.table.append(piece)
        else:
            self.line.append(piece)

    def flush(self) -> None:
        text = "".join(self.line)
        self.line = []
        if self.pre:
            return
        text = re.sub(r"[ \t]+", " ", text)
        text = "\n".join(part.strip() for part in text.split("\n")).strip()
        if not text:
            return
        if self.heading:
            text = "#" * self.heading + " " + text.replace("\n", " ")
        elif self.lists:
            kind, _ = self.lists[-1]
            depth = len(self.lists) - 1
            text = _BULLET.sub("", text, count=1)
            if kind == "ol":
                self.lists[-1][1] = int(self.lists[-1][1]) + 1
                marker = f"{self.lists[-1][1]}. "
            else:
                marker = "- "
            indent = "  " * depth
            text = indent + marker + text.replace("\n", "\n" + indent + " " * len(marker))
            if self.blocks and self.blocks[-1].startswith(("- ", "  ")) and depth >= 0:
                self.blocks[-1] += "\n" + text
                return
            if self.blocks and re.match(r"^\s*\d+\. ", self.blocks[-1]):
                self.blocks[-1] += "\n" + text
                return
        self.blocks.append(text)

    # -- parser callbacks --------------------------------------------------------------------
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag in {"script", "style"}:
            self.skip += 1
            return
        if self.table is not None:
            if tag == "table":
                self.table_depth += 1
            if tag in TABLE_TAGS:
                keep = " ".join(f'{k}="{v}"' for k, v in attrs if k in {"colspan", "rowspan"} and v)
                self.table.append(f"<{tag}{' ' + keep if keep else ''}>")
            elif tag == "math":
                self.math, self.math_block = [], False
            elif tag == "br":
                self.table.append(" ")
            return
        if tag == "math":
            self.math_block = a.get("display") == "block"
            if self.math_block:
                self.flush()
            self.math = []
        elif tag == "table":
            self.flush()
            self.table, self.table_depth = ["<table>"], 1
        elif tag in {"p", "div", "blockquote", "section", "caption"}:
            self.flush()
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading = int(tag[1])
        elif tag in {"ul", "ol"}:
            self.flush()
            self.lists.append([tag, int(a.get("start") or 1) - 1 if tag == "ol" else 0])
        elif tag == "li":
            self.flush()
        elif tag == "br":
            self._text("\n")
        elif tag == "hr":
            self.flush()
            self.blocks.append("---")
        elif tag in _INLINE and not (tag == "code" and self.pre):
            self._text(_INLINE[tag] or f"<{tag}>")
        elif tag == "pre":
            self.flush()
            self.pre += 1
        elif tag == "img":
            alt = (a.get("alt") or "").strip()
            self._text(f"*[Image: {escape_md(alt)}]*" if alt else "*[Image]*")
        elif tag == "input" and (a.get("type") or "").lower() in {"checkbox", "radio"}:
            self._text("[x] " if "checked" in a else "[ ] ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in {"br", "hr", "img", "input", "col"}:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in {"script", "style"}:
            self.skip = max(self.skip - 1, 0)
            return
        if tag == "math" and self.math is not None:
            body = "".join(self.math).strip()
            self.math = None
            if self.table is not None:
                self.table.append(f"${body}$")
            elif self.math_block:
                self.flush()
                self.blocks.append(f"$$\n{body}\n$$")
            else:
                self.line.append(f"${body}$")
            return
        if self.table is not None:
            if tag in TABLE_TAGS:
                self.table.append(f"</{tag}>")
            if tag == "table":
                self.table_depth -= 1
                if self.table_depth == 0:
                    self.blocks.append(clean_table_html("".join(self.table)))
                    self.table = None
            return
        if tag in {"p", "div", "blockquote", "section", "li", "caption"}:
            self.flush()
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.heading = 0
        elif tag in {"ul", "ol"}:
            self.flush()
            if self.lists:
                self.lists.pop()
        elif tag in _INLINE and not (tag == "code" and self.pre):
            self._text(_INLINE[tag] or f"</{tag}>")
        elif tag == "pre" and self.pre:
            code = "".join(self.line).strip("\n")
            self.line = []
            self.pre -= 1
            self.blocks.append(f"```\n{code}\n```")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.math is not None or self.pre:
            self._text(data)
        elif self.table is not None:
            self.table.append(re.sub(r"\s+", " ", data).replace("<", "&lt;"))
        else:
            self._text(escape_md(re.sub(r"\s+", " ", data)))

    def finish(self) -> str:
        self.close()
        if self.math is not None:  # truncated inside <math>
            body = "".join(self.math).strip()
            self.math = None
            if body:
                self.line.append(f"${body}$")
        if self.table is not None:  # truncated inside a table: keep the rows read so far
            self.flush()
            self.blocks.append(clean_table_html("".join(self.table)))
            self.table = None
        if self.pre:
            self.pre = 0
            code = "".join(self.line).strip("\n")
            self.line = []
            self.blocks.append(f"```\n{code}\n```")
        self.flush()
        return "\n\n".join(b for b in self.blocks if b.strip())


def html_to_markdown(html: str) -> str:
    """Markdown for an HTML fragment (see the module docstring). Never raises."""
    converter = _Converter()
    try:
        converter.feed(html)
        return converter.finish()
    except Exception:  # html.parser is lenient, but model output is untrusted
        return escape_md(re.sub(r"<[^>]*>", " ", html)).strip()
