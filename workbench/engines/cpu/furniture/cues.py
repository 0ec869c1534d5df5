"""What sets a line apart as a heading, or keeps it out, beyond its size and weight (used by
:mod:`.headings`): its text (a section number, capitals, a sentence, a row of figures, a label
with its value), its shape (set on its side) and its neighbours (the keys of a key/value list,
a chapter's label over its title, the rows of a form, the table a line labels).
"""

from __future__ import annotations

import re

from workbench.engines.cpu.boxes import Box, Line, median, rows, union_all
from workbench.engines.cpu.page import Block

PROSE_WORDS = 6  # a line ending in "." with this many words, mostly lower case: a sentence
MIN_KEYS = 3  # bold lines with a value on their right, at one left edge: a key/value list
FIELD_GAP = 5.0  # a numbered line in capitals with text this close (heights) on its right
MAX_UPPER = 4  # more numbered lines in capitals on a page are a form's field labels
KV_GAP = 2.0  # key to value in one row, in its heights: wider than two prose columns' gutter
KV_WORDS = 6  # a form's key is a label ("Author-email"), not a sentence
KV_PITCH = 4.0  # a key/value row further below the last (its heights) starts another run
CAPTION_GAP = 1.5  # a bold line this many of its heights or less over a table labels it
TABLES = {"table", "aligned_table"}  # block natives that are tables
VERTICAL = 1.3  # a line this many times taller than wide is set on its side (a word of three
#                letters or more set upright is wider than tall)
NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+\S")  # "2 Method", "2.3 Area"
NUMBER = re.compile(r"^[-−–+(]?[$€£]?(?:\d+(?:[.,]\d+)*|[.,]\d+)[%)]?$")
_CAPS_HEADING = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5}|[A-H])\.?\s+(\S.*)$")
#: a chapter's label line, set over its title in another size: one heading with it
CHAPTER = re.compile(r"^\s*(?:chapter|appendix|part|annex)\s+[\dA-Z][\w.]*\s*$", re.IGNORECASE)
#: "Since: 1.6", "Note: the …": a bold label and its value, not a heading
#: (not "SECTION 4: EVIDENCE", "Part II: Methods": a number before the colon is a heading's)
LABEL_VALUE = re.compile(r"^(?![^:]*\s(?:\d+|[A-Z]|[IVX]+)\s*:)[^:]{1,30}:\s+\S")


def keys(lines: list[Line]) -> set[int]:
    """The keys of a key/value list: bold lines each with text level with it on its right
    ("Name" … "black"), when ``MIN_KEYS`` or more share one left edge; not headings."""
    bold = [ln for ln in lines if ln.bold and ln.size > 0]
    if len(bold) < MIN_KEYS:
        return set()
    valued = [
        ln
        for ln in bold
        if any(
            o is not ln
            and o.box[0] > ln.box[2]
            and min(o.box[3], ln.box[3]) - max(o.box[1], ln.box[1]) > 0.5 * ln.height
            for o in lines
        )
    ]
    lefts = sorted(round(ln.box[0] / 8) for ln in valued)
    common = max(set(lefts), key=lefts.count) if lefts else None
    keys = [ln for ln in valued if round(ln.box[0] / 8) == common]
    return {id(ln) for ln in keys} if len(keys) >= MIN_KEYS else set()


def fields(lines: list[Line]) -> set[int]:
    """Numbered lines in capitals with another line close on their right, overlapping their
    height ("22. NAME" before "LAST" over "FIRST"): a form's field labels, not headings (a heading
    stands alone on its row; another column's text is further off)."""
    out = set()
    for ln in lines:
        if ln.size > 0 and numbered_caps(ln.text):
            reach = ln.box[2] + FIELD_GAP * max(ln.height, 1.0)
            if any(
                o is not ln
                and ln.box[2] <= o.box[0] <= reach
                and min(o.box[3], ln.box[3]) > max(o.box[1], ln.box[1])
                for o in lines
            ):
                out.add(id(ln))
    return out


