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
