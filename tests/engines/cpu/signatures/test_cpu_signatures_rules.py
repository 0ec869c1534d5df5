"""The signature detector's page-level rules (workbench/engines/cpu/signatures/rules.py and
signature_closing.py), each on ink built for the case, and the handwritten-page path of
``signatures.measure`` on a page written with the real pen signatures of
tests/data/signatures (MIT, see SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from workbench.engines.cpu.boxes import Box, LayoutBox, Line, Word
from workbench.engines.cpu.signatures import ink as signatures
from workbench.engines.cpu.signatures import rules
from workbench.engines.cpu.signatures.closing import closing_signature

SIGS = Path(__file__).resolve().parents[3] / "data" / "signatures"
LINE = 40.0


def _body(n: int = 6) -> list[Box]:
    """Blobs of ``n`` handwritten body lines: three words each, from x=100 to about x=1000."""
    out: list[Box] = []
    for i in range(n):
        y = 100 + 70 * i
        out += [(100, y, 380, y + LINE), (420, y, 700, y + LINE), (740, y, 1000, y + LINE)]
    return out


def test_closing_found_indented_last_line():
    closing = (560.0, 600.0, 900.0, 670.0)
    assert closing_signature([*_body(), closing], LINE) == closing


def test_closing_not_found_when_last_line_starts_with_the_body():
    last = (100.0, 600.0, 520.0, 640.0)  # the end of a paragraph: left-aligned, short
    assert closing_signature([*_body(), last], LINE) is None


def test_closing_not_found_on_a_paragraph_first_line():
    first = (180.0, 600.0, 1000.0, 640.0)  # indented a little, runs to the right margin
    assert closing_signature([*_body(), first], LINE) is None


def test_closing_takes_the_name_beside_words_on_the_last_line():
    yrs, name = (330.0, 610.0, 400.0, 650.0), (520.0, 600.0, 950.0, 670.0)
    assert closing_signature([*_body(), yrs, name], LINE) == name


def test_closing_takes_the_second_last_line_above_an_address():
    name, address = (560.0, 600.0, 900.0, 670.0), (100.0, 690.0, 400.0, 730.0)
    assert closing_signature([*_body(), name, address], LINE) == name


def test_closing_takes_the_name_above_a_two_line_address():
    name = (560.0, 600.0, 900.0, 670.0)
    address = [(100.0, 690.0, 400.0, 730.0), (180.0, 750.0, 450.0, 790.0)]  # "Mr C.W. Mills"
    assert closing_signature([*_body(), name, *address], LINE) == name


def test_no_closing_three_lines_up_when_the_letter_goes_on_below():
    tall = (560.0, 600.0, 900.0, 670.0)  # indented and tall, but the body goes on under it
    more = [(100.0, 690.0, 1000.0, 730.0), (100.0, 750.0, 700.0, 790.0)]
    assert closing_signature([*_body(), tall, *more], LINE) is None


def test_closing_joins_a_long_name_and_its_loose_descender():
    """Augusta Evans Wilson: words far apart, longer than a closing alone may be (0.8 of the
    text width), and a "g" whose descender is a piece of its own."""
    words = [
        (240.0, 560.0, 500.0, 640.0),
        (550.0, 580.0, 780.0, 640.0),
        (830.0, 580.0, 1030.0, 640.0),
    ]
    descender = (320.0, 630.0, 350.0, 700.0)
    found = closing_signature([*_body(), *words, descender], LINE)
    assert found == (240.0, 560.0, 1030.0, 700.0)


def test_name_under_a_closing_phrase_found_from_the_margin():
    """O. W. Holmes: "Yours very truly" indented, the name below it from the body's edge and
    no taller than the text."""
    closing, name = (300.0, 560.0, 700.0, 600.0), (160.0, 610.0, 800.0, 650.0)
    assert closing_signature([*_body(), closing, name], LINE) == name


def test_date_at_the_margin_under_a_name_is_not_the_name():
    """Julia Ward Howe: closing, name no taller than the text, then the date at the margin."""
    closing, name = (450.0, 560.0, 800.0, 600.0), (500.0, 610.0, 900.0, 650.0)
    date = (100.0, 670.0, 400.0, 710.0)
    assert closing_signature([*_body(), closing, name, date], LINE) == name


def test_addressee_at_the_margin_under_a_low_name_is_not_taken():
    """J. A. Early: a name no taller than a line, then "C. W. Mills" at the margin; the name
    is not found (it is no taller than the text), the addressee is not taken for it."""
    name, addressee = (340.0, 560.0, 900.0, 615.0), (120.0, 630.0, 700.0, 680.0)
    assert closing_signature([*_body(), name, addressee], LINE) is None


def test_no_closing_where_a_word_touches_the_line_above():
    """J. A. Early p. 1: "him for civil" after "qualifies" on the last line, its ascenders
    joined to the line above, sits on the line's baseline: text going on, not a name."""
    word, joined = (100.0, 620.0, 380.0, 660.0), (480.0, 560.0, 900.0, 655.0)
    assert closing_signature([*_body(), word, joined], LINE) is None
    name = (480.0, 600.0, 900.0, 700.0)  # a name beside the words, reaching below them
    assert closing_signature([*_body(), word, name], LINE) == name


