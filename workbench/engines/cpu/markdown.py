"""Region text as Markdown: paragraphs, lists, headings, formulas, page numbers.

Plain string rules with no import of the engine: a ground floor beside :mod:`.labels`, so that
the passes that write Markdown (text, tables, formulas) and those that read it (furniture's
page numbers) all import it downwards.

* Paragraph lines are joined with spaces; a line ending in a hyphen directly after a letter is
  joined to the next without the hyphen when the next line starts in lower case
  ("exam-" + "ple" → "example"), and kept with its hyphen otherwise ("self-" + "Help"); a URL,
  path or e-mail address broken at a hyphen is joined with it ("…/online-" + "form.html").
* In a block of prose, a run of numbered lines ("1. …", "2. …", counting on) opens a paragraph
  at each; with the paragraph rule below each becomes a numbered item.
* A block whose lines start with bullets or enumerators is a list: one Markdown item a line,
  continuation lines joined to their item; a numbered item ("157. A potato …") keeps its
  number as an ordered-list marker, the others are "- " items. A paragraph that opens with a
  number of up to three digits, a "." or ")" and a letter is such a numbered item too, and
  a paragraph that is only such a number ("150." before its displayed formula) is left as is.
  An item a renderer would renumber (right after an ordered item whose number is not one
  less) is written literally (:func:`ordered_runs`; compose applies it across regions too).
* Formulas are wrapped as display math ``$$ … $$`` with a few OCR-to-LaTeX substitutions
  (Greek letters, ≤ ≥ ≠ × · ∞ ∑ ∫ √ ±).
* ``is_page_number`` recognises "12", "- 12 -", "Page 3", "Page 3 of 9", "3 of 9", roman
  numerals.
* :func:`escape` makes OCR or text-layer text literal Markdown while keeping it readable:
  ``\\ ` * _ [ ] < > # | $ ~`` are escaped only where a renderer would act on them (``*`` and
  ``_`` next to a word, ``[`` before ``](``/``][``, ``<`` before a tag-like letter, ``$`` always,
  since the viewer renders ``$…$`` as math), and a line start that would make a heading,
  list, quote or rule (``#``, ``1.``, ``-``, ``+``, ``>``, ``=``) gets a backslash. A
  ``snake_case`` word or ``a * b`` stays as it is. Inline TeX a text-layer line carries
  between ``MATH_OPEN`` and ``MATH_CLOSE`` (:mod:`.formulas.inline`) is written as ``$…$``,
  untouched.
"""

from __future__ import annotations

import re
from itertools import pairwise

_BULLET = re.compile(r"^\s*(?:[•·▪●○◦■□➢►▶✓❖\-–*»]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s+")
#: a bullet glyph opening a line: a list item inside a block of prose ("-", "*" and numbers
#: open wrapped prose lines too, so only glyphs that are nothing but bullets start an item)
_GLYPH_BULLET = re.compile(r"^\s*[•▪●○◦■□➢►▶✓❖]\s+")
_PAGE = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(?:\s+of\s+\d{1,4})?(?:\s*[-–—])?\s*$",
    re.IGNORECASE,
)
_LATEX = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\epsilon",
    "θ": r"\theta", "λ": r"\lambda", "μ": r"\mu", "π": r"\pi", "σ": r"\sigma", "φ": r"\phi",
    "ω": r"\omega", "Σ": r"\Sigma", "Δ": r"\Delta", "Ω": r"\Omega", "≤": r"\leq",
    "≥": r"\geq", "≠": r"\neq", "×": r"\times", "·": r"\cdot", "∞": r"\infty", "∑": r"\sum",
    "∫": r"\int", "√": r"\sqrt", "±": r"\pm", "→": r"\to", "∈": r"\in", "≈": r"\approx",
}  # fmt: skip


