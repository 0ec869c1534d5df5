"""The one nh3 policy for untrusted model output, wherever it becomes HTML.

Model output is untrusted: a VLM can be made to write ``<script>``, ``<iframe srcdoc>``,
``onerror=``, ``javascript:`` links, ``<style>`` or a ``<form>``. Every place that shows it as
HTML goes through this module, so there is one allow-list to read and to test.

The policy
    Tags: nh3's defaults (text formatting, headings, lists, links, tables) minus ``img`` (a
    model's image tag shows a broken picture at best and makes the reader's browser fetch any
    URL it names at worst; figures are shown as crops of the page instead), plus ``tfoot``.
    Attributes: nh3's defaults plus ``colspan``/``rowspan`` on cells. Links: ``http``,
    ``https`` and ``mailto`` only, ``rel="noopener noreferrer nofollow"``. So no ``style``,
    ``iframe``, ``form``, ``input``, ``img``, scripts, event handlers or ``javascript:`` /
    ``data:`` URLs, ever.
Math (KaTeX)
    ``st.markdown`` typesets ``$…$`` / ``$$…$$`` / ``\\(…\\)`` / ``\\[…\\]`` itself. An HTML
    sanitizer reads ``a<b`` inside a formula as the start of a tag and ``&`` as an entity,
    which breaks it, so before cleaning, inside math only, ``<``/``>`` become KaTeX's ``\\lt``
    / ``\\gt`` and ``&`` is held aside and put back after. Nothing is exempt from the
    cleaning: a formula that is not one to the renderer is plain text, and never holds a ``<``.

Text that looks like a tag
    "(see Note #5 and <Segment Information>)" is text, and so is any markup the policy does not
    allow: a sanitizer would strip it and the reader would never know. Before cleaning, every
    ``<`` that opens a tag, comment or declaration outside the allowed tags becomes ``&lt;``
    (:func:`escape_disallowed`), so it is shown as written; a Markdown escape ``\\<`` becomes the
    entity alone (``\\&lt;`` would show "&lt;"), and so do ``\\>`` and ``\\&`` after cleaning.
    A ``<script>`` is shown as the text ``<script>``: escaped, never run, never dropped.

Views of the policy (each one narrower, never wider):

* :func:`sanitize_markdown` -- Markdown with HTML in it, for
  ``st.markdown(unsafe_allow_html=True)``.
* :func:`render_html` -- Markdown rendered by markdown-it (raw HTML on, tables on), then cleaned:
  standalone HTML (the HTML export).
* :func:`clean_html` -- an HTML fragment, optionally limited to fewer tags (the word diff:
  ``<del>``/``<ins>`` only).
* :func:`clean_table_html` / :func:`clean_tables` -- table tags and cell spans only (parsers
  keep a model's HTML table as HTML in the page Markdown).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import nh3

ALLOWED_TAGS: frozenset[str] = frozenset((set(nh3.ALLOWED_TAGS) - {"img"}) | {"tfoot"})
_CELL_ATTRS = {"colspan", "rowspan"}
ALLOWED_ATTRIBUTES: dict[str, set[str]] = {
    **{tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items() if tag in ALLOWED_TAGS},
    "td": set(nh3.ALLOWED_ATTRIBUTES.get("td", set())) | _CELL_ATTRS,
    "th": set(nh3.ALLOWED_ATTRIBUTES.get("th", set())) | _CELL_ATTRS,
}
URL_SCHEMES = frozenset({"http", "https", "mailto"})
LINK_REL = "noopener noreferrer nofollow"
TABLE_TAGS = frozenset(
    {"table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col"}
)
assert TABLE_TAGS <= ALLOWED_TAGS

# Display math first ($$ spans lines), then inline; a backslash-escaped \$ is not a delimiter.
_MATH = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$(?!\s)[^$\n]+?(?<![\s\\])\$(?!\d)",
    re.S,
)
_AMP = "\ue000"  # a private-use character: never in model text that matters, never HTML


def clean_html(html: str, tags: Iterable[str] | None = None) -> str:
    """``html`` under the policy; ``tags`` narrows the allowed tags further (never widens)."""
    allowed = ALLOWED_TAGS if tags is None else ALLOWED_TAGS & frozenset(tags)
    return nh3.clean(
        html,
        tags=set(allowed),
        attributes={t: a for t, a in ALLOWED_ATTRIBUTES.items() if t in allowed},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
    )


# A "<" that an HTML parser reads as the start of markup: a start or end tag (its name), a
# comment, a declaration or a processing instruction.
_TAG_OPEN = re.compile(r"(?P<bs>\\*)<(?:/?(?P<name>[A-Za-z][A-Za-z0-9:-]*)|[!?])")
# An entity behind a Markdown escape: after cleaning, "\\<" / "\\>" / "\\&" are "\\&lt;" etc.,
# which Markdown shows as the entity's letters; an odd run of backslashes is the escape.
_ESCAPED_ENTITY = re.compile(r"(?<!\\)((?:\\\\)*)\\(&(?:lt|gt|amp);)")


def escape_disallowed(text: str, tags: Iterable[str] = ALLOWED_TAGS) -> str:
    """``text`` with every ``<`` that opens markup outside ``tags`` (a tag-like word such as
    ``<Segment Information>``, a comment, a ``<script>``) written as ``&lt;``, so a cleaner
    keeps it as text. A backslash escaping that ``<`` goes: the entity is the escape."""
    allowed = {t.lower() for t in tags}

    def repl(match: re.Match[str]) -> str:
        name, bs = match.group("name"), match.group("bs")
        if name is not None and name.lower() in allowed:
            return match.group(0)
        if len(bs) % 2:
            bs = bs[:-1]
        return bs + "&lt;" + match.group(0)[len(match.group("bs")) + 1 :]

    return _TAG_OPEN.sub(repl, text)


def _unescape_entities(markdown: str) -> str:
    return _ESCAPED_ENTITY.sub(r"\1\2", markdown)


def _protect_math(match: re.Match[str]) -> str:
    return match.group(0).replace("&", _AMP).replace("<", r"\lt ").replace(">", r"\gt ")


def sanitize_markdown(markdown: str) -> str:
    """Model Markdown (with any HTML in it) made safe for ``unsafe_allow_html=True``;
    formulas keep their ``<``, ``>`` and ``&`` (see the module docstring)."""
    protected = _MATH.sub(_protect_math, markdown.replace(_AMP, ""))
    return _unescape_entities(clean_html(escape_disallowed(protected))).replace(_AMP, "&")


def render_html(markdown: str) -> str:
    """Safe standalone HTML for untrusted Markdown (math left as written, no KaTeX)."""
    from workbench.markdown import commonmark

    return clean_html(commonmark.render(escape_disallowed(markdown)))


_CELL_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.I)


_CELL_INLINE = frozenset({"sup", "sub"})  # footnote marks: "Maurice<sup>a</sup>" ≠ "Mauricea"


def clean_table_html(html: str) -> str:
    """A table fragment reduced to table tags with colspan/rowspan (and ``sup``/``sub`` in
    cells); everything else stripped. A ``<br>`` in a cell becomes a space first:
    "area<br/>Continent" is two words."""
    html = _CELL_BREAK.sub(" ", html)
    return nh3.clean(
        html,
        tags=set(TABLE_TAGS | _CELL_INLINE),
        attributes={"td": _CELL_ATTRS, "th": _CELL_ATTRS},
    ).strip()


def clean_tables(text: str) -> str:
    """Markdown with every ``<table>…</table>`` (or a trailing unclosed one) cleaned."""
    out: list[str] = []
    pos = 0
    for match in re.finditer(r"<table\b.*?(?:</table\s*>|\Z)", text, flags=re.S | re.I):
        out.append(text[pos : match.start()])
        out.append(clean_table_html(match.group(0)))
        pos = match.end()
    out.append(text[pos:])
    return "".join(out)
