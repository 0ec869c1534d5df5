"""Compare page pieces that tell the two runs apart: run picker labels, A/B label pills, the
A↔B line between the sides, and the across-pages charts.

* A picker label leads with what differs between runs, never with a long shared prefix:
  ``document · engine/model · settings that differ between the listed runs · date · pages ·
  status`` (the model cut to its last path part; the full text is in the caption under the
  picker). Two runs that still read alike get their run name appended, then the end of
  their run id.
* Label pills count each side: ``text · A 13 / B 12`` (never the sum of both).
* Similarity and agreement are properties of the pair, so they are shown once, between the
  sides, not as a value of each side.
* "Across pages" draws lines over the page number only when there are two pages or more; a
  one-page document gets bars per side (a line through one point draws nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import pandas as pd
import streamlit as st

from workbench.evaluate import metrics
from workbench.evaluate.compare import Alignment, located
from workbench.runs.store import RunSummary
from workbench.schema import PageResult, RunInfo

SIDE_COLORS = {"A": "#1c7ed6", "B": "#e8590c"}
SIMILARITY_COLOR = "#7048e8"
_MODEL_CHARS = 28
_SETTING_CHARS = 32  # one differing setting in a label (its whole value is in the caption)


def short_model(model: str) -> str:
    """``org/Some-Model-Name`` -> ``Some-Model-Name``, cut to a readable length."""
    tail = model.rsplit("/", 1)[-1]
    return tail if len(tail) <= _MODEL_CHARS else tail[: _MODEL_CHARS - 1] + "…"


def differing_settings(infos: Sequence[RunInfo]) -> list[str]:
    """Settings keys (and ``profile``) whose values are not the same in every run listed."""
    keys = sorted({k for info in infos for k in info.settings})
    out = ["profile"] if len({info.profile for info in infos}) > 1 else []
    for k in keys:
        if len({repr(info.settings.get(k)) for info in infos}) > 1:
            out.append(k)
    return out


def _settings_text(info: RunInfo | None, keys: Sequence[str]) -> str:
    if info is None:
        return ""
    values = {"profile": info.profile, **info.settings}
    shown = (f"{k}={values.get(k)}" for k in keys if values.get(k) is not None)
    return " ".join(t if len(t) <= _SETTING_CHARS else t[: _SETTING_CHARS - 1] + "…" for t in shown)


def run_labels(
    runs: Sequence[RunSummary], infos: Mapping[str, RunInfo], document: str | None = None
) -> dict[str, str]:
    """One readable label per run id (see the module docstring); ``document`` names the
    document shown for every run (Compare's run B list), else each run's own."""
    keys = differing_settings([infos[r.id] for r in runs if r.id in infos])
    labels: dict[str, str] = {}
    for r in runs:
        docs = r.documents
        doc = document or (
            docs[0] + (f" +{len(docs) - 1}" if len(docs) > 1 else "") if docs else "—"
        )
        when = r.created.strftime("%d %b %Y %H:%M") if r.created else "?"
        parts = [doc, f"{r.engine}/{short_model(r.model)}", _settings_text(infos.get(r.id), keys)]
        parts += [when, f"{r.pages} p", r.status]
        labels[r.id] = " · ".join(p for p in parts if p)
    # Still alike: the run's own name, then the end of its id, tells them apart.
    for extra in (lambda r: r.name, lambda r: f"#{r.id.rsplit('-', 1)[-1]}"):
        seen: dict[str, int] = {}
        for label in labels.values():
            seen[label] = seen.get(label, 0) + 1
        for r in runs:
            if seen[labels[r.id]] > 1 and extra(r):
                labels[r.id] += f" · {extra(r)}"
    return labels


def run_caption(summary: RunSummary, info: RunInfo | None) -> str:
    """The full facts under a picker: engine, whole model name, every setting, run id."""
    settings = ", ".join(f"{k}={v}" for k, v in (info.settings if info else {}).items())
    bits = [f"`{summary.engine}` · `{summary.model}`"]
    if info is not None and info.profile:
        bits.append(f"profile {info.profile}")
    if settings:
        bits.append(settings)
    bits.append(f"run `{summary.id}`")
    return " · ".join(bits)


def side_counts(res_a: PageResult | None, res_b: PageResult | None) -> dict[str, tuple[int, int]]:
    """label -> (regions in A, regions in B) on this page."""
    counts: dict[str, list[int]] = {}
    for i, res in enumerate((res_a, res_b)):
        for r in res.regions if res else []:
            counts.setdefault(r.label.value, [0, 0])[i] += 1
    return {k: (v[0], v[1]) for k, v in counts.items()}


def pill_text(label: str, counts: Mapping[str, tuple[int, int]]) -> str:
    a, b = counts.get(label, (0, 0))
    return f"{label} · A {a} / B {b}"


def page_similarity(res_a: PageResult | None, res_b: PageResult | None) -> float | None:
    """Text similarity of the two sides' page text (1 = the same text), as the metrics
    tables compute it."""
    if res_a is None or res_b is None:
        return None
    return metrics.similarity(
        metrics.plain_text(res_a.markdown), metrics.plain_text(res_b.markdown)
    )


def no_boxes(res_a: PageResult | None, res_b: PageResult | None) -> str:
    """Which side gives no layout boxes on this page ("" when both do): its regions cannot
    agree or disagree with the other side's, so no agreement is reported for it."""
    sides = [s for s, r in (("A", res_a), ("B", res_b)) if r is not None and not located(r.regions)]
    if not sides:
        return ""
    return f"{' and '.join(sides)} {'has' if len(sides) == 1 else 'have'} no layout boxes"


def between_sides(
    page: int, res_a: PageResult | None, res_b: PageResult | None, alignment: Alignment
) -> None:
    """One centred line between the sides: how alike A and B are on this page."""
    sim = page_similarity(res_a, res_b)
    n_dis = len(alignment.left_only) + len(alignment.right_only) + len(alignment.label_mismatches)
    bits = [f"page {page}"]
    boxless = no_boxes(res_a, res_b)
    if sim is not None:
        bits.append(f"text similarity <b>{sim:.0%}</b>")
        if boxless:
            bits.append(f"{boxless}: layout not compared")
        else:
            bits.append(f"layout agreement <b>{alignment.agreement:.0%}</b>")
            bits.append(f"{n_dis} disagreement{'s' if n_dis != 1 else ''}")
    else:
        bits.append("one side has no result for this page")
    a, b = SIDE_COLORS["A"], SIDE_COLORS["B"]
    st.html(
        "<style>.wb-between{display:flex;justify-content:center;align-items:center;gap:.6rem;"
        "font-size:.95rem;padding:.35rem .8rem;margin:0 auto;border:1px solid #e3e6ea;"
        "border-radius:1rem;width:fit-content;background:#f8f9fb}"
        ".wb-between .s{font-weight:700;padding:0 .45rem;border-radius:.5rem;color:#fff}</style>"
        f'<div class="wb-between" data-testid="wb-between">'
        f'<span class="s" style="background:{a}">A</span>⟷'
        f'<span class="s" style="background:{b}">B</span>'
        f"<span>{escape(' · ', quote=False).join(bits)}</span></div>"
    )


def across_pages(table: pd.DataFrame) -> None:
    """Seconds per page and quality (similarity A↔B, CER of each side) over the pages:
    lines for two pages or more, bars per side for one page."""
    quality = [c for c in ("similarity", "A CER", "B CER") if c in table and table[c].notna().any()]
    g1, g2 = st.columns(2)
    if len(table) >= 2:
        chart = table.set_index("page")
        palette = {"similarity": SIMILARITY_COLOR, "A CER": SIDE_COLORS["A"]}
        palette["B CER"] = SIDE_COLORS["B"]
        if quality:
            g1.caption("Similarity A↔B and CER of each side (0–1), by page")
            g1.line_chart(chart[quality], color=[palette[c] for c in quality], x_label="page")
        g2.caption("Seconds per page, by page")
        g2.line_chart(
            chart[["A s/page", "B s/page"]],
            color=[SIDE_COLORS["A"], SIDE_COLORS["B"]],
            x_label="page",
        )
        return
    row = table.iloc[0]
    with g1:
        cers = {s: row.get(f"{s} CER") for s in "AB"}
        if any(pd.notna(v) for v in cers.values()):
            st.caption(f"CER of each side on page {int(row['page'])} (lower is better)")
            st.bar_chart(
                pd.DataFrame({"CER": [cers["A"], cers["B"]]}, index=["A", "B"]),
                horizontal=True,
                height=130,
            )
        else:
            st.caption(
                f"Page {int(row['page'])}: CER needs a reference (see above). "
                f"Similarity A↔B: {row['similarity']:.0%}."
                if pd.notna(row.get("similarity"))
                else "CER needs a reference (see above)."
            )
    with g2:
        seconds = [row["A s/page"], row["B s/page"]]
        if not any(pd.notna(v) and v > 0 for v in seconds):  # bars of nothing say nothing
            st.caption(f"Seconds for page {int(row['page'])}: not measured on either side.")
            return
        st.caption(f"Seconds for page {int(row['page'])}, each side")
        st.bar_chart(
            pd.DataFrame({"seconds": seconds}, index=["A", "B"]), horizontal=True, height=130
        )
