"""Compare page, lower half: word diff of the Markdown, metrics tables and a chart.

* Diff: :func:`workbench.evaluate.compare.diff_html` (every word HTML-escaped there), cleaned again
  by the one policy (:func:`workbench.markdown.sanitize.clean_html`, ``<del>``/``<ins>`` only)
  and shown with ``st.html``: model text is never rendered unsanitised.
* Metrics (:mod:`workbench.evaluate.metrics`): per page and per document -- seconds per page,
  tokens, regions per label, text similarity of A vs B, and CER of each side against a
  reference: text the user pastes for the current page, else the text layer of the original
  PDF (page N of the PDF is the reference for page N;
  :func:`workbench.documents.textlayer.pdf_text_layer`). The original comes from the run
  store, which keeps the PDF a run was made from (:meth:`RunStore.keep_source`), found by
  either side's document content; only when neither side's is kept (an older run, a CLI run
  outside the store) does the page say so and ask for an upload.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import streamlit as st

from workbench.documents.textlayer import pdf_text_layer
from workbench.errors import WorkbenchError
from workbench.evaluate import metrics
from workbench.evaluate.compare import diff_counts, diff_html, reading_diff
from workbench.markdown.sanitize import clean_html
from workbench.runs.store import RunReader
from workbench.schema import PageResult
from workbench.ui import state
from workbench.ui.compare import parts as compare_parts
from workbench.ui.kit import get_store

DIFF_CSS = (
    "<style>.wb-diff{line-height:1.7;font-size:0.95rem;max-height:420px;overflow:auto;"
    "padding:.5rem;border:1px solid #ddd;border-radius:6px}"
    ".wb-diff del{background:#ffd8d8;color:#a00;text-decoration:line-through}"
    ".wb-diff ins{background:#d3f9d8;color:#1b5e20;text-decoration:none}</style>"
)
REF_PDF = state.CMP_REF_PDF.key


def document_results(reader: RunReader, doc: str, use_fix: bool) -> list[PageResult]:
    """Every finished page of ``doc``; regions from the corrected layer when asked."""
    out = []
    for stored in reader.iter_stored(doc):
        result = stored.result
        if use_fix and stored.corrected is not None:
            result = result.model_copy(update={"regions": stored.corrected})
        out.append(result)
    return out


@st.cache_data(max_entries=32, show_spinner="Measuring…")
def measure(
    pages_json: tuple[str, ...], others_json: tuple[str, ...], refs: tuple[tuple[int, str], ...]
) -> list[metrics.PageMetrics]:
    """Cached :func:`metrics.metrics_table` (keyed by the pages' JSON and the references)."""
    pages = [PageResult.model_validate_json(p) for p in pages_json]
    others = [PageResult.model_validate_json(p) for p in others_json]
    doc = pages[0].document if pages else ""
    return metrics.metrics_table(pages, others=others, references={(doc, n): t for n, t in refs})


def diff_block(left: str, right: str) -> tuple[str, dict[str, int]]:
    """Sanitised diff HTML (``<del>`` A only, ``<ins>`` B only) and word counts of the two
    pages' Markdown as a reader reads it (markup is not words)."""
    ops = reading_diff(left, right)
    safe = clean_html(diff_html(ops), tags={"del", "ins"})
    return f'{DIFF_CSS}<div class="wb-diff">{safe}</div>', diff_counts(ops)


@st.cache_data(max_entries=16, show_spinner=False)
def _pdf_layer(digest: str, _data: bytes, pages: tuple[int, ...]) -> dict[int, str]:
    """The text layer of ``pages``, cached by the PDF's ``digest`` (the leading underscore
    keeps Streamlit from hashing the whole file again on every rerun)."""
    out: dict[int, str] = {}
    for n in pages:
        try:
            out[n] = pdf_text_layer(_data, n)
        except WorkbenchError:
            continue
    return out


def kept_original(sides: list[tuple[RunReader, str]]) -> tuple[str, Path] | None:
    """The original PDF of the compared document as the run store keeps it, by the content
    (sha256) either side's run records for it: (sha256, path), or None when none is kept."""
    store = get_store()
    for reader, doc in sides:
        for info in reader.info.documents:
            if info.name == doc and info.sha256:
                path = store.source(info.sha256)
                if path is not None:
                    return info.sha256, path
    return None


@st.cache_data(max_entries=16, show_spinner=False)
def _kept_layer(digest: str, path: str, pages: tuple[int, ...]) -> dict[int, str]:
    """The text layer of ``pages`` of the kept original (read once per document and pages)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return {}
    return _pdf_layer(digest, data, pages)


def references(
    doc: str, pages: list[int], original: tuple[str, Path] | None = None
) -> dict[int, str]:
    """Reference text by page: pasted text wins over the PDF text layer, which comes from the
    ``original`` the store keeps, else from an uploaded PDF."""
    refs: dict[int, str] = {}
    upload = state.CMP_REF_PDF.get()
    if original is not None:
        layer = _kept_layer(original[0], str(original[1]), tuple(pages))
        refs.update({n: t for n, t in layer.items() if t.strip()})
    elif upload is not None:
        data = upload.getvalue()
        layer = _pdf_layer(hashlib.sha256(data).hexdigest(), data, tuple(pages))
        refs.update({n: t for n, t in layer.items() if t.strip()})
    for n in pages:
        pasted = state.CMP_REF_TEXT(doc, n).get()
        if pasted.strip():
            refs[n] = pasted
    return refs


CER_NAME = "CER vs reference (reading order)"
#: What each metric shown measures, said where it is shown (issue 30.5: a CER of 0.24 on a
#: table read right cell by cell, in another order, read as bad OCR).
METRIC_HELP = {
    "similarity": "how much of A's text B has too, in the same order (1 − character edits "
    "/ the longer text), whitespace ignored.",
    "s/page": "seconds the engine took per page.",
    "tokens": "tokens the model wrote (0 for the CPU engine).",
    "regions": "layout boxes found.",
    CER_NAME: "character edits needed to turn the run's text into the reference, divided by "
    "the reference's length, with both read in their own order (lower is better). A table "
    "read column by column against a reference read row by row counts many edits even when "
    "every cell is right: word F1 tells the two apart.",
    "word F1 vs reference": "the words the run and the reference have in common, in any "
    "order (harmonic mean of precision and recall; higher is better). High word F1 with a "
    "high CER means the right text in another order (tables, columns).",
}


def reference_note(doc: str, kept: bool, any_ref: bool) -> str:
    """Where the CER's reference comes from, or why there is none, in one line."""
    if kept and any_ref:
        return f"CER and word F1 against the text layer of the original {doc} (kept in the store)."
    if kept:
        return (
            f"The original {doc} has no text layer on these pages (a scan): paste the true "
            "text above for CER."
        )
    if any_ref:
        return "CER and word F1 against the reference text above."
    return (
        "CER needs a reference: neither run keeps the original PDF; paste text or upload it above."
    )


def shown(value: float | int | None, what: str) -> str:
    """A metric as a reader reads it: "—" for none, a share as a percentage, seconds with two
    decimals, counts whole, an error rate with three (never 0.9752370916754478 or "None")."""
    if value is None:
        return "—"
    if what == "%" or "F1" in what:
        return f"{value:.1%}"
    if "CER" in what:
        return f"{value:.3f}"
    if isinstance(value, int) or what in ("tokens", "regions"):
        return f"{int(value):,}"
    return f"{value:.2f}"


def shown_table(table: pd.DataFrame) -> pd.DataFrame:
    """The per-page table as text, each column as :func:`shown` writes it."""
    out = table.copy()
    for col in out.columns:
        if col == "page":
            continue
        what = "%" if col == "similarity" else col
        out[col] = [shown(None if pd.isna(v) else v, what) for v in table[col]]
    return out


def side_by_side(
    rows_a: list[metrics.PageMetrics], rows_b: list[metrics.PageMetrics]
) -> pd.DataFrame:
    b_by_page = {r.page: r for r in rows_b}
    out = []
    for a in rows_a:
        b = b_by_page.get(a.page)
        out.append(
            {
                "page": a.page,
                "A s/page": a.seconds,
                "B s/page": b.seconds if b else None,
                "A tokens": a.tokens,
                "B tokens": b.tokens if b else None,
                "A regions": a.regions,
                "B regions": b.regions if b else None,
                "similarity": a.similarity,
                "A CER": a.cer,
                "B CER": b.cer if b else None,
            }
        )
    return pd.DataFrame(out)


def labels_frame(a: dict[str, int], b: dict[str, int]) -> pd.DataFrame:
    labels = sorted(set(a) | set(b))
    return pd.DataFrame(
        {"label": labels, "A": [a.get(x, 0) for x in labels], "B": [b.get(x, 0) for x in labels]}
    )


def _text_diff(page: int, res_a: PageResult | None, res_b: PageResult | None) -> None:
    """The word diff of the page's Markdown, A against B."""
    st.subheader(f"Text diff, page {page}")
    if res_a is None or res_b is None:
        st.info("One side has no result for this page.")
        return
    block, counts = diff_block(res_a.markdown, res_b.markdown)
    st.caption(
        f"{counts['equal']} words equal · {counts['delete']} only in A (red) · "
        f"{counts['insert']} only in B (green)"
    )
    st.html(block)


def _reference_inputs(doc_a: str, page: int, kept: bool) -> None:
    """Where the CER reference comes from: the kept original's text layer (``kept``), else an
    uploaded original; text pasted for the page wins."""
    with st.expander("Reference text for CER", expanded=False):
        if kept:
            st.caption(
                f"The reference is the text layer of the original {doc_a}, as the run store "
                "keeps it, page by page; text pasted below wins for its page."
            )
        else:
            st.caption(
                f"Neither run keeps the original {doc_a} (a run made before originals were "
                "kept, from images, or by the CLI outside the store): upload it for its text "
                "layer, or paste the true text."
            )
            st.file_uploader(
                "Original PDF (its text layer is the reference, page by page)",
                type=["pdf"],
                key=REF_PDF,
            )
        st.text_area(
            f"Paste the true text of page {page}",
            key=state.CMP_REF_TEXT(doc_a, page).key,
            height=120,
        )


def render(
    reader_a: RunReader,
    doc_a: str,
    reader_b: RunReader,
    doc_b: str,
    page: int,
    res_a: PageResult | None,
    res_b: PageResult | None,
    use_fix: bool,
) -> None:
    _text_diff(page, res_a, res_b)
    pages_a = document_results(reader_a, doc_a, use_fix)
    pages_b = document_results(reader_b, doc_b, use_fix)
    numbers = sorted({p.page for p in pages_a} | {p.page for p in pages_b})
    st.subheader("Metrics")
    original = kept_original([(reader_a, doc_a), (reader_b, doc_b)])
    _reference_inputs(doc_a, page, original is not None)
    refs = references(doc_a, numbers, original)
    # Both sides under A's document name, so pages pair by number and share references.
    json_a = tuple(p.model_copy(update={"document": doc_a}).model_dump_json() for p in pages_a)
    json_b = tuple(p.model_copy(update={"document": doc_a}).model_dump_json() for p in pages_b)
    ref_items = tuple(sorted(refs.items()))
    rows_a = measure(json_a, json_b, ref_items)
    rows_b = measure(json_b, json_a, ref_items)
    if not rows_a:
        st.info("Run A has no finished page to measure.")
        return
    table = side_by_side(rows_a, rows_b)
    docs_a, docs_b = metrics.document_metrics(rows_a), metrics.document_metrics(rows_b)
    da, db = docs_a[0], (docs_b[0] if docs_b else None)
    st.markdown("**Document**")
    doc_rows = {
        "s/page": (da.seconds_per_page, db.seconds_per_page if db else None),
        "tokens": (da.tokens, db.tokens if db else None),
        "regions": (da.regions, db.regions if db else None),
        CER_NAME: (da.cer, db.cer if db else None),
        "word F1 vs reference": (da.word_f1, db.word_f1 if db else None),
    }
    # Similarity belongs to the pair: one value between the sides' columns.
    rows = [{"metric": "similarity", "A": "", "A↔B": shown(da.similarity, "%"), "B": ""}]
    rows += [
        {"metric": k, "A": shown(v[0], k), "A↔B": "", "B": shown(v[1], k)}
        for k, v in doc_rows.items()
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption(reference_note(doc_a, original is not None, bool(refs)))
    with st.expander("What each metric measures"):
        st.markdown("\n".join(f"- **{k}**: {v}" for k, v in METRIC_HELP.items()))
    st.markdown("**Per page**")
    st.dataframe(shown_table(table), hide_index=True, width="stretch")
    c1, c2 = st.columns(2)
    with c1:
        st.markdown(f"**Regions per label, page {page}**")
        a_now = next((r.regions_by_label for r in rows_a if r.page == page), {})
        b_now = next((r.regions_by_label for r in rows_b if r.page == page), {})
        st.dataframe(labels_frame(a_now, b_now), hide_index=True)
    with c2:
        st.markdown("**Regions per label, document**")
        st.dataframe(
            labels_frame(da.regions_by_label, db.regions_by_label if db else {}), hide_index=True
        )
    st.markdown("**Across pages**" if len(table) > 1 else f"**Page {page}, side by side**")
    compare_parts.across_pages(table)