_INLINE = re.compile(
    r"(\\(?=[\\`*_\[\]<>#|$~!])"  # a backslash that would escape what follows
    r"|`|\$|\||~~"
    r"|(?<![\w*])\*+(?=\S)|(?<=\S)\*+(?![\w*])"  # emphasis-capable asterisks
    r"|(?<![A-Za-z0-9_])_+(?=\S)|(?<=\S)_+(?![A-Za-z0-9_])"  # underscores at word edges
    r"|\[(?=[^\]]*\][(\[])|\](?=[(\[])"  # link brackets
    r"|<(?=[A-Za-z/!?])"  # tag-like angle brackets
    r"|&(?=#?\w+;))"  # entities
)
_LINE_START = re.compile(
    r"^(\s*)(#{1,6}(?=\s|$)|[-+*](?=\s)|>|=+\s*$|-{3,}\s*$|(\d{1,9})([.)])(?=\s|$))"
)


#: inline TeX in a line's text (:mod:`.formulas.inline`): escape writes it as ``$…$``, untouched
MATH_OPEN, MATH_CLOSE = "\ue000", "\ue001"
_MATH = re.compile("\ue000([^\ue000\ue001]*)\ue001")


def escape(text: str, line_start: bool = True) -> str:
    """``text`` as literal Markdown (see the module docstring); ``line_start=False`` for text
    that never starts a Markdown line (table cells, the rest of a list item). Inline TeX
    between :data:`MATH_OPEN` and :data:`MATH_CLOSE` becomes ``$…$`` as it is."""
    if MATH_OPEN in text:
        parts = _MATH.split(text)  # plain, tex, plain, tex, ..., plain
        out = "".join(
            f"${p}$" if k % 2 else escape(p, line_start and k == 0) for k, p in enumerate(parts)
        )
        return out.replace(MATH_OPEN, "").replace(MATH_CLOSE, "")
    out = _INLINE.sub(
        lambda m: "&amp;" if m.group(0) == "&" else "\\" + "\\".join(m.group(0)), text
    )
    if line_start:
        out = _LINE_START.sub(_escape_start, out)
    return out


def _escape_start(m: re.Match[str]) -> str:
    lead, mark = m.group(1), m.group(2)
    if m.group(3):  # "1." → "1\." (an ordered list otherwise)
        return f"{lead}{m.group(3)}\\{m.group(4)}"
    return f"{lead}\\{mark}"


def join_lines(lines: list[str]) -> str:
    """One paragraph from OCR lines, de-hyphenating line breaks; TeX's doubled single quotes
    (‘‘ … ’’, two glyphs in the text layer) become the double quotes they print as."""
    out = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not out:
            out = line
        elif re.search(r"[A-Za-z]-$", out) and line[:1].islower():
            # a URL, path or address broken at its own hyphen keeps it ("online-" + "form.html")
            url = re.search(r"[/@]|\.\w", out.rsplit(" ", 1)[-1])
            out = out + line if url else out[:-1] + line
        else:
            out = f"{out} {line}"
    return out.replace("‘‘", "“").replace("’’", "”")


def is_list(lines: list[str]) -> bool:
    starts = sum(bool(_BULLET.match(s)) for s in lines)
    return len(lines) >= 2 and starts >= 2 and bool(_BULLET.match(lines[0]))


def list_markdown(lines: list[str]) -> str:
    items: list[list[str]] = []
    for line in lines:
        if _BULLET.match(line) or not items:
            items.append([_strip_bullet(line)])
        else:
            items[-1].append(line)
    return ordered_runs(["\n".join(_item(join_lines(item)) for item in items)])[0]


_ORDERED = re.compile(r"^(\d{1,9})([.)]) ")


def _item(text: str) -> str:
    """A list item: one numbered "157." / "3)" keeps its number as the Markdown list marker
    (an ordered item starting at 157), anything else is a "- " item."""
    m = re.match(r"^(\d{1,9}[.)])\s+(\S.*)$", text)
    if m:
        return f"{m.group(1)} {escape(m.group(2), line_start=False)}"
    return f"- {escape(text)}"