def form_rows(lines: list[Line]) -> set[int]:
    """The lines of a form's key/value rows: never headings. A row (lines whose centres lie
    within half a line height) is a *pair* when its words, left to right, break once by at
    least ``KV_GAP`` row heights and half the key's width (the key of at most ``KV_WORDS``
    words, then its value: "Name      black", one OCR line or two); ``MIN_KEYS`` or more
    consecutive pairs, each at most ``KV_PITCH`` heights under the last, whose keys share a
    left edge and values a left edge (within a height), whose median gap is at least the keys'
    median width (two prose columns: lines wider than the gutter), are a form's rows."""
    out: set[int] = set()
    run: list[tuple[list[Line], Box, float]] = []  # (row, key box, value's left edge)
    for row in [*rows(lines), []]:
        pair = _pair(row)
        if pair is not None and run and _continues(run[-1], (row, *pair)):
            run.append((row, *pair))
            continue
        gaps = [v - k[2] for _, k, v in run]
        widths = [k[2] - k[0] for _, k, _ in run]
        if len(run) >= MIN_KEYS and median(gaps) >= median(widths):
            out |= {id(ln) for r, _, _ in run for ln in r}
        run = [(row, *pair)] if pair is not None else []
    return out


def _pair(row: list[Line]) -> tuple[Box, float] | None:
    """The key's box and the value's left edge of a key/value row, or None."""
    if not row:
        return None
    h = max(min(ln.height for ln in row), 1.0)
    if all(ln.words for ln in row):  # word boxes show a key and its value in one line
        parts = sorted((w.box for ln in row for w in ln.words), key=lambda b: b[0])
    else:
        parts = sorted((ln.box for ln in row), key=lambda b: b[0])
    for i in range(1, len(parts)):
        key = union_all(parts[:i])
        gap = parts[i][0] - key[2]
        if gap >= KV_GAP * h:
            if i > KV_WORDS or gap < 0.5 * (key[2] - key[0]):
                return None
            return key, parts[i][0]
    return None


def _continues(last: tuple[list[Line], Box, float], now: tuple[list[Line], Box, float]) -> bool:
    (row0, k0, v0), (row, k, v) = last, now
    h = max(max(ln.height for ln in row0 + row), 1.0)
    return k[1] - k0[3] <= KV_PITCH * h and abs(k[0] - k0[0]) <= h and abs(v - v0) <= h


def over_table(run: list[Line], blocks: list[Block]) -> bool:
    """A bold line at body size right over a table (within ``CAPTION_GAP`` of its heights,
    across its columns) labels that table: its caption ("Heaviest cars"), not a section
    heading. A numbered line ("2.3 Results") keeps its heading's form."""
    if len(run) != 1 or heading_form(run[0].text):
        return False
    box = run[0].box
    reach = CAPTION_GAP * max(run[0].height, 1.0)
    return any(
        b.native in TABLES
        and -0.5 * run[0].height <= b.box[1] - box[3] <= reach
        and min(b.box[2], box[2]) > max(b.box[0], box[0])
        for b in blocks
    )


def vertical(ln: Line) -> bool:
    """A line set on its side (a rotated stamp in the margin, a table's turned head): its box
    is much taller than wide. Never a heading."""
    return ln.box[3] - ln.box[1] > VERTICAL * max(ln.box[2] - ln.box[0], 1.0)


def numbered_caps(text: str) -> bool:
    """A section number and a title in capitals: "1. INTRODUCTION", "II. RELATED WORK"."""
    m = _CAPS_HEADING.match(text.strip())
    if not m:
        return False
    letters = [c for c in m.group(1) if c.isalpha()]
    return len(letters) >= 4 and all(c.isupper() for c in letters)


def heading_form(text: str) -> bool:
    """Looks like a heading whatever its type: a section number then a short title that is
    not a sentence ("2.1 Loading the package"), or a numbered title in capitals."""
    t = text.strip()
    if numbered_caps(t):
        return True
    return bool(NUMBERED.match(t)) and not t.endswith((".", ",", ";", ":")) and not refused(t)


#: a lettered or numbered section label then a capitalised title: "A. Google DeepDream",
#: "2.1 Loading" (an italic subsection of a two-column paper)
PROSE_LEN = 8  # words: a line of running text (a heading is rarely this long)...
PROSE_LINES = 4  # ...and this many of them at one size are paragraphs (a heading: <= 3 lines)
SAME_SIZE = 0.04  # sizes within 4 % are one size (a line's median size varies ~2 %)
ITALIC_WORDS = 10  # an italic subsection title is short; a longer italic line is a note
LABELLED = re.compile(r"^(?:[A-H]\.|\d{1,2}(?:\.\d{1,2}){0,3}\.?)\s+[A-Z]")


