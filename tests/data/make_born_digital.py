"""Writes the born-digital test pages ``financial_statement.pdf`` and ``two_column_article.pdf``
with PDFium itself (pypdfium2): real text objects in the standard 14 fonts, ruling lines, a
raised superscript, so their text layer is what a word processor would produce. The content is
written for this project (no third-party text); run ``python tests/data/make_born_digital.py``
to rebuild them. See SOURCES.md.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw

HERE = Path(__file__).resolve().parent


class Page:
    def __init__(self, pdf: pdfium.PdfDocument, width: float = 612, height: float = 792):
        self.pdf, self.height = pdf, height
        self.page = pdf.new_page(width, height)
        self.fonts: dict[str, object] = {}

    def _font(self, name: str) -> object:
        if name not in self.fonts:
            self.fonts[name] = raw.FPDFText_LoadStandardFont(self.pdf.raw, name.encode())
        return self.fonts[name]

    def text(self, x: float, y: float, s: str, size: float = 10, font: str = "Times-Roman",
             align: str = "left") -> float:  # fmt: skip
        """Draw ``s`` with its baseline ``y`` points from the top; returns its width."""
        obj = raw.FPDFPageObj_CreateTextObj(self.pdf.raw, self._font(font), ctypes.c_float(size))
        buf = (s + "\0").encode("utf-16-le")
        raw.FPDFText_SetText(
            obj, ctypes.cast(ctypes.c_char_p(buf), ctypes.POINTER(ctypes.c_ushort))
        )
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        raw.FPDFPageObj_GetBounds(obj, *(ctypes.byref(v) for v in (left, bottom, right, top)))
        width = right.value - left.value
        dx = {"left": 0.0, "right": -width, "center": -width / 2}[align]
        raw.FPDFPageObj_Transform(obj, 1, 0, 0, 1, x + dx, self.height - y)
        raw.FPDFPage_InsertObject(self.page.raw, obj)
        return width

    def rule(self, x0: float, y: float, x1: float, width: float = 0.6) -> None:
        path = raw.FPDFPageObj_CreateNewPath(x0, self.height - y)
        raw.FPDFPath_LineTo(path, x1, self.height - y)
        raw.FPDFPageObj_SetStrokeWidth(path, ctypes.c_float(width))
        raw.FPDFPageObj_SetStrokeColor(path, 0, 0, 0, 255)
        raw.FPDFPath_SetDrawMode(path, 0, 1)
        raw.FPDFPage_InsertObject(self.page.raw, path)

    def paragraph(self, x: float, y: float, width: float, text: str, size: float = 10,
                  font: str = "Times-Roman", leading: float = 1.25) -> float:  # fmt: skip
        """Left-aligned wrapped text; returns the baseline after the last line."""
        line: list[str] = []
        for word in text.split():
            trial = " ".join([*line, word])
            if line and _width(trial, size) > width:
                self.text(x, y, " ".join(line), size, font)
                y += size * leading
                line = [word]
            else:
                line.append(word)
        if line:
            self.text(x, y, " ".join(line), size, font)
            y += size * leading
        return y

    def close(self) -> None:
        raw.FPDFPage_GenerateContent(self.page.raw)


def _width(s: str, size: float) -> float:
    return 0.48 * size * len(s)  # Times-Roman, roughly: only used to wrap lines


FIN_ROWS = [
    ("Revenue", "$", "1,204", "$", "1,087", "$", "962"),
    ("Cost of revenue", "", "178", "", "141", "", "138"),
    ("Gross profit", "", "1,026", "", "946", "", "824"),
    ("Operating expenses:", None),
    ("Research and development", "", "402", "", "371", "", "330"),
    ("Sales and marketing", "", "215", "", "198", "", "176"),
    ("General and administrative", "", "96", "", "88", "", "81"),
    ("Total operating expenses", "", "713", "", "657", "", "587"),
    ("Income from operations", "", "313", "", "289", "", "237"),
    ("Net income attributable to", None),
    ("common stockholders", "$", "312", "$", "270", "$", "251"),
    ("Gross margin", "", "85.2 %", "", "87.0 %", "", "85.7 %"),
]


def financial(path: Path) -> None:
    pdf = pdfium.PdfDocument.new()
    p = Page(pdf)
    p.text(306, 60, "ACME WIDGETS, INC.", 12, "Helvetica-Bold", "center")
    p.text(306, 78, "CONSOLIDATED STATEMENTS OF OPERATIONS", 12, "Helvetica-Bold", "center")
    p.text(306, 93, "(In millions, except percentages)", 9, "Helvetica", "center")
    cols = [390, 470, 550]  # right edges of the three year columns
    p.text(470, 122, "Year Ended December 31,", 9, "Helvetica-Bold", "center")
    p.rule(330, 126, 552)
    for x, year in zip(cols, ("2023", "2022", "2021"), strict=True):
        p.text(x, 140, year, 9, "Helvetica-Bold", "right")
    p.rule(72, 145, 552)
    y = 160.0
    for row in FIN_ROWS:
        p.text(72, y, row[0], 9, "Helvetica")
        if row[1] is not None:
            for k, x in enumerate(cols):
                sign, value = row[1 + 2 * k], row[2 + 2 * k]
                if sign:
                    p.text(x - 62, y, sign, 9, "Helvetica")
                p.text(x, y, value, 9, "Helvetica", "right")
        y += 15
    p.rule(72, y - 9, 552)
    y += 16
    p.text(72, y, "Note 2 - Business Combination", 10, "Times-Bold")
    y = p.paragraph(
        72, y + 16, 468,
        "On March 1, 2023 the Company acquired all outstanding shares of Gadget_Works "
        "Ltd. for $ 84 million in cash. The results of Gadget_Works are included from the "
        "acquisition date; revenue of the acquired business was not material.*",
    )  # fmt: skip
    y += 10
    p.text(72, y, "Recently Issued Accounting Pronouncements", 10, "Times-Bold")
    y = p.paragraph(
        72, y + 16, 468,
        "In 2023 the standard setter issued guidance on segment reporting (see Note #5 and "
        "<Segment Information>). The Company is evaluating the effect of the guidance; "
        "adoption is not expected to change revenue | cost classification.",
    )  # fmt: skip
    p.text(72, y + 14, "* Unaudited. Amounts are rounded to the nearest million.", 8)
    p.text(306, 750, "F-12", 9, "Times-Roman", "center")
    p.close()
    pdf.save(path)


ARTICLE = {
    "1 Introduction": (
        "Readers of a two-column article move down the left column before the right one. "
        "A converter that reads straight across the page interleaves the columns and the "
        "text stops making sense. We measure how often that happens on a small set of pages "
        "and why headings set in bold matter to the reader. Earlier work [1] counted errors "
        "by hand; we count them with a script, and compare engines run on the same pages."
    ),
    "2 Method": (
        "Every page is rendered at 200 dots per inch and read twice: once from its own text "
        "layer and once by optical character recognition. A word counts as misplaced when "
        "its neighbours differ between the two readings. The score is the share of words "
        "that keep both neighbours; it is 1 for a perfect reading order."
    ),
    "3 Results": (
        "The text layer keeps every word in place. Recognition alone keeps most of them, and "
        "loses those near figures and footnotes. The distance a ball falls follows the "
        "formula below, which the text layer states exactly while recognition garbles the "
        "exponent."
    ),
    "4 Conclusion": (
        "Use the text layer when the page has one and it is trustworthy; recognise the rest. "
        "Escaping matters as well: a name like snake_case or a tag like <b> must print as "
        "written, and so must a pipe | or a hash # in running text."
    ),
}


def article(path: Path) -> None:
    pdf = pdfium.PdfDocument.new()
    p = Page(pdf)
    p.text(72, 40, "Journal of Test Documents 12 (2026)", 8, "Times-Italic")
    p.text(306, 80, "Reading Order in Two-Column Articles", 18, "Times-Bold", "center")
    p.text(306, 104, "Ada Lovelace*, Charles Babbage* and Grace Hopper**", 11, "Times-Roman",
           "center")  # fmt: skip
    p.text(306, 119, "*Analytical Engine Society  **Harvard Computation Laboratory", 9,
           "Times-Italic", "center")  # fmt: skip
    p.text(306, 146, "Abstract", 11, "Times-Bold", "center")
    y = p.paragraph(
        108, 162, 396,
        "We compare how converters read two-column pages, with a text layer and without one, "
        "and find that the text layer removes every reading-order error on born-digital pages.",
    )  # fmt: skip
    col_w, gap = 225.0, 18.0
    x_cols = [72.0, 72.0 + col_w + gap]
    y0 = y + 18
    ys = [y0, y0]
    for k, (heading, body) in enumerate(ARTICLE.items()):
        c = 0 if k < 2 else 1
        p.text(x_cols[c], ys[c], heading, 12, "Times-Bold")
        ys[c] = p.paragraph(x_cols[c], ys[c] + 17, col_w, body) + 8
        if heading.startswith("3"):
            x = x_cols[c] + 40
            w = p.text(x, ys[c] + 6, "s(t) = -16t", 11, "Times-Italic")
            w2 = p.text(x + w + 0.5, ys[c] + 1.5, "2", 7.5, "Times-Roman")
            p.text(x + w + w2 + 2, ys[c] + 6, " + 560t", 11, "Times-Italic")
            p.text(x_cols[c] + col_w, ys[c] + 6, "(1)", 10, "Times-Roman", "right")
            ys[c] += 26
    p.text(306, 750, "7", 9, "Times-Roman", "center")
    p.close()
    pdf.save(path)


def formulas(path: Path) -> None:
    """Two columns of prose with displayed formulas set glyph by glyph as TeX places them:
    raised smaller scripts, a fraction over a ruled bar, a sum with limits above and below;
    the left column's formula sits level with the right column's fraction."""
    pdf = pdfium.PdfDocument.new()
    p = Page(pdf)
    left, right = 72.0, 320.0
    p.text(left, 80, "1 Scripts", 12, "Times-Bold")
    p.paragraph(left, 100, 210, "The identity below joins five constants in one short line of "
                "symbols, and it is set apart from the text around it.")  # fmt: skip
    w = p.text(left + 70, 160, "e", 12, "Times-Italic")
    w += p.text(left + 70 + w + 0.5, 155, "i", 8, "Times-Italic")
    w += p.text(left + 70 + w + 1, 155, "\u03c0", 8, "Symbol")
    p.text(left + 70 + w + 4, 160, "+ 1 = 0", 12, "Times-Roman")
    y = p.paragraph(left, 190, 210, "Each constant appears once, and the equation holds "
                    "exactly for the principal branch of the exponential function. A point "
                    "moving on a line has the speed given by")  # fmt: skip
    w = p.text(left, y, "v(t) = 3t", 10, "Times-Italic")  # a sentence's math wrapped, inline
    w += p.text(left + w + 0.5, y - 4, "2", 7, "Times-Roman")
    p.text(left + w + 1, y, " + 1.", 10, "Times-Italic")
    p.text(right, 80, "2 Fractions and sums", 12, "Times-Bold")
    p.paragraph(right, 100, 210, "A fraction has its numerator over a bar and its denominator "
                "under it, centred on the bar.")  # fmt: skip
    x = right + 60
    w = p.text(x, 160, "x =", 12, "Times-Italic")
    bx = x + w + 4
    p.text(bx + 2, 152, "a + b", 12, "Times-Italic")
    p.rule(bx, 156, bx + 30, 0.5)
    p.text(bx + 9, 168, "2c", 12, "Times-Italic")
    p.paragraph(right, 190, 210, "Sums carry their limits above and below the sign, set in a "
                "smaller size.")  # fmt: skip
    w = p.text(x, 240, "S =", 12, "Times-Italic")
    sx = x + w + 4
    p.text(sx, 241, "\u2211", 18, "Symbol")
    p.text(sx + 4, 224, "n", 8, "Times-Italic")
    p.text(sx + 1, 252, "i = 1", 8, "Times-Italic")
    w = p.text(sx + 18, 240, "i", 12, "Times-Italic")
    p.text(sx + 18 + w + 0.5, 235, "2", 8, "Times-Roman")
    y = p.paragraph(right, 275, 210, "The sum of the first squares grows as the cube of "
                    "their number, as Archimedes knew.")  # fmt: skip
    w = p.text(right, y, "Each entry ", 10, "Times-Roman")  # inline math plain text cannot say
    w += p.text(right + w, y, "a", 10, "Times-Italic")
    w += p.text(right + w + 0.3, y + 2.5, "ij", 7, "Times-Italic")
    p.text(right + w + 3, y, "of the matrix is summed once.", 10, "Times-Roman")
    p.close()
    pdf.save(path)


def furniture(path: Path) -> None:
    """Two report pages with page furniture: page 1 a running head with its folio at the top
    ("Field Notes on Soil" … "17") and a document-control line spread over the foot
    ("Rev. 3.1" … "Doc. No. 88-204" … "4 May 2026"), both at body size and inside the page's
    outer 12 % but not its outer 8 %; page 2 ends mid-page, then a small "Spring Meeting
    2026" and the folio "18" after a wide gap, well above the bottom margin."""
    pdf = pdfium.PdfDocument.new()
    body = (
        "Clay soils hold water long after rain, and a field that stays wet into spring is "
        "sown late. Tile drains laid at a depth of three feet carry the water to a ditch; "
        "the question the trials asked is how far apart the lines may be laid before the "
        "middle of the field stays as wet as an undrained one. Plots were drained at spacings "
        "of twenty, forty and sixty feet, and the water table was read every week."
    )
    p = Page(pdf)  # furniture at body size, just inside the page's outer 12 %
    p.text(72, 72, "Field Notes on Soil", 10, "Times-Italic")
    p.text(540, 72, "17", 10, "Times-Roman", "right")
    p.text(72, 112, "Drainage Trials on Clay Soils", 16, "Times-Bold")
    y = 140.0
    for _ in range(4):
        y = p.paragraph(72, y, 468, body) + 8
    p.text(72, 712, "Rev. 3.1", 10, "Times-Roman")
    p.text(306, 712, "Doc. No. 88-204", 10, "Times-Roman", "center")
    p.text(540, 712, "4 May 2026", 10, "Times-Roman", "right")
    p.close()
    p = Page(pdf)
    y = 72.0
    for _ in range(3):
        y = p.paragraph(72, y, 468, body) + 8
    p.text(540, y + 60, "Spring Meeting 2026", 7, "Helvetica", "right")
    p.text(306, y + 90, "18", 9, "Times-Roman", "center")
    p.close()
    pdf.save(path)


