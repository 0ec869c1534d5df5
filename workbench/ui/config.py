"""The app's settings (environment + defaults), read once per process and shared by every
session; see :class:`workbench.settings.Settings` for the variables."""

from __future__ import annotations

import streamlit as st

from workbench.settings import Settings


@st.cache_resource
def settings() -> Settings:
    return Settings.from_env()