def ordered_runs(blocks: list[str]) -> list[str]:
    """Markdown blocks (in the order they print, one blank line apart; "" for a block that
    does not print) with every ordered item shown with its own number. A renderer numbers a
    run of ordered items from the first one's number on ("15.", "16.", "18." print as 15,
    16, 17), so an item right after an ordered item whose number is not one less is written
    literally: "- 18\\. …" inside a block, "18\\. …" opening a paragraph block."""
    out: list[str] = []
    prev: tuple[int, str] | None = None
    for block in blocks:
        if not block.strip():
            out.append(block)
            continue
        lines = block.split("\n")
        for k, line in enumerate(lines):
            m = _ORDERED.match(line)
            if m and prev and prev[1] == m.group(2) and int(m.group(1)) != prev[0] + 1:
                lead = "- " if k or len(lines) > 1 else ""
                lines[k] = f"{lead}{m.group(1)}\\{m.group(2)} {line[m.end() :]}"
                m = None
            prev = (int(m.group(1)), m.group(2)) if m else None
        out.append("\n".join(lines))
    return out


def _strip_bullet(line: str) -> str:
    m = _BULLET.match(line)
    if m and re.match(r"^\s*[•·▪●○◦■□➢►▶✓❖\-–*»]", line):
        return line[m.end() :].strip()
    return line.strip()  # keep "1." / "a)" enumerators: they carry meaning


def paragraphs(lines: list[str], gaps: list[float], line_height: float) -> str:
    """Escaped Markdown of a block of raw lines; a vertical gap over 1.2 line heights starts
    a new paragraph."""
    if is_list(lines):
        return list_markdown(lines)
    paras: list[list[str]] = [[]]
    starts = _numbered_run(lines)
    for i, line in enumerate(lines):
        if i and (gaps[i - 1] > 1.2 * line_height or _GLYPH_BULLET.match(line) or i in starts):
            paras.append([])
        paras[-1].append(line)
    out: list[str] = []
    items: list[str] = []  # the lines of a run of paragraphs that open with a bullet glyph
    for para in (p for p in paras if p):
        if _GLYPH_BULLET.match(para[0]):
            items.extend(para)
            continue
        if items:
            out.append(list_markdown(items))
            items = []
        out.append(_paragraph(join_lines(para)))
    if items:
        out.append(list_markdown(items))
    return "\n\n".join(out)


#: a line opening with a number of one or two digits and "." or ")" (an item's number)
_NUMBERED = re.compile(r"^\s*(\d{1,2})[.)]\s+\S")


def _numbered_run(lines: list[str]) -> set[int]:
    """The lines that open items of a numbered run inside prose: a line that starts "2." right
    after (among the lines that start with a number) one that starts "1.", and that one. A
    wrapped line may start with a number ("2004 (see …"), never two in a row counting on."""
    numbered = [(i, int(m.group(1))) for i, ln in enumerate(lines) if (m := _NUMBERED.match(ln))]
    out: set[int] = set()
    for (i, a), (j, b) in pairwise(numbered):
        if b == a + 1:
            out |= {i, j}
    return out


def _paragraph(text: str) -> str:
    """A paragraph that opens with its own number ("153. A rocket is fired …", an exercise)
    is a numbered item; any other is escaped text ("1986\\. was …" stays literal)."""
    if re.match(r"^\d{1,3}[.)]\s+[A-Za-z(\"“‘']", text):  # "150. s(t) = …" too
        return _item(text)
    if re.fullmatch(r"\d{1,3}[.)]", text):  # an item's number alone ("150." before its formula)
        return text
    return escape(text)


def is_page_number(text: str) -> bool:
    return bool(_PAGE.match(text.strip())) if text.strip() else False


#: an exercise number set before a formula on its row ("150." or "150)")
_ITEM = re.compile(r"^(\d{1,4}[.)])\s+(.*)$")


def formula_markdown(lines: list[str]) -> str:
    body = " ".join(s.strip() for s in lines if s.strip())
    body = body.replace(MATH_OPEN, "").replace(MATH_CLOSE, "")  # inline TeX inside display
    for ch, tex in _LATEX.items():
        body = body.replace(ch, f"{tex} ")
    body = re.sub(r"\s{2,}", " ", body).strip()
    item = _ITEM.match(body)
    if item and item.group(2):  # "150. s(t) = …": a numbered exercise, an ordered list item
        return f"{item.group(1)} ${item.group(2)}$"
    return f"$$\n{body}\n$$" if body else ""
