"""The one nh3 policy: what every view keeps, what none lets through, and formulas intact."""

from __future__ import annotations

import html
import re

import pytest

from tests.markdown.html_tags import parsed
from workbench.markdown.sanitize import (
    ALLOWED_TAGS,
    TABLE_TAGS,
    clean_html,
    clean_table_html,
    clean_tables,
    render_html,
    sanitize_markdown,
)

HOSTILE = (
    "<iframe srcdoc=\"<script>parent.document.title='PWNED'</script>\"></iframe>"
    "<img src=x onerror=\"document.title='PWNED2'\">"
    '<a href="javascript:alert(1)">click me</a><a href="data:text/html,x">data</a>'
    "<style>h2{color:green}</style><script>alert(1)</script>"
    '<form action=http://evil><input name=q value="evil-field"><button>Go</button></form>'
    "<p style='color:red' onclick='x()'>para</p>"
)


@pytest.mark.parametrize("view", [sanitize_markdown, render_html, clean_html])
def test_no_view_lets_hostile_markup_through(view) -> None:
    out = view(HOSTILE)
    tags = parsed(out)
    assert set(tags.tags) <= ALLOWED_TAGS
    for bad in ("iframe", "img", "style", "script", "form", "input", "button"):
        assert bad not in tags.tags, out
    assert all(name in {"href", "rel"} for name, _ in tags.attrs), tags.attrs
    hrefs = [v for n, v in tags.attrs if n == "href"]
    assert hrefs == [], hrefs  # javascript: and data: links lose their target
    assert "para" in out and "click me" in out
    if view is clean_html:  # the narrow view for built HTML strips what it does not allow
        assert "PWNED" not in out.replace("PWNED'", "")  # the iframe's script text is gone
        assert "color:green" not in out and "alert(1)</script" not in out
    else:  # model output: what the policy does not allow is shown as text, never dropped
        text = html.unescape(re.sub(r"<[^>]*>", "", out))
        assert "<script>alert(1)</script>" in text and "<style>h2{color:green}</style>" in text
        assert "<button>Go</button>" in text and '<img src=x onerror="' in text


TAG_LIKE = "(see Note #5 and <Segment Information>)"


@pytest.mark.parametrize(
    "markdown",
    [
        TAG_LIKE,  # as a VLM writes it
        TAG_LIKE.replace("<", "\\<"),  # as the CPU engine escapes it for Markdown
        f"| a | b |\n|---|---|\n| {TAG_LIKE} | 2 |",
        f"<table><tr><td>{TAG_LIKE}</td></tr></table>",
        f"- {TAG_LIKE}\n- <!-- a comment --> and <?php echo 1 ?>",
    ],
)
def test_tag_like_text_is_shown_not_dropped(markdown: str) -> None:
    """What a reader reads keeps every character the Markdown file has: the shown text of the
    sanitized Markdown (rendered as st.markdown does: HTML in it, then Markdown) and of the HTML
    export contain the tag-like words, with no stray backslash or entity letters."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    for out in (
        md.render(sanitize_markdown(markdown)),
        render_html(markdown),
    ):
        text = html.unescape(re.sub(r"<[^>]*>", "", out))
        assert TAG_LIKE in text, out
        assert "\\" not in text and "&lt;" not in text, out
    assert (
        "<!-- a comment --> and <?php echo 1 ?>"
        in html.unescape(re.sub(r"<[^>]*>", "", render_html(markdown)))
        or "comment" not in markdown
    )


def test_markdown_escapes_stay_escapes() -> None:
    assert sanitize_markdown("a \\> b \\& c \\\\<b>d</b>") == "a &gt; b &amp; c \\\\<b>d</b>"


def test_links_keep_safe_targets_with_rel() -> None:
    out = clean_html('<a href="https://example.org/x">x</a><a href="mailto:a@b.c">m</a>')
    assert out.count('rel="noopener noreferrer nofollow"') == 2
    assert 'href="https://example.org/x"' in out and 'href="mailto:a@b.c"' in out


def test_tables_keep_cell_spans_everywhere() -> None:
    table = "<table><tr><th colspan='2'>H</th></tr><tr><td rowspan=\"2\">1</td></tr></table>"
    for view in (sanitize_markdown, render_html, clean_html, clean_table_html):
        out = view(table)
        assert 'colspan="2"' in out and 'rowspan="2"' in out, view
    assert render_html("| a | b |\n|---|---|\n| 1 | 2 |").count("<td>") == 2


def test_narrower_views_never_widen_the_policy() -> None:
    assert TABLE_TAGS <= ALLOWED_TAGS
    assert clean_html("<del>a</del><ins>b</ins><b>c</b>", tags={"del", "ins"}) == (
        "<del>a</del><ins>b</ins>c"
    )
    # asking for a tag outside the policy does not allow it
    assert clean_html("<img src=x><script>1</script>t", tags={"img", "script"}) == "t"
    assert clean_table_html(
        "<table><tr><td><b>x</b><a href='https://e'>y</a></td></tr></table>"
    ) == ("<table><tbody><tr><td>xy</td></tr></tbody></table>")
    md = "before <table><tr><td onclick=x>1</td></tr></table> after <table><tr><td>2"
    assert clean_tables(md) == (
        "before <table><tbody><tr><td>1</td></tr></tbody></table> after "
        "<table><tbody><tr><td>2</td></tr></tbody></table>"
    )


@pytest.mark.parametrize(
    ("markdown", "expected"),
    [
        # nh3 alone turns "$$a<b$$" into "$$a" (it reads "<b$$" as a tag)
        ("$$a<b$$", r"$$a\lt b$$"),
        ("where $x > 0$ and $y<1$", r"where $x \gt  0$ and $y\lt 1$"),
        (r"$$\begin{pmatrix} a & b \\ c & d \end{pmatrix}$$", None),  # & stays & for KaTeX
        (r"\(a<b\) and \[c>d\]", r"\(a\lt b\) and \[c\gt d\]"),
    ],
)
def test_formulas_survive_for_katex(markdown: str, expected: str | None) -> None:
    assert sanitize_markdown(markdown) == (markdown if expected is None else expected)


def test_math_cannot_smuggle_markup() -> None:
    """Inside math ``<`` becomes ``\\lt``; outside it is nh3's; a ``$`` price is not math."""
    out = sanitize_markdown("$<img src=x onerror=alert(1)>$ and $<script>x</script>$")
    assert "<" not in out and ">" not in out
    assert sanitize_markdown("costs $5 < $10 & more") == "costs $5 &lt; $10 &amp; more"
    # the placeholder used for & inside math cannot be injected from outside
    assert sanitize_markdown("\ue000lt;script\ue000gt;") == "lt;scriptgt;"
