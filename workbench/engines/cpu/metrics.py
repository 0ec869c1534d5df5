"""Text-quality metrics for OCR output against a reference (a PDF's own text layer).

* :func:`cer` — character error rate: Levenshtein distance / reference length, after NFKC and
  with all whitespace removed (text layers have unreliable spaces). Depends on reading order.
* :func:`word_f1` — bag-of-words F1 on lower-cased alphanumeric tokens; ignores order.
* :func:`plain` — Markdown to plain text (table pipes and rules, heading marks, ``$$`` fences,
  bullets and image placeholders removed) so markup is not counted as error.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

import numpy as np


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def levenshtein(a: str, b: str) -> int:
    if not a:
        return len(b)
    if not b:
        return len(a)
    bv = np.array([ord(c) for c in b], dtype=np.int64)
    idx = np.arange(len(b) + 1, dtype=np.int64)
    prev = idx.copy()
    for i, ch in enumerate(a):
        code = ord(ch)
        tmp = np.empty_like(prev)
        tmp[0] = i + 1
        tmp[1:] = np.minimum(prev[:-1] + (bv != code), prev[1:] + 1)
        prev = np.minimum.accumulate(tmp - idx) + idx
    return int(prev[-1])


def cer(hyp: str, ref: str) -> tuple[int, int]:
    """(edit distance, reference length) after normalisation; pool by summing both."""
    h, r = _norm(hyp), _norm(ref)
    return levenshtein(h, r), len(r)


def _words(text: str) -> Counter[str]:
    return Counter(re.findall(r"\w+", unicodedata.normalize("NFKC", text).lower()))


def word_f1(hyp: str, ref: str) -> float:
    h, r = _words(hyp), _words(ref)
    common = sum((h & r).values())
    if not common:
        return 0.0
    p, rc = common / sum(h.values()), common / sum(r.values())
    return 2 * p * rc / (p + rc)


def plain(markdown: str) -> str:
    out = []
    for line in markdown.splitlines():
        s = line.strip()
        if re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*", s) or s in ("$$",) or s.startswith("!["):
            continue
        s = re.sub(r"^#{1,6}\s+", "", s)
        s = re.sub(r"^[-*]\s+", "", s)
        s = s.replace("\\|", "\x00").replace("|", " ").replace("\x00", "|")
        s = s.replace("*[signature]*", "")
        out.append(s)
    return "\n".join(out)