def test_closing_phrase_dipping_into_the_names_line_is_left_out():
    """Charles Foster: the flourish of "Yours truly" dips into the name's line; the name is
    the piece written under the phrase, not the phrase, the widest piece."""
    phrase, name = (480.0, 560.0, 820.0, 660.0), (660.0, 620.0, 860.0, 690.0)
    assert closing_signature([*_body(), phrase, name], LINE) == name


def test_name_above_its_address_under_a_closing_phrase():
    """Frank H. Willard: "Sincerely", the name, then "1900 Oakmont" and "Tampa", shorter,
    whose flourish makes it tall enough to pass for a name on its own."""
    closing, name = (450.0, 560.0, 700.0, 600.0), (300.0, 610.0, 900.0, 660.0)
    street, town = (420.0, 665.0, 750.0, 705.0), (500.0, 710.0, 760.0, 790.0)
    assert closing_signature([*_body(), closing, name, street, town], LINE) == name


def test_no_closing_without_a_page_of_writing():
    assert closing_signature([(560.0, 600.0, 900.0, 650.0)], LINE) is None


def _zigzag(draw: ImageDraw.ImageDraw, x0: int, x1: int, top: int, bottom: int) -> None:
    """Pen-like ink: a zigzag between two rows, as joined letters run along a line."""
    pts = [(x, top if (x - x0) // 15 % 2 else bottom) for x in range(x0, x1, 15)]
    draw.line(pts, fill=255, width=3)


def _ink(*strokes: tuple[int, int, int, int]) -> np.ndarray:
    img = Image.new("L", (800, 400), 0)
    draw = ImageDraw.Draw(img)
    for x0, x1, top, bottom in strokes:
        _zigzag(draw, x0, x1, top, bottom)
    return np.asarray(img)


def test_name_part_drops_the_closing_line_that_touches_the_name():
    ink = _ink((100, 400, 50, 85), (100, 700, 150, 240))
    ink = ink.copy()
    ink[85:150, 298:302] = 255  # a descender of the closing reaches down into the name
    top = rules.name_part(ink, (100.0, 50.0, 700.0, 242.0), LINE)[1]
    assert 140 <= top <= 155, top


def test_name_part_keeps_a_name_with_its_underline():
    ink = _ink((100, 700, 100, 190)).copy()
    ink[208:212, 100:700] = 255  # an underline stroke below the name: too low to be a name
    box = (100.0, 98.0, 700.0, 212.0)
    assert rules.name_part(ink, box, LINE) == box


def test_name_part_keeps_a_tall_name_without_a_valley():
    ink = _ink((100, 700, 60, 230))
    box = (100.0, 58.0, 700.0, 232.0)
    assert rules.name_part(ink, box, LINE) == box


def _stats(boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
    return np.array([(x, y, w, h, w * h // 3) for x, y, w, h in boxes])


def test_grid_of_keys_is_a_grid():
    keys = [(60 * c, 60 * r, 40, 40) for r in range(4) for c in range(3)]
    assert rules.is_grid(_stats(keys), LINE)


def test_pen_strokes_are_not_a_grid():
    strokes = [(0, 0, 180, 60), (190, 20, 30, 40), (230, 5, 90, 55), (330, 25, 12, 12)]
    strokes += [(350, 0, 140, 70), (500, 10, 60, 45), (570, 30, 25, 20)]
    assert not rules.is_grid(_stats(strokes), LINE)


def test_row_of_uneven_pitch_is_not_a_grid():
    keys = [(x, 0, 40, 40) for x in (0, 60, 200, 260, 500, 560)]
    assert not rules.is_grid(_stats(keys), LINE)


def test_note_line_starts_with_the_body_and_is_long():
    assert rules.is_note((105, 500, 800, 540), 100.0, 1000.0, LINE)
    assert not rules.is_note((600, 500, 900, 560), 100.0, 1000.0, LINE)  # set to the right
    assert not rules.is_note((105, 500, 400, 540), 100.0, 1000.0, LINE)  # short: a name


def test_ink_mask_ignores_a_photos_shading():
    """Paper shaded from white to mid grey across the page, dark strokes on both sides: the
    strokes are ink, the shaded paper is not (Otsu on the raw page takes the shade as ink)."""
    h, w = 400, 600
    paper = np.tile(np.linspace(250, 120, w, dtype=np.float32), (h, 1))
    img = Image.fromarray(paper.astype(np.uint8))
    draw = ImageDraw.Draw(img)
    for x in (60, 500):  # a stroke on the bright side and one on the shaded side
        draw.line([(x, 100), (x + 60, 160)], fill=int(paper[0, x] * 0.4), width=4)
    ink = rules.ink_mask(np.asarray(img))
    assert ink[130, 90] and ink[130, 530]  # both strokes
    assert ink[:, 560:].mean() < 0.05 * 255  # the shaded paper right of the second stroke
    assert ink.mean() < 0.02 * 255


def _written_page(indent_last: bool) -> Image.Image:
    """A page of 'writing': real pen signatures as words (2x), three to a line, six lines from
    the left margin, then one more, written larger (3x, as a name is signed), either indented
    (a closing) or from the margin (text)."""
    page = Image.new("RGB", (1400, 1300), "white")
    pen = Image.open(SIGS / "mocksign_2.png").convert("RGB")

    def put(x: int, y: int, scale: int) -> None:
        sig = pen.resize((pen.width * scale, pen.height * scale), Image.Resampling.BICUBIC)
        under = page.crop((x, y, x + sig.width, y + sig.height))
        page.paste(ImageChops.darker(under, sig), (x, y))

    for i in range(6):
        for j in range(3):
            put(120 + j * 370, 120 + 110 * i, 2)
    put(700 if indent_last else 120, 120 + 110 * 6 + 40, 3)
    return page


def test_handwritten_page_gives_only_its_closing():
    found = [b for b in signatures.measure(_written_page(True), [], handwritten=True) if b.ok]
    assert len(found) == 1, found
    x0, y0, _, _ = found[0].box
    assert x0 >= 690 and y0 >= 120 + 110 * 6  # the indented last line, nothing above it


def test_handwritten_page_without_closing_gives_nothing():
    found = [b for b in signatures.measure(_written_page(False), [], handwritten=True) if b.ok]
    assert found == []


def _printed(sig_at: tuple[int, int]) -> tuple[Image.Image, list[Line]]:
    """A 'printed' page: twelve OCR lines read with confidence down the left column (their
    ink is blank paper, which is all the detector needs of them), and a real pen signature
    (mocksign_1, scaled 2.5x) written at ``sig_at``."""
    page = Image.new("RGB", (1400, 1800), "white")
    sig = Image.open(SIGS / "mocksign_1.png").convert("RGB")
    sig = sig.resize((round(sig.width * 2.5), round(sig.height * 2.5)), Image.Resampling.BICUBIC)
    x, y = sig_at
    page.paste(ImageChops.darker(page.crop((x, y, x + sig.width, y + sig.height)), sig), (x, y))
    lines = []
    for i in range(12):
        box = (100.0, 100.0 + 40 * i, 1100.0, 125.0 + 40 * i)
        words = [
            Word("word", (100.0 + 100 * j, box[1], 180.0 + 100 * j, box[3]), 95.0)
            for j in range(10)
        ]
        lines.append(Line("word " * 10, box, 95.0, "tesseract", words))
    return page, lines


def test_printed_page_signature_found():
    page, lines = _printed((700, 1300))
    found = [b for b in signatures.measure(page, lines) if b.ok]
    assert len(found) == 1 and found[0].box[0] >= 700 and found[0].box[1] >= 1300


def test_signature_inside_a_figure_is_part_of_the_picture():
    page, lines = _printed((700, 1300))
    figure = LayoutBox("figure", (600.0, 1200.0, 1300.0, 1500.0), 0.9)
    blobs = signatures.measure(page, lines, layout=[figure])
    assert [b.reason for b in blobs if b.box[1] >= 1250] == ["inside a figure"]


def test_long_line_from_the_body_edge_is_a_note():
    page = Image.new("RGB", (1400, 1800), "white")
    sig = Image.open(SIGS / "mocksign_1.png").convert("RGB")
    sig = sig.resize((round(sig.width * 2.5), round(sig.height * 2.5)), Image.Resampling.BICUBIC)
    for k in range(2):  # two words of writing side by side, starting at the body's left edge
        x = 100 + k * (sig.width + 20)
        page.paste(
            ImageChops.darker(page.crop((x, 1300, x + sig.width, 1300 + sig.height)), sig),
            (x, 1300),
        )
    _, lines = _printed((0, 0))
    blobs = [b for b in signatures.measure(page, lines) if b.box[1] >= 1250]
    assert [b.reason for b in blobs] == ["note line"]


def test_handwritten_page_closing_read_as_a_page_number_is_a_footer():
    """The same indented last line, but OCR reads it as "Page 2 of 3": furniture."""
    y = 120 + 110 * 6 + 40
    folio = Line("Page 2 of 3", (700.0, float(y), 1000.0, float(y + 80)), 80.0, "rapidocr")
    blobs = signatures.measure(_written_page(True), [folio], handwritten=True)
    assert [b for b in blobs if b.ok] == []


def test_no_closing_for_a_mark_shorter_than_a_name():
    mark = (900.0, 600.0, 1040.0, 650.0)  # 3.5 lines wide: a blot or a page-curl shadow
    assert closing_signature([*_body(), mark], LINE) is None


def test_handwriting_under_a_printed_letterhead_is_a_handwritten_page():
    """OCR trusts fifteen letterhead words, but most ink is the writing below: the page is
    judged as handwriting (its closing only), not line by line."""
    words = [Word("HEAD", (100.0 + 60 * j, 20.0, 150.0 + 60 * j, 45.0), 95.0) for j in range(15)]
    head = Line("HEAD " * 15, (100.0, 20.0, 1000.0, 45.0), 95.0, "tesseract", words)
    found = [b for b in signatures.measure(_written_page(True), [head]) if b.ok]
    assert len(found) == 1 and found[0].box[0] >= 690, found


def test_no_closing_as_low_as_a_text_line():
    """An indented last line of text height ends a paragraph; a name is written larger."""
    assert closing_signature([*_body(), (560.0, 600.0, 900.0, 640.0)], LINE) is None
