"""The viewer's downloads: this page and every processed page of its document.

Markdown follows the viewer's "Headers & footers" switch; JSON is the full PageResult.
Markdown that links figure crops (``![Figure rN](page-NNNN-rN.png)``) comes with its images
or without the links: a ZIP of the Markdown and the crops from the document's run folder
(written by the run writer), or, when the run holds no crops (the store could not be
written), the Markdown with those links left out. Never a link to a file that is not there.
"""

from __future__ import annotations

import functools
import io
import json
import re
import zipfile
from collections.abc import Callable

import pandas as pd
import streamlit as st

from workbench.exports.formats import readable
from workbench.markdown.assemble import assemble_document
from workbench.schema import PageResult
from workbench.ui import exports_view
from workbench.ui import markdown_view as mv
from workbench.ui.inputs import Selected
from workbench.ui.results import results
from workbench.ui.viewer import runs as viewer_runs

_FIGURE_LINK = re.compile(r"!\[Figure [^\]]*\]\((page-\d{4,}-[^)/\\]+\.png)\)\n*")


def with_figures(
    stem: str, markdown: str, sha256: str, ekey: str, pages: list[int]
) -> tuple[bytes | str, str, str]:
    """(data, file name, mime) of a Markdown download: the ``.md`` alone when it links no
    figure, a ZIP with the linked crops when the run has every one, else the ``.md``
    without the figure links."""
    build, name, mime = figure_download(stem, markdown, sha256, ekey, pages)
    return build(), name, mime


def figure_download(
    stem: str, markdown: str, sha256: str, ekey: str, pages: list[int]
) -> tuple[Callable[[], bytes | str], str, str]:
    """As :func:`with_figures`, with the data as a callable: the ZIP is compressed only when
    the user clicks (a rerun never pays for it)."""
    markdown = readable(markdown)
    linked = list(dict.fromkeys(_FIGURE_LINK.findall(markdown)))
    if not linked:
        return lambda: markdown, f"{stem}.md", "text/markdown"
    crops = viewer_runs.figure_files(sha256, ekey, pages)
    if not all(name in crops for name in linked):
        plain = _FIGURE_LINK.sub("", markdown)
        return lambda: plain, f"{stem}.md", "text/markdown"

    def build() -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr(f"{stem}.md", markdown)
            for name in linked:
                zf.write(crops[name], name)
        return buf.getvalue()

    return build, f"{stem}.zip", "application/zip"


@st.cache_data(max_entries=64, show_spinner=False)
def _timing_table(rows: tuple[tuple[int, str, float, int, int, int], ...]) -> pd.DataFrame:
    """The per-page timing table (cached: a long document's table is not rebuilt per click)."""
    columns = ["page", "status", "seconds", "tokens", "retries", "regions"]
    return pd.DataFrame(list(rows), columns=columns)


def downloads(sel: Selected, result: PageResult | None, ekey: str, *, furniture: bool) -> None:
    """Page and document downloads (Markdown, JSON) and the per-page timing table."""
    cache, f = results(), sel.file
    done = [r for p in sel.pages if (r := cache.get(f.sha256, p, ekey)) is not None]
    stem = f.doc.stem if f.doc else "document"
    # Two buttons a row: four in one row cut "Document Markdown (5 p.)" to "Document Markdo…"
    # at 1100 px.
    page_row, doc_row = st.columns(2), st.columns(2)
    c = [*page_row, *doc_row]
    if result is not None:
        name = f"{stem}-page-{result.page:04d}"
        md = mv.page_markdown(result, furniture)
        build, fname, mime = figure_download(name, md, f.sha256, ekey, [result.page])
        c[0].download_button(
            "Page Markdown" + (" + figures" if fname.endswith(".zip") else ""),
            build,
            fname,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
        )
        c[1].download_button(
            "Page JSON",
            functools.partial(_json, [result], single=True),
            f"{name}.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
        )
    if done:
        # Everything is built when the user clicks, not on every rerun: a long document's
        # JSON and ZIP cost seconds (the figure check reads one folder listing).
        doc_md = assemble_document((r.page, mv.page_markdown(r, furniture)) for r in done)
        build, fname, mime = figure_download(stem, doc_md, f.sha256, ekey, [r.page for r in done])
        c[2].download_button(
            f"Document Markdown ({len(done)} p.)"
            + (" + figures" if fname.endswith(".zip") else ""),
            build,
            fname,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
        )
        c[3].download_button(
            f"Document JSON ({len(done)} p.)",
            functools.partial(_json, done),
            f"{stem}.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
        )
        run_exports(f.sha256, ekey)
        with st.expander(f"Timing per page · {f.name}"):
            rows = tuple(
                (r.page, r.status.value, r.seconds, r.tokens, r.retries, len(r.regions))
                for r in done
            )
            st.dataframe(_timing_table(rows), hide_index=True)


#: The run's exports offered in the Viewer too (the Runs page has the same buttons).
VIEWER_EXPORTS = ("HTML", "ZIP", "COCO")


def run_exports(sha256: str, ekey: str) -> None:
    """HTML, ZIP and COCO of this document's run (the pages saved so far), built on click by
    the same exporters as Runs → Export; a caption when the document has no run."""
    found = viewer_runs.run_folder(sha256, ekey)
    if found is None:
        st.caption("HTML, ZIP and COCO downloads come from the document's run: none is saved.")
        return
    reader, name = found
    built = exports_view.builders(reader, "This document", name, None, model_only=False)
    cols = st.columns(len(VIEWER_EXPORTS))
    for col, fmt in zip(cols, VIEWER_EXPORTS, strict=True):
        build, fname, mime, note = built[fmt]
        col.download_button(
            f"Document {fmt}",
            build,
            fname,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
            help=note,
            key=f"wb_export_{fmt}",
        )


def _json(results: list[PageResult], single: bool = False) -> str:
    dumped = [r.model_dump(mode="json") for r in results]
    return json.dumps(dumped[0] if single else dumped, indent=2)
