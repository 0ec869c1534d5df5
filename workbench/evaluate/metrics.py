"""Text and run metrics: CER, word F1, side-to-side similarity, per-page and per-document tables.

The one place the workbench measures text (the Compare page, ``benchmarks/``, the CPU engine's
tests): one normalisation, one set of metrics (olmocr's single ``normalize_text`` is the model).

Definitions (all on text, never on boxes)
-----------------------------------------
plain text (:func:`plain_text`, model output only)
    Page Markdown rendered with markdown-it (tables on, inline HTML kept) and stripped back to
    its text, so ``| a | b |`` and ``<table><td>a</td>...`` both read ``a b``. The workbench's
    own placeholders are not text: figure links and ``*[signature]*`` are dropped, and so are
    the ``$$`` lines around a display formula (the formula itself stays as written). An
    ordered list item keeps the number a renderer shows ("157. A potato", from ``<ol
    start="157">``).
normalised text (:func:`normalize_text`, both sides, every metric)
    NFKC, then every whitespace run one space, stripped. A reference (typed, or a PDF text
    layer) is only normalised, never read as Markdown.
CER
    Levenshtein distance (unit costs) between the normalised hypothesis and reference with all
    whitespace removed (text layers have unreliable spaces), divided by the reference length.
    Case and punctuation count. Inputs longer than :data:`MAX_CER_CHARS` are cut to that many
    characters (``truncated`` says so): the distance is O(n·m) and a page never needs more.
    Pool pages by summing :class:`CharErrors`, never by joining texts. Empty reference: 0.0
    when the hypothesis is empty too, else 1.0.
word F1
    Bag of words: tokens are ``\\w+`` runs of the normalised, case-folded text, except that a
    character of a script written without spaces (Han, kana) is a token of its own; precision
    and recall count the multiset intersection. Punctuation is ignored. Two empty texts score 1.0
    (as similarity does); one empty side scores 0.0.
similarity
    ``1 - edit distance / max(len)`` over the same characters as CER (symmetric, 1.0 =
    identical, two empty texts are identical). Not difflib's ratio.
Document aggregates are micro averages: CER = summed edits / summed reference characters, word
F1 from summed counts; seconds per page over the pages that ran; similarity is the page mean.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

import numpy as np

from workbench.markdown import commonmark
from workbench.markdown.assemble import SIGNATURE_MARK
from workbench.schema import PageResult, PageStatus, Region

MAX_CER_CHARS = 12_000  # about 2 s worst case on one slow core; a dense page is ~8k
_WS = re.compile(r"\s+", re.UNICODE)
#: Scripts written without spaces between words (Han, kana; Hangul is spaced): each character
#: is a token of its own, as CJK evaluations score them (sacrebleu's zh tokenizer,
#: OmniDocBench's character edit distance). As ``\w+`` runs, "截至2015年末" was one word and
#: "截至 2015 年末" three, so the same characters counted as all wrong.
_UNSPACED = (
    "\u2e80-\u2fdf\u3005\u3007\u3021-\u3029\u3040-\u30ff\u31f0-\u31ff"  # radicals, kana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"  # Han, half-width kana
)
_WORD = re.compile(rf"[{_UNSPACED}]|[^\W{_UNSPACED}]+", re.UNICODE)
_MATH_FENCE = re.compile(r"^[ \t]*(?:\$\$|\\\[|\\\])[ \t]*$", re.MULTILINE)
_BLOCK_TAGS = {"p", "br", "tr", "td", "th", "li", "div", "h1", "h2", "h3", "h4", "h5", "h6"}


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.lists: list[int | None] = []  # the next item's number in each open <ol>

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:
            self.parts.append(" ")
        if tag in ("ol", "ul"):  # an ordered item's number is seen ("157." of "157. A potato")
            start = dict(attrs).get("start") or "1"
            self.lists.append(int(start) if tag == "ol" and start.isdigit() else None)
        elif tag == "li" and self.lists and self.lists[-1] is not None:
            self.parts.append(f"{self.lists[-1]}. ")
            self.lists[-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("ol", "ul") and self.lists:
            self.lists.pop()
        if tag in _BLOCK_TAGS:
            self.parts.append("\n" if tag in {"p", "tr", "li", "div"} or tag[0] == "h" else " ")


def plain_text(markdown: str) -> str:
    """The text a reader sees in ``markdown`` (see module docstring); never raises."""
    source = _MATH_FENCE.sub("", markdown.replace(SIGNATURE_MARK, ""))
    rendered = commonmark.render(source)
    parser = _TextOnly()
    parser.feed(rendered)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


def normalize_text(text: str) -> str:
    """The one normalisation of both sides of every metric: NFKC, whitespace runs to one space."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def _chars(text: str) -> str:
    """What CER and similarity compare: normalised text without any whitespace."""
    return normalize_text(text).replace(" ", "")


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance, unit costs. One numpy row per character of the shorter string.

    Each row is ``cur[j] = min(prev[j] + 1, prev[j-1] + cost[j], cur[j-1] + 1)``; the last,
    sequential term is a running minimum: ``cur[j] = j + cummin(t[k] - k)``.
    """
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < min(len(a), len(b)) and a[-1 - end] == b[-1 - end]:
        end += 1
    if end:
        a, b = a[:-end], b[:-end]
    if len(a) > len(b):
        a, b = b, a
    if not a:
        return len(b)
    row_codes, col_codes = _codes(a), _codes(b)
    steps = np.arange(len(b) + 1, dtype=np.int64)
    prev = steps.copy()
    t = np.empty_like(prev)
    for i, ch in enumerate(row_codes, start=1):
        t[0] = i
        np.minimum(prev[1:] + 1, prev[:-1] + (col_codes != ch), out=t[1:])
        prev = np.minimum.accumulate(t - steps) + steps
    return int(prev[-1])


@dataclass(frozen=True)
class CharErrors:
    edits: int
    reference_chars: int
    truncated: bool = False

    @property
    def cer(self) -> float:
        if self.reference_chars == 0:
            return 0.0 if self.edits == 0 else 1.0
        return self.edits / self.reference_chars


def char_errors(hypothesis: str, reference: str) -> CharErrors:
    """Edits and reference length (see module docstring); pool pages by summing these."""
    hyp, ref = _chars(hypothesis), _chars(reference)
    truncated = max(len(hyp), len(ref)) > MAX_CER_CHARS
    hyp, ref = hyp[:MAX_CER_CHARS], ref[:MAX_CER_CHARS]
    return CharErrors(edit_distance(hyp, ref), len(ref), truncated)


def cer(hypothesis: str, reference: str) -> float:
    """Character error rate of ``hypothesis`` against ``reference`` (see module docstring)."""
    return char_errors(hypothesis, reference).cer


def similarity(a: str, b: str) -> float:
    """1 - normalised edit distance over NFKC, whitespace-free characters (1.0 = same)."""
    na, nb = _chars(a)[:MAX_CER_CHARS], _chars(b)[:MAX_CER_CHARS]
    longest = max(len(na), len(nb))
    return 1.0 - edit_distance(na, nb) / longest if longest else 1.0


def word_tokens(text: str) -> list[str]:
    return _WORD.findall(normalize_text(text).casefold())


@dataclass(frozen=True)
class WordF1:
    common: int
    hypothesis_words: int
    reference_words: int

    @property
    def precision(self) -> float:
        return self.common / self.hypothesis_words if self.hypothesis_words else 1.0

    @property
    def recall(self) -> float:
        return self.common / self.reference_words if self.reference_words else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def word_f1(hypothesis: str, reference: str) -> WordF1:
    hyp, ref = Counter(word_tokens(hypothesis)), Counter(word_tokens(reference))
    return WordF1(sum((hyp & ref).values()), sum(hyp.values()), sum(ref.values()))


@dataclass(frozen=True)
class PageMetrics:
    """One row of the per-page table. Optional columns are None when there is nothing to
    compare with (no other side, no reference)."""

    document: str
    page: int
    engine: str
    model: str
    status: str
    seconds: float
    tokens: int
    retries: int
    chars: int  # normalised characters of the page's plain text
    regions: int
    unlocated: int
    regions_by_label: dict[str, int] = field(default_factory=dict)
    similarity: float | None = None  # vs the other side
    cer: float | None = None  # vs the reference
    cer_edits: int | None = None
    reference_chars: int | None = None
    word_f1: float | None = None
    words: WordF1 | None = None

    @property
    def tokens_per_second(self) -> float | None:
        return self.tokens / self.seconds if self.seconds > 0 else None


def page_metrics(
    result: PageResult,
    *,
    other: PageResult | None = None,
    reference: str | None = None,
    regions: Sequence[Region] | None = None,
) -> PageMetrics:
    """Metrics of one page; ``regions`` overrides the model's (e.g. the corrected layer);
    ``reference`` is plain text (typed by the user or the PDF text layer)."""
    regs = list(result.regions if regions is None else regions)
    text = plain_text(result.markdown)
    errors = words = None
    if reference is not None:
        errors, words = char_errors(text, reference), word_f1(text, reference)
    return PageMetrics(
        document=result.document,
        page=result.page,
        engine=result.engine,
        model=result.model,
        status=result.status.value,
        seconds=result.seconds,
        tokens=result.tokens,
        retries=result.retries,
        chars=len(_chars(text)),
        regions=len(regs),
        unlocated=sum(r.bbox is None for r in regs),
        regions_by_label=dict(sorted(Counter(r.label.value for r in regs).items())),
        similarity=similarity(text, plain_text(other.markdown)) if other is not None else None,
        cer=errors.cer if errors else None,
        cer_edits=errors.edits if errors else None,
        reference_chars=errors.reference_chars if errors else None,
        word_f1=words.f1 if words else None,
        words=words,
    )


PageKey = tuple[str, int]


def metrics_table(
    pages: Sequence[PageResult],
    *,
    others: Sequence[PageResult] = (),
    references: Mapping[PageKey, str] | None = None,
) -> list[PageMetrics]:
    """Per-page rows. ``others`` pair by (document, page), or by page alone when the other
    side holds a single document under another name; ``references`` by (document, page)."""
    by_key = {(p.document, p.page): p for p in others}
    single = len({p.document for p in others}) == 1
    by_page = {p.page: p for p in others} if single else {}
    rows = []
    for page in pages:
        other = by_key.get((page.document, page.page)) or by_page.get(page.page)
        reference = (references or {}).get((page.document, page.page))
        rows.append(page_metrics(page, other=other, reference=reference))
    return rows


@dataclass(frozen=True)
class DocumentMetrics:
    document: str
    pages: int
    failed_pages: int
    seconds: float
    seconds_per_page: float | None
    tokens: int
    tokens_per_second: float | None
    regions: int
    regions_by_label: dict[str, int]
    similarity: float | None  # mean over pages with another side
    cer: float | None  # micro: summed edits / summed reference characters
    word_f1: float | None  # micro, from summed counts


def document_metrics(rows: Sequence[PageMetrics]) -> list[DocumentMetrics]:
    out = []
    for doc in dict.fromkeys(r.document for r in rows):
        mine = [r for r in rows if r.document == doc]
        ran = [r for r in mine if r.status != PageStatus.ERROR.value]
        seconds = sum(r.seconds for r in mine)
        tokens = sum(r.tokens for r in mine)
        labels: Counter[str] = Counter()
        for r in mine:
            labels.update(r.regions_by_label)
        sims = [r.similarity for r in mine if r.similarity is not None]
        refs = [r for r in mine if r.cer_edits is not None and r.reference_chars is not None]
        ref_chars = sum(r.reference_chars or 0 for r in refs)
        cer_value = (sum(r.cer_edits or 0 for r in refs) / ref_chars) if ref_chars else None
        wf = [r.words for r in mine if r.words is not None]
        summed = (
            WordF1(
                sum(w.common for w in wf),
                sum(w.hypothesis_words for w in wf),
                sum(w.reference_words for w in wf),
            )
            if wf
            else None
        )
        out.append(
            DocumentMetrics(
                document=doc,
                pages=len(mine),
                failed_pages=len(mine) - len(ran),
                seconds=seconds,
                seconds_per_page=sum(r.seconds for r in ran) / len(ran) if ran else None,
                tokens=tokens,
                tokens_per_second=tokens / seconds if seconds > 0 else None,
                regions=sum(r.regions for r in mine),
                regions_by_label=dict(sorted(labels.items())),
                similarity=sum(sims) / len(sims) if sims else None,
                cer=cer_value,
                word_f1=summed.f1 if summed else None,
            )
        )
    return out
