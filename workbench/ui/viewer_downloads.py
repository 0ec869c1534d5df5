"""The viewer's downloads: this page and every processed page of its document.

Markdown follows the viewer's "Headers & footers" switch; JSON is the full PageResult.
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from workbench.markdown.assemble import assemble_document
from workbench.schema import PageResult
from workbench.ui import markdown_view as mv
from workbench.ui.inputs import Selected
from workbench.ui.results import results


def downloads(sel: Selected, result: PageResult | None, ekey: str, *, furniture: bool) -> None:
    """Page and document downloads (Markdown, JSON) and the per-page timing table."""
    cache, f = results(), sel.file
    done = [r for p in sel.pages if (r := cache.get(f.sha256, p, ekey)) is not None]
    stem = f.doc.stem if f.doc else "document"
    c = st.columns(4)
    if result is not None:
        name = f"{stem}-page-{result.page:04d}"
        c[0].download_button(
            "Page Markdown",
            mv.page_markdown(result, furniture),
            f"{name}.md",
            mime="text/markdown",
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
        c[2].download_button(
            f"Document Markdown ({len(done)} p.)",
            doc_md,
            f"{stem}.md",
            mime="text/markdown",
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
