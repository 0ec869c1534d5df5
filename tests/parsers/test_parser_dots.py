import json

from workbench.parsers import ParseContext, get_parser
from workbench.parsers.dots import salvage_json, smart_resize
from workbench.schema import Label

DOTS = get_parser("dots_ocr")


def test_smart_resize_grid_and_limits():
    assert smart_resize(1000, 1000) == (1008, 1008)  # rounds each side to the 28 grid
    h, w = smart_resize(6600, 5100)  # 33.7 Mpx page: capped at 11,289,600
    assert h % 28 == 0 and w % 28 == 0 and h * w <= 11_289_600
    assert (h, w) == (3808, 2940)
    assert smart_resize(10, 10) == (56, 56)  # below 3136 px: scaled up
    assert smart_resize(5, 5000)[0] >= 28  # extreme aspect ratio: no exception


def test_boxes_rescaled_from_smart_resize_of_the_page():
    # 1700 x 2200 page -> model input 1708 x 2212 (h, w = 2212, 1708)
    assert smart_resize(2200, 1700) == (2212, 1708)
    raw = json.dumps([{"bbox": [854, 0, 1708, 1106], "category": "Text", "text": "x"}])
    box = DOTS(raw, ParseContext(width=1700, height=2200)).regions[0].bbox
    assert box.as_list() == [850.0, 0.0, 1700.0, 1100.0]


def test_boxes_rescaled_from_given_input_size():
    raw = json.dumps([{"bbox": [100, 100, 200, 200], "category": "Title", "text": "# T"}])
    ctx = ParseContext(width=1000, height=1000, input_width=500, input_height=250)
    assert DOTS(raw, ctx).regions[0].bbox.as_list() == [200.0, 400.0, 400.0, 800.0]


def test_real_output_labels_and_text(sample):
    page = DOTS(sample("dots_list.json"), ParseContext(width=1190, height=1684))
    assert [r.label for r in page.regions][:3] == [
        Label.SECTION_HEADER,
        Label.TEXT,
        Label.SECTION_HEADER,
    ]
    assert page.regions[0].text == "## The Evolution of the Word Processor"
    assert len(page.regions) == 7 and not page.truncated and page.notes == []


def test_picture_kept_formula_wrapped_table_cleaned_unknown_is_text():
    raw = json.dumps(
        [
            {"bbox": [0, 0, 100, 100], "category": "Picture"},
            {"bbox": [0, 0, 100, 100], "category": "Formula", "text": "x^2"},
            {
                "bbox": [0, 0, 100, 100],
                "category": "Table",
                "text": "<table><tr><td style='a'>1</td></tr></table>",
            },
            {"bbox": [0, 0, 100, 100], "category": "Seal", "text": "stamp"},
            {"bbox": "nonsense", "category": "Text", "text": "no box"},
        ]
    )
    page = DOTS(raw, ParseContext(width=1008, height=1008))
    assert [r.label for r in page.regions] == [
        Label.FIGURE,
        Label.FORMULA,
        Label.TABLE,
        Label.TEXT,
        Label.TEXT,
    ]
    assert page.regions[1].text == "$$\nx^2\n$$"
    assert "style" not in page.regions[2].text
    assert page.regions[3].native_label == "Seal"
    assert page.regions[4].bbox is None


def test_salvage_keeps_complete_objects(sample):
    raw = sample("dots_list.json")
    cut = raw[: raw.index("Pre-Digital") + 4]  # inside the third object
    items, broken = salvage_json(cut)
    assert broken and len(items) == 2
    assert salvage_json("not json at all") == ([], True)


def test_dots_json_missing_only_its_bracket_is_complete():
    from workbench.parsers.base import ParseContext
    from workbench.parsers.dots import parse_dots

    whole = '[{"bbox": [10, 10, 100, 40], "category": "Text", "text": "Hello"}'
    page = parse_dots(whole + "\n", ParseContext(1000, 1000))
    assert not page.truncated and [r.text for r in page.regions] == ["Hello"]
    cut = whole + ', {"bbox": [10, 50, 100'
    assert parse_dots(cut, ParseContext(1000, 1000)).truncated
