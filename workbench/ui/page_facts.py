"""One page's facts in one line: file, page, status, time, tokens, retries, regions,
confidence and engine, drawn so the line never wraps.

The line is a flex row with ``white-space: nowrap``: at any width only the engine/model
shrinks (and a file name longer than 45 % of the line), with an ellipsis; both keep their
full text in a tooltip. Confidence is the engine's own (``PageResult.confidence``, a 0-1 mean of
its regions' text confidences, when the engine gives one); under
:data:`workbench.ui.overlay.element.LOW_CONFIDENCE` it is a red "low confidence" badge, so a
page read as gibberish does not look like a good one. Every value is HTML-escaped.
"""

from __future__ import annotations

from html import escape

import streamlit as st

from workbench.schema import PageResult, PageStatus
from workbench.ui.jobs.records import PageWord
from workbench.ui.overlay.element import LOW_CONFIDENCE

_BADGE = {
    PageStatus.OK: "ok",
    PageStatus.TRUNCATED: "warn",
    PageStatus.LOOPED: "warn",
    PageStatus.ERROR: "bad",
}

_CSS = """<style>
.wb-stats { display: flex; align-items: center; gap: .45rem; white-space: nowrap;
  overflow: hidden; font-size: .92rem; line-height: 1.6; color: var(--st-text-color, #31333f); }
.wb-stats > span { flex: none; }
.wb-stats > span + span::before { content: "·"; margin-right: .45rem; color: #9aa0a6; }
.wb-stats .f { font-weight: 600; flex: none; max-width: 45%; overflow: hidden;
  text-overflow: ellipsis; }
.wb-stats .e { flex: 0 1000 auto; min-width: 3rem; overflow: hidden; text-overflow: ellipsis;
  font: .8rem/1.6 ui-monospace, monospace; color: #5f6368; }
.wb-stats .b { padding: 0 .4rem; border-radius: .4rem; font-size: .82rem; font-weight: 600; }
.wb-stats .b::before { display: none; }
.wb-stats .b.ok { background: #d3f9d8; color: #1b5e20; }
.wb-stats .b.warn { background: #fff3bf; color: #8a5a00; }
.wb-stats .b.bad { background: #ffe3e3; color: #a61e1e; }
.wb-stats .b.none { background: #eceff1; color: #5f6368; }
</style>"""


def _model_short(model: str) -> str:
    """``org/Model-Name`` -> ``Model-Name``; the full name stays in the tooltip."""
    return model.rsplit("/", 1)[-1] if "/" in model else model


def confidence_badge(result: PageResult) -> tuple[str, str] | None:
    """(text, badge class) for the page's confidence; None when the engine gave none."""
    value = getattr(result, "confidence", None)
    if value is None:
        return None
    if value < LOW_CONFIDENCE:
        return f"low confidence {value:.0%}", "bad"
    return f"confidence {value:.0%}", "ok"


def stats_html(
    name: str,
    page: int,
    pages: int,
    result: PageResult | None,
    pending: str = PageWord.NOT_PROCESSED,
) -> str:
    """The line as HTML (escaped; its ``data-testid`` is ``wb-stats``); ``pending`` is the
    badge of a page with no result ("queued", "not processed")."""
    spans = [f'<span class="f" title="{escape(name)}">{escape(name)}</span>']
    spans.append(f"<span>page {page} of {pages}</span>")
    if result is None:
        spans.append(f'<span class="b none">{escape(pending)}</span>')
    else:
        status = result.status
        spans.append(f'<span class="b {_BADGE.get(status, "none")}">{escape(status.value)}</span>')
        spans.append(f"<span>{result.seconds:.2f} s</span>")
        if result.tokens:
            spans.append(f"<span>{result.tokens:,} tokens</span>")
        if result.retries:
            spans.append(f'<span class="b warn">{result.retries} retries</span>')
        unlocated = len(result.regions) - len(result.located)
        regions = f"{len(result.regions)} regions" + (
            f" ({unlocated} without box)" if unlocated else ""
        )
        spans.append(f"<span>{regions}</span>")
        conf = confidence_badge(result)
        if conf is not None:
            tip = "mean text confidence of the regions the engine rated"
            spans.append(f'<span class="b {conf[1]}" title="{tip}">{escape(conf[0])}</span>')
        full = f"{result.engine} · {result.model}"
        short = f"{result.engine} · {_model_short(result.model)}"
        spans.append(f'<span class="e" title="{escape(full)}">{escape(short)}</span>')
    return f'{_CSS}<div class="wb-stats" data-testid="wb-stats">{"".join(spans)}</div>'


def show_stats(
    name: str,
    page: int,
    pages: int,
    result: PageResult | None,
    pending: str = PageWord.NOT_PROCESSED,
) -> None:
    """The one-line facts, then the page's error and notes (a note that another repeats with
    more words is shown once)."""
    st.html(stats_html(name, page, pages, result, pending))
    if result is None:
        return
    if result.error:
        st.error(f"This page failed: {result.error}")
    for note in result.notes:
        if not any(other != note and other.startswith(note) for other in result.notes):
            st.caption(f":material/info: {note}")


def widen_main() -> None:
    """Narrower padding of the main column, so a page image and its text get the room:
    2rem a side (Streamlit's wide layout keeps 5rem) and 3.5rem on top, just under the
    toolbar (Streamlit keeps 6rem: at 1100×800 the page image started below the fold)."""
    st.html(
        "<style>[data-testid='stMainBlockContainer'] { padding-left: 2rem; "
        "padding-right: 2rem; padding-top: 3.5rem; max-width: none; }</style>"
    )
