from __future__ import annotations

from workbench.evaluate.compare import align_regions, diff_counts, diff_html, word_diff
from workbench.schema import BBox, Label, PageResult, Region


def reg(rid: str, label: Label, box: tuple[float, float, float, float] | None) -> Region:
    bbox = BBox(x0=box[0], y0=box[1], x1=box[2], y1=box[3]) if box else None
    return Region(id=rid, label=label, native_label=label.value, bbox=bbox)


def page(regions: list[Region], width: int = 1000, height: int = 1000) -> PageResult:
    return PageResult(
        document="d.pdf",
        page=1,
        width=width,
        height=height,
        engine="e",
        model="m",
        regions=regions,
    )


def test_alignment_finds_one_side_only_and_label_mismatch() -> None:
    left = page(
        [
            reg("title", Label.TITLE, (100, 50, 900, 100)),
            reg("table", Label.TABLE, (100, 200, 900, 600)),
            reg("footer", Label.FOOTER, (100, 950, 900, 990)),
            reg("nobox", Label.TEXT, None),
        ]
    )
    right = page(
        [
            reg("t2", Label.SECTION_HEADER, (110, 55, 890, 105)),  # same place, other label
            reg("tab2", Label.TABLE, (100, 210, 900, 610)),
            reg("fig", Label.FIGURE, (100, 650, 900, 900)),  # right only
        ]
    )
    al = align_regions(left, right)
    assert [(m.left.id, m.right.id) for m in al.matched] == [("title", "t2"), ("table", "tab2")]
    assert [m.left.id for m in al.label_mismatches] == ["title"]
    assert [r.id for r in al.left_only] == ["footer"]
    assert [r.id for r in al.right_only] == ["fig"]
    assert [r.id for r in al.unlocated_left] == ["nobox"] and al.unlocated_right == []
    # table: inter 800*390, union 800*400 + 800*400 - inter
    assert abs(al.matched[1].iou - 390 / 410) < 1e-3
    # 2 agreeing of 2*2 matched + 1 + 1 located
    assert abs(al.agreement - 2 / 6) < 1e-9


def test_alignment_is_one_to_one_and_prefers_best_overlap() -> None:
    left = [reg("a", Label.TEXT, (0, 0, 100, 100))]
    right = [reg("x", Label.TEXT, (0, 0, 100, 80)), reg("y", Label.TEXT, (0, 0, 100, 95))]
    al = align_regions(left, right)
    assert [(m.left.id, m.right.id) for m in al.matched] == [("a", "y")]
    assert [r.id for r in al.right_only] == ["x"]


def test_alignment_scales_pages_of_different_size() -> None:
    left = page([reg("a", Label.TEXT, (100, 100, 500, 300))], 1000, 1000)
    right = page([reg("b", Label.TEXT, (200, 200, 1000, 600))], 2000, 2000)
    al = align_regions(left, right)
    assert len(al.matched) == 1 and al.matched[0].iou == 1.0
    assert al.matched[0].right.bbox == BBox(x0=200, y0=200, x1=1000, y1=600)  # kept as is
    assert align_regions(left.regions, right.regions).matched == []


def test_word_diff_ops() -> None:
    ops = word_diff("the quick brown fox", "the slow brown fox jumps")
    assert [(o.kind, o.left, o.right) for o in ops] == [
        ("equal", ["the"], ["the"]),
        ("replace", ["quick"], ["slow"]),
        ("equal", ["brown", "fox"], ["brown", "fox"]),
        ("insert", [], ["jumps"]),
    ]
    assert diff_counts(ops) == {"equal": 3, "insert": 2, "delete": 1}
    assert [o.kind for o in word_diff("a b c", "a c")] == ["equal", "delete", "equal"]
    assert word_diff("", "") == []


def test_diff_html_escapes_model_output() -> None:
    html = diff_html(word_diff("x <b>", "x <script>alert(1)</script>"))
    assert html == "x <del>&lt;b&gt;</del> <ins>&lt;script&gt;alert(1)&lt;/script&gt;</ins>"
    assert "<script>" not in html
