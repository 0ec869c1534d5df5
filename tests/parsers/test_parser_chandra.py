from workbench.parsers import ParseContext, get_parser
from workbench.schema import Label

C2 = get_parser("chandra2")
C1 = get_parser("chandra1")


def div(bbox: str, label: str, inner: str = "<p>x</p>") -> str:
    return f'<div data-bbox="{bbox}" data-label="{label}">{inner}</div>'


def test_chandra2_box_scale_1000():
    page = C2(div("500 0 1000 500", "Text"), ParseContext(width=2000, height=1000))
    assert page.regions[0].bbox.as_list() == [1000.0, 0.0, 2000.0, 500.0]


def test_chandra1_box_scale_1024():
    page = C1(div("[512, 0, 1024, 256]", "Text"), ParseContext(width=2048, height=1024))
    assert page.regions[0].bbox.as_list() == [1024.0, 0.0, 2048.0, 256.0]


def test_both_bbox_spellings_in_both_parsers():
    ctx = ParseContext(width=1000, height=1000)
    for parser, scale in ((C2, 1000), (C1, 1024)):
        for spelling in ("100 200 300 400", "[100, 200, 300, 400]"):
            box = parser(div(spelling, "Text"), ctx).regions[0].bbox
            f = 1000 / scale
            assert box is not None and box.as_list() == [
                round(100 * f, 1),
                round(200 * f, 1),
                round(300 * f, 1),
                round(400 * f, 1),
            ]


def test_unreadable_bbox_is_unlocated_not_a_corner_pixel():
    html = div("garbage", "Text") + div("1 2 3", "Text") + '<div data-label="Text"><p>y</p></div>'
    page = C2(html, ParseContext(width=800, height=600))
    assert len(page.regions) == 3
    assert all(r.bbox is None for r in page.regions)
    assert any("no readable box" in n for n in page.notes)


def test_labels_mapped_native_kept_and_blank_page_skipped():
    html = (
        div("0 0 10 10", "Blank-Page", "")
        + div("0 0 100 100", "Page-Header")
        + div("0 0 100 100", "Equation-Block", '<math display="block">E=mc^2</math>')
        + div("0 0 100 100", "Mystery-Block")
    )
    page = C2(html, ParseContext(width=100, height=100))
    assert [(r.label, r.native_label) for r in page.regions] == [
        (Label.HEADER, "Page-Header"),
        (Label.FORMULA, "Equation-Block"),
        (Label.TEXT, "Mystery-Block"),
    ]
    assert page.regions[1].text == "$$\nE=mc^2\n$$"
    assert [r.id for r in page.regions] == ["r0", "r1", "r2"]


def test_real_chandra2_page(sample):
    page = C2(sample("chandra2_2305.03393v1-pg9.html"), ParseContext(width=1224, height=1584))
    labels = [r.label for r in page.regions]
    assert labels == [
        Label.HEADER,
        Label.TEXT,
        Label.SECTION_HEADER,
        Label.TEXT,
        Label.CAPTION,
        Label.TABLE,
        Label.SECTION_HEADER,
    ]
    assert page.regions[2].text == "### 5.1 Hyper Parameter Optimization"
    assert "*2x speed up*" in page.regions[3].text
    assert page.regions[4].text.startswith("**Table 1.** HPO performed")
    table = page.regions[5].text
    assert table.startswith("<table>") and 'colspan="3"' in table and "border" not in table
    # 225 422 770 590 on a 0-1000 grid of a 1224 x 1584 page
    assert page.regions[5].bbox.as_list() == [275.4, 668.4, 942.5, 934.6]
    assert not page.truncated


def test_real_list_group(sample):
    page = C2(sample("chandra2_list_group.html"), ParseContext(width=1000, height=1000))
    lists = [r for r in page.regions if r.label is Label.LIST]
    assert len(lists) == 1
    lines = lists[0].text.splitlines()
    assert lines[0].startswith("- **IBM MT/ST") and lines[1].startswith("- **Wang")
    assert "•" not in lists[0].text