def group_table(path: Path) -> None:
    """Two tables: (1) a group header row, "Spring 2025" and "Autumn 2025" each centred over
    its two sub-columns with a rule under it, beside "Site" and "Plot description" set on the
    sub-header row; plot descriptions wrapped inside their column (the next line has no site
    and no numbers; every line, in a row or not, 12 pt apart); dollar and percent figures.
    (2) a simple grid whose source labels carry a smaller indented second line, the row's
    figures centred between the two lines and rows 8 pt apart; a label set in lower case."""
    pdf = pdfium.PdfDocument.new()
    p = Page(pdf)
    p.text(72, 72, "Table 1: Drain trials by plot and season.", 10, "Times-Roman")
    for centre, name in ((350, "Spring 2025"), (480, "Autumn 2025")):
        p.text(centre, 96, name, 9, "Helvetica-Bold", "center")
        p.rule(centre - 50, 100, centre + 50)
    p.text(72, 112, "Site", 9, "Helvetica-Bold")
    p.text(112, 112, "Plot description", 9, "Helvetica-Bold")
    for x, name in zip(GROUP_COLS, ("Yield", "Moisture", "Yield", "Moisture"), strict=True):
        p.text(x, 112, name, 9, "Helvetica-Bold", "right")
    p.rule(72, 117, 540)
    y = 130.0
    for site, lines, *values in GROUP_ROWS:
        p.text(72, y, site, 9, "Helvetica")
        for x, value in zip(GROUP_COLS, values, strict=True):
            p.text(x, y, value, 9, "Helvetica", "right")
        for line in lines:
            p.text(112, y, line, 9, "Helvetica")
            y += 12
    p.rule(72, y - 7, 540)
    y = p.paragraph(
        72, y + 20, 468,
        "The yields are in dollars an acre and the moisture is the share of water in the top "
        "foot of soil in the week after sowing. The sources of the survey data follow.",
    )  # fmt: skip
    y += 14
    p.text(72, y, "Table 2: Sources of the survey data.", 10, "Times-Roman")
    y += 18
    for x, name in ((72, "Source"), (250, "Type")):
        p.text(x, y, name, 9, "Helvetica-Bold")
    for x, name in ((430, "Records"), (520, "Size")):
        p.text(x, y, name, 9, "Helvetica-Bold", "right")
    p.rule(72, y + 5, 540)
    y += 20
    for label, note, kind, records, size in SOURCE_ROWS:
        p.text(72, y, label, 9, "Helvetica")
        if note:
            p.text(80, y + 9, note, 7, "Helvetica")
        mid = y + 4.5 if note else y
        p.text(250, mid, kind, 9, "Helvetica")
        p.text(430, mid, records, 9, "Helvetica", "right")
        p.text(520, mid, size, 9, "Helvetica", "right")
        y += 26 if note else 17
    p.rule(72, y - 8, 540)
    p.close()
    pdf.save(path)


GROUP_COLS = [330, 390, 460, 520]  # right edges of the four figure columns
GROUP_ROWS = [
    ("A1", ["North field, drained at", "twenty feet"], "$412", "31%", "$398", "35%"),
    ("A2", ["North field, undrained"], "$377", "38%", "$361", "41%"),
    ("B1", ["South field, drained at", "forty feet, on clay loam"], "$405", "29%", "$390", "33%"),
    ("B2", ["South field, sixty feet"], "$389", "34%", "$352", "39%"),
]
SOURCE_ROWS = [
    ("Farm ledgers", "from the county archive", "Accounts", "12.4K", "3.1M"),
    ("Weather logs", "", "Daily readings", "8.9K", "1.2M"),
    ("eSurvey", "from the 2024 mail-in round", "Questionnaires", "2.7K", "640K"),
    ("Soil cores", "", "Lab reports", "1.1K", "95K"),
]


if __name__ == "__main__":
    financial(HERE / "financial_statement.pdf")
    article(HERE / "two_column_article.pdf")
    formulas(HERE / "born_digital_formulas.pdf")
    furniture(HERE / "furniture_pages.pdf")
    group_table(HERE / "group_header_table.pdf")
