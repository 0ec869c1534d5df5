from workbench.parsers import ParseContext, get_parser
from workbench.parsers.lighton import NO_BOXES_NOTE
from workbench.schema import Label

PLAIN = get_parser("lighton_plain")
GROUND = get_parser("lighton_grounding")

MD = """# A Study of Things

## 1 Introduction

Some text that spans
two lines.

- first
- second

$$
E = mc^2
$$

<table><tr><td onclick="x">1</td></tr></table>

| a | b |
|---|---|
| 1 | 2 |

![A bar chart of results](fig.png)

Figure 2: Results by year.
"""


def test_plain_gives_unlocated_blocks_and_the_note():
    page = PLAIN(MD, ParseContext(width=1000, height=1400))
    assert [r.label for r in page.regions] == [
        Label.TITLE,
        Label.SECTION_HEADER,
        Label.TEXT,
        Label.LIST,
        Label.FORMULA,
        Label.TABLE,
        Label.TABLE,
        Label.FIGURE,
        Label.CAPTION,
    ]
    assert all(r.bbox is None for r in page.regions)
    assert page.notes == [NO_BOXES_NOTE]
    assert page.regions[2].text == "Some text that spans\ntwo lines."
    assert "onclick" not in page.regions[5].text
    assert page.regions[7].text == "A bar chart of results"


def test_grounding_readme_example(sample):
    page = GROUND(sample("lighton3_grounding_readme.txt"), ParseContext(width=2000, height=1000))
    assert [(r.label, r.native_label) for r in page.regions] == [
        (Label.FIGURE, "image"),
        (Label.CAPTION, "caption"),
        (Label.TITLE, "title"),
        (Label.TEXT, "text"),
        (Label.PAGE_NUMBER, "page_number"),
    ]
    # 309,90,691,516 on 0-1000 of a 2000 x 1000 page
    assert page.regions[0].bbox.as_list() == [618.0, 90.0, 1382.0, 516.0]
    assert page.regions[2].text == "## 2.2 LightOnOCR-1"
    assert not page.truncated


def test_grounding_continuation_and_multiline_blocks():
    raw = (
        "![text](0,0,500,100) First column ends\n![text+](500,0,1000,100) here.\n"
        "![table](0,200,1000,400)\n<table>\n<tr><td>1</td></tr>\n</table>"
    )
    page = GROUND(raw, ParseContext(width=1000, height=1000))
    assert [r.continues for r in page.regions] == [False, True, False]
    assert page.regions[1].native_label == "text"
    assert page.regions[2].label is Label.TABLE and "<td>1</td>" in page.regions[2].text


def test_grounding_cut_marker_is_not_a_block():
    raw = "![text](0,0,500,100) Done.\n![caption](10,20"
    page = GROUND(raw, ParseContext(width=1000, height=1000))
    assert len(page.regions) == 1 and page.truncated


def test_lighton_furniture_and_figure_labels_from_upstream_code():
    from workbench.parsers.base import ParseContext
    from workbench.parsers.lighton import parse_grounding
    from workbench.schema import Label

    raw = (
        "![page_header](100,20,900,40) Journal of Things\n"
        "![figure](100,100,900,500)\n"
        "![figure_title](100,510,900,530) Figure 2: A plot.\n"
        "![paragraph](100,540,900,700) Body text.\n"
        "![page_footnote](100,900,900,920) 1 A note.\n"
        "![footer_image](100,950,200,980)\n"
    )
    page = parse_grounding(raw, ParseContext(1000, 1000))
    labels = [(r.native_label, r.label) for r in page.regions]
    assert labels == [
        ("page_header", Label.HEADER),
        ("figure", Label.FIGURE),  # kept without text: worth drawing
        ("figure_title", Label.CAPTION),
        ("paragraph", Label.TEXT),
        ("page_footnote", Label.FOOTNOTE),
    ]  # an empty footer image is dropped like any empty non-figure block


def test_lighton_escaped_dollars_repaired():
    from workbench.parsers.base import ParseContext
    from workbench.parsers.lighton import parse_plain

    page = parse_plain(r"The area is \$\pi r^2\$, it costs \$5.", ParseContext(100, 100))
    assert page.regions[0].text == r"The area is $\pi r^2$, it costs \$5."