def italic_section(text: str) -> bool:
    """A labelled title that is not a sentence: "A. Similar Texts Generation" in italics is a
    subsection (lettered subsections are italic at body size in IEEE and ACM papers)."""
    t = text.strip()
    words = t.split()
    if len(words) < 2 or words[1].endswith(",") or t.count(",") > 1:
        return False  # "A. Gadsby, Ed., Dictionary of …": an author's initial, a reference
    if len(words) > ITALIC_WORDS or "(" in t:
        return False  # "23. MAILING ADDRESS (If … skip this question.)": a form's field
    return bool(LABELLED.match(t)) and not t.endswith((".", ",", ";", ":")) and not refused(t)


def refused(text: str) -> bool:
    """A sentence or a row of figures: never a heading, whatever its type or layout label."""
    words = text.split()
    return prose(words) or row(words)


def number(text: str) -> bool:
    words = text.split()
    return bool(words) and all(NUMBER.match(w) for w in words)


def prose(words: list[str]) -> bool:
    if len(words) < PROSE_WORDS or not words[-1].endswith("."):
        return False
    caps = sum(w[:1].isupper() for w in words if len(w) > 3)
    return caps < 0.5 * max(sum(len(w) > 3 for w in words), 1)


def row(words: list[str]) -> bool:
    numbers = sum(bool(NUMBER.match(w)) for w in words)
    return numbers >= 2 and 3 * numbers >= len(words)


def starts_like_heading(text: str) -> bool:
    """After an opening quote or bracket (full-width ones too): a capital (any script: "É",
    "Д"), a digit, "§", or a letter of a script without case ("测试", "教育经历": a Latin-only
    rule refused every CJK heading)."""
    c = text.strip().lstrip("\"'“‘(（「『【")[:1]
    return bool(c) and (c.isdigit() or c == "§" or (c.isalpha() and not c.islower()))


def enough_letters(text: str) -> bool:
    """Three letters or more, or two of a script without case (a CJK heading of one word)."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) >= 3 or sum(c.lower() == c.upper() for c in letters) >= 2


def set_apart(ln: Line) -> bool:
    """A text-layer line with a heading's form or face: numbered ("2.1 Loading"), or in small
    capitals or bold ("References" in an AMS style), and not a label with its value ("Since:
    1.6") nor ending like a sentence."""
    text = ln.text.strip()
    if not starts_like_heading(text):
        return False  # a code line ("\\input x.sty"), a term in lower case
    if LABEL_VALUE.match(text) or text.endswith((".", ",", ";", ":")):
        return heading_form(text)
    return heading_form(text) or ln.caps or ln.bold


def model_title(group: list[Line]) -> bool:
    """Whether a layout-model ``title`` that no line's type makes a heading stays one: never on
    sentences, rows of figures or lines set on their side; on the text layer, whose sizes and
    weights are exact, only when a line has a heading's form or face (:func:`set_apart`:
    the model also calls a term, a code line or a paragraph's first line a title); on
    OCR lines, whose type is measured, the model is trusted."""
    if all(refused(ln.text) or vertical(ln) for ln in group):
        return False
    if all(ln.size > 0 for ln in group):
        return any(set_apart(ln) for ln in group)
    return True


def prose_sizes(lines: list[Line]) -> list[float]:
    """The sizes the page sets running text in: ``PROSE_LINES`` or more text-layer lines of
    ``PROSE_LEN`` words or more at one size (within ``SAME_SIZE``). A page whose
    references or notes outweigh its text (the last page of a paper) has a smaller median
    than its paragraphs; their lines are no headings for being larger than that."""
    long = sorted(ln.size for ln in lines if ln.size > 0 and len(ln.text.split()) >= PROSE_LEN)
    out: list[float] = []
    for s in long:
        near = sum(abs(t - s) <= SAME_SIZE * s for t in long)
        if near >= PROSE_LINES and not among(s, out):
            out.append(s)
    return out


def among(size: float, sizes: list[float]) -> bool:
    return any(abs(size - s) <= SAME_SIZE * s for s in sizes)
