from workbench.parsers import ParseContext, get_parser
from workbench.schema import Label

OLM = get_parser("olmocr")
CTX = ParseContext(width=995, height=1288)


def test_card_example(sample):
    page = OLM(sample("olmocr2_card_example.md"), CTX)
    assert page.rotation == 0 and not page.truncated
    assert [r.text for r in page.regions] == [
        "olmOCR: Unlocking Trillions of Tokens in PDFs with Vision Language Models",
        "Jake Poz",
    ]
    assert all(r.bbox is None for r in page.regions)
    assert any("no layout boxes" in n for n in page.notes)


def test_rotation_read_from_front_matter():
    raw = (
        "---\nprimary_language: en\nis_rotation_valid: False\nrotation_correction: 90\n"
        "is_table: False\nis_diagram: False\n---\nSideways text"
    )
    page = OLM(raw, CTX)
    assert page.rotation == 90
    assert page.regions[0].text == "Sideways text"


def test_bad_rotation_and_missing_front_matter():
    assert OLM("---\nrotation_correction: 45\n---\nx", CTX).rotation == 0
    page = OLM("# Just Markdown\n\nbody", CTX)
    assert page.rotation == 0 and [r.label for r in page.regions] == [Label.TITLE, Label.TEXT]


def test_null_body_and_cut_front_matter():
    assert OLM("---\nprimary_language: null\nrotation_correction: 0\n---\nnull", CTX).regions == []
    page = OLM(
        "---\nprimary_language: en\nis_rotation_valid: False\nrotation_correction: 180\nis_ta", CTX
    )
    assert page.truncated and page.rotation == 180 and page.regions == []
