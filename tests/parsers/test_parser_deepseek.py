from workbench.parsers import ParseContext, get_parser
from workbench.schema import Label

DS = get_parser("deepseek_ocr")


def test_scale_999_and_multiple_boxes_united():
    raw = (
        "<|ref|>text<|/ref|><|det|>[[0, 0, 999, 999]]<|/det|>\nall\n"
        "<|ref|>image<|/ref|><|det|>[[0, 0, 100, 100], [200, 200, 300, 300]]<|/det|>"
    )
    page = DS(raw, ParseContext(width=999 * 2, height=999))
    assert page.regions[0].bbox.as_list() == [0.0, 0.0, 1998.0, 999.0]
    assert page.regions[1].bbox.as_list() == [0.0, 0.0, 600.0, 300.0]
    assert page.regions[1].label is Label.FIGURE


def test_real_page_with_table_caption_quirk(sample):
    page = DS(sample("deepseek_2305.03393v1-pg9.mmd"), ParseContext(width=1224, height=1584))
    labels = [(r.label, r.native_label) for r in page.regions]
    assert labels == [
        (Label.SECTION_HEADER, "sub_title"),
        (Label.TEXT, "text"),
        (Label.TABLE, "table"),
        (Label.CAPTION, "table_caption"),
        (Label.SECTION_HEADER, "sub_title"),
        (Label.TEXT, "text"),
    ]
    table, caption = page.regions[2], page.regions[3]
    assert table.text.startswith("<table>") and 'colspan="3"' in table.text
    assert caption.text.startswith("Table 1. HPO") and "<table" not in caption.text
    assert page.regions[0].text == "### 5.1 Hyper Parameter Optimization"
    assert not page.truncated


def test_unreadable_det_is_unlocated():
    page = DS(
        "<|ref|>text<|/ref|><|det|>[[1, 2, x]]<|/det|>\nhello", ParseContext(width=100, height=100)
    )
    assert page.regions[0].bbox is None and page.regions[0].text == "hello"


def test_deepseek_keeps_text_before_the_first_marker():
    from workbench.parsers.base import ParseContext
    from workbench.parsers.deepseek import parse_deepseek

    raw = (
        "end of the previous page's paragraph.\n\n"
        "<|ref|>text<|/ref|><|det|>[[100, 100, 900, 200]]<|/det|>\nNext paragraph."
    )
    page = parse_deepseek(raw, ParseContext(999, 999))
    assert [r.text for r in page.regions] == [
        "end of the previous page's paragraph.",
        "Next paragraph.",
    ]
    assert page.regions[0].bbox is None and page.regions[1].bbox is not None
