"""The About page: what the workbench does, which engines can run here, the supported models,
and where the sample documents come from."""

from __future__ import annotations

from importlib import metadata

import pandas as pd
import streamlit as st

from workbench.models.registry import all_specs
from workbench.ui.inputs import ASSETS

_PACKAGES = ("streamlit", "pypdfium2", "pydantic", "nh3", "tesserocr", "rapidocr", "vllm")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def about_page() -> None:
    st.title("OCR Workbench")
    st.caption("About: the engines on this machine, the supported models, versions, samples.")
    st.markdown(
        "Drop scans and PDFs on the **Viewer**, see every predicted layout region over the "
        "page and the Markdown beside it; click a box to find its text, or the text to find "
        "its box. Results are cached by file content, page, engine and settings, so moving "
        "around never runs OCR again."
    )
    st.subheader("Engines on this machine")
    try:
        from workbench.engines.factory import engine_kinds

        rows = [
            {"engine": k.label, "available": "yes" if k.available else "no", "note": k.hint or ""}
            for k in engine_kinds()
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True)
    except ImportError as exc:
        st.warning(f"The engine factory is not available: {exc}")
    st.subheader("Models")
    st.dataframe(
        pd.DataFrame(
            [
                {"model": s.id, "family": s.family, "boxes": s.boxes, "parser": s.parser}
                for s in all_specs()
            ]
        ),
        hide_index=True,
    )
    st.subheader("Versions")
    st.dataframe(
        pd.DataFrame([{"package": p, "version": _version(p)} for p in _PACKAGES]),
        hide_index=True,
    )
    sources = ASSETS / "SOURCES.md"
    if sources.exists():
        with st.expander("Sample documents"):
            st.markdown(sources.read_text(encoding="utf-8"))
