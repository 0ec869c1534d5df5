"""The viewer's downloads: this page and every processed page of its document.

Markdown follows the viewer's "Headers & footers" switch; JSON is the full PageResult.
Markdown that links figure crops (``![Figure rN](page-NNNN-rN.png)``) comes with its images
or without the links: a ZIP of the Markdown and the crops from the document's run folder
(written by the run writer), or, when the run holds no crops (the store could not be
written), the Markdown with those links left out. Never a link to a file that is not there.
"""

from __future__ import annotations

import io
import json
import re
import zipfile

import pandas as pd
import streamlit as st

from workbench.markdown.assemble import assemble_document
from workbench.schema import PageResult
from workbench.ui import markdown_view as mv
from workbench.ui import viewer_runs
from workbench.ui.inputs import Selected
from workbench.ui.results import results

_FIGURE_LINK = re.compile(r"!\[Figure [^\]]*\]\((page-\d{4,}-[^)/\\]+\.png)\)\n*")


def with_figures(
    stem: str, markdown: str, sha256: str, ekey: str, pages: list[int]
) -> tuple[bytes | str, str, str]:
    """(data, file name, mime) of a Markdown download: the ``.md`` alone when it links no
    figure, a ZIP with the linked crops when the run has every one, else the ``.md``
    without the figure links."""
    linked = list(dict.fromkeys(_FIGURE_LINK.findall(markdown)))
    if not linked:
        return markdown, f"{stem}.md", "text/markdown"
    crops = viewer_runs.figure_files(sha256, ekey, pages)
    if not all(name in crops for name in linked):
        return _FIGURE_LINK.sub("", markdown), f"{stem}.md", "text/markdown"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{stem}.md", markdown)
        for name in linked:
            zf.write(crops[name], name)
    return buf.getvalue(), f"{stem}.zip", "application/zip"


def downloads(sel: Selected, result: PageResult | None, ekey: str, *, furniture: bool) -> None:
    """Page and document downloads (Markdown, JSON) and the per-page timing table."""
    cache, f = results(), sel.file
    done = [r for p in sel.pages if (r := cache.get(f.sha256, p, ekey)) is not None]
    stem = f.doc.stem if f.doc else "document"
    c = st.columns(4)
    if result is not None:
        name = f"{stem}-page-{result.page:04d}"
        md = mv.page_markdown(result, furniture)
        data, fname, mime = with_figures(name, md, f.sha256, ekey, [result.page])
        c[0].download_button(
            "Page Markdown" + (" + figures" if fname.endswith(".zip") else ""),
            data,
            fname,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
        )
        c[1].download_button(
            "Page JSON",
            json.dumps(result.model_dump(mode="json"), indent=2),
            f"{name}.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
        )
    if done:
        doc_md = assemble_document((r.page, mv.page_markdown(r, furniture)) for r in done)
        doc_json = json.dumps([r.model_dump(mode="json") for r in done], indent=2)
        data, fname, mime = with_figures(stem, doc_md, f.sha256, ekey, [r.page for r in done])
        c[2].download_button(
            f"Document Markdown ({len(done)} p.)"
            + (" + figures" if fname.endswith(".zip") else ""),
            data,
            fname,
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
        )
        c[3].download_button(
            f"Document JSON ({len(done)} p.)",
            doc_json,
            f"{stem}.json",
            mime="application/json",
            on_click="ignore",
            icon=":material/download:",
        )
        with st.expander(f"Timing per page · {f.name}"):
            st.dataframe(
                pd.DataFrame(
                    [
                        {
                            "page": r.page,
                            "status": r.status.value,
                            "seconds": r.seconds,
                            "tokens": r.tokens,
                            "retries": r.retries,
                            "regions": len(r.regions),
                        }
                        for r in done
                    ]
                ),
                hide_index=True,
            )
