from workbench.parsers.html_md import clean_table_html, clean_tables, html_to_markdown


def test_headings_paragraphs_inline():
    md = html_to_markdown("<h1>Title</h1><p>a <b>bold</b> and <i>it</i><br/>next</p>")
    assert md == "# Title\n\na **bold** and *it*\nnext"


def test_math_inline_and_block():
    md = html_to_markdown('<p>x <math>a^2</math></p><math display="block">\\sum_i x_i</math>')
    assert md == "x $a^2$\n\n$$\n\\sum_i x_i\n$$"


def test_ordered_and_nested_lists():
    md = html_to_markdown("<ol><li>one</li><li>two<ul><li>inner</li></ul></li></ol>")
    assert md.splitlines() == ["1. one", "2. two", "  - inner"]


def test_dollars_and_markup_chars_escaped_in_text():
    assert html_to_markdown("<p>costs $5 *now*</p>") == "costs \\$5 \\*now\\*"


def test_table_is_cleaned_to_table_tags_only():
    html = (
        '<table border="1" onclick="evil()"><tr><td colspan="2" style="color:red">'
        "<script>alert(1)</script><b>A</b> <math>x</math></td></tr></table>"
    )
    md = html_to_markdown(html)
    assert md == '<table><tbody><tr><td colspan="2">A $x$</td></tr></tbody></table>'


def test_clean_table_html_strips_everything_but_table_tags():
    out = clean_table_html(
        '<table><tr><td><img src=x onerror=alert(1)><a href="j">t</a></td></tr></table>'
    )
    assert "img" not in out and "href" not in out and "<td>t</td>" in out


def test_clean_tables_inside_markdown_and_unclosed():
    md = clean_tables(
        "Intro\n<table><tr><td onmouseover='x'>1</td></tr></table>\nEnd <table><tr><td>2"
    )
    assert "onmouseover" not in md and md.startswith("Intro\n<table>") and "End <table>" in md
    assert md.rstrip().endswith("</table>")


def test_images_and_checkboxes():
    md = html_to_markdown(
        '<p><input type="checkbox" checked/>Yes <input type="checkbox"/>No</p><img alt="a chart"/>'
    )
    assert md == "[x] Yes [ ] No\n\n*[Image: a chart]*"


def test_truncated_html_never_raises():
    for cut in ("<p>half <b>bold", "<table><tr><td>1</td><td>2", "<math>x^", "<ol><li>a<li", "<"):
        assert isinstance(html_to_markdown(cut), str)
    assert (
        html_to_markdown("<table><tr><td>1</td><td>2")
        == "<table><tbody><tr><td>1</td><td>2</td></tr></tbody></table>"
    )
