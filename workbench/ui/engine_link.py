"""The sidebar's engine choice in the URL, so a reload or a shared link opens on the same engine.

Query parameters: ``engine`` (the kind: ``cpu``, ``vllm-server``, ``vllm``), ``server`` (the
server engine's base URL) and ``model`` (the server's or the in-process engine's model). An API
key is never put there. The URL is read once, when a session begins (:func:`read`): the
sidebar's widgets start on what it names, and a name the sidebar does not offer is ignored
(the widget starts on its usual default). It is written on every run (:func:`publish`), as the
Viewer's ``?docs=`` is (:mod:`workbench.ui.workset`): Streamlit drops query parameters when
another page is opened.

A link can point the app at any server; only ``http``/``https`` URLs are taken, and the
sidebar shows the base URL in its box before any page is sent there.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

import streamlit as st

from workbench.ui import state

KIND, SERVER, MODEL = "engine", "server", "model"  # the URL's query parameters


@dataclass(frozen=True)
class EngineLink:
    """What the URL names: an engine kind and, where the kind has them, base URL and model."""

    kind: str | None = None
    base_url: str | None = None
    model: str | None = None

    def params(self) -> dict[str, str | None]:
        return {KIND: self.kind, SERVER: self.base_url, MODEL: self.model}


def _web_url(value: str | None) -> str | None:
    """``value`` when it is an http(s) URL with a host, else None."""
    if not value:
        return None
    parts = urlsplit(value.strip())
    return value.strip() if parts.scheme in ("http", "https") and parts.netloc else None


def read() -> EngineLink:
    """The engine the URL named when this session began (read from the URL on the first call
    of the session, kept in :data:`~workbench.ui.state.SB_LINK` after)."""
    link = state.SB_LINK.get()
    if isinstance(link, EngineLink):
        return link
    query = st.query_params
    link = EngineLink(
        query.get(KIND) or None,
        _web_url(query.get(SERVER)),
        query.get(MODEL) or None,
    )
    state.SB_LINK.set(link)
    return link


def publish(link: EngineLink) -> None:
    """Put ``link`` in the URL: its parameters with a value set, the others removed."""
    for name, value in link.params().items():
        if value:
            if st.query_params.get(name) != value:
                st.query_params[name] = value
        elif name in st.query_params:
            del st.query_params[name]
