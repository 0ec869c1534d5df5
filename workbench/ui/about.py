"""The About page: what the workbench does, which engines can run here, the supported models,
and where the sample documents come from."""

from __future__ import annotations

from importlib import metadata

import pandas as pd
import streamlit as st

from workbench.models.registry import all_specs
from workbench.ui import state
from workbench.ui.config import settings
from workbench.ui.inputs import ASSETS
from workbench.ui.page_facts import widen_main
from workbench.ui.sidebar import served_models

_PACKAGES = ("streamlit", "pypdfium2", "pydantic", "nh3", "tesserocr", "rapidocr", "vllm")


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


_CHECKED = {
    "cpu": "the OCR packages import (tesserocr, rapidocr)",
    "vllm": "vllm is installed and NVML sees an NVIDIA GPU",
}


def engine_row(kind: str, label: str, available: bool, hint: str | None) -> dict[str, str]:
    """One row of the engines table: whether the engine can run here and what was checked.
    A vLLM server counts only when it answers ``GET /models`` at the sidebar's base URL."""
    if kind == "vllm-server":
        base_url = (state.SB_BASE_URL.get() or settings().base_url).strip()
        api_key = state.SB_API_KEY.get() or settings().api_key
        models, why = served_models(base_url, api_key or None)
        checked = f"GET {base_url.rstrip('/')}/models"
        if models:
            shown = ", ".join(models[:3]) + (" …" if len(models) > 3 else "")
            return {"engine": label, "available": "yes", "what was checked": f"{checked}: {shown}"}
        answer = why or "the server lists no model"
        return {"engine": label, "available": "no", "what was checked": f"{checked}: {answer}"}
    checked = _CHECKED.get(kind, "its availability probe")
    return {
        "engine": label,
        "available": "yes" if available else "no",
        "what was checked": checked + ("" if available else f": {hint}"),
    }


def about_page() -> None:
    widen_main()  # the same page width as the Viewer, Compare and Runs
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

        rows = [engine_row(k.kind, k.label, k.available, k.hint) for k in engine_kinds()]
        st.dataframe(
            pd.DataFrame(rows),
            hide_index=True,
            column_config={"what was checked": st.column_config.TextColumn(width="large")},
        )
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
