"""OCR Workbench entry point: ``streamlit run workbench/Home.py`` from the repository root.

Puts the repository root on ``sys.path`` (``streamlit run`` adds only this script's folder),
routes explicitly to the top-level ``pages/`` (Streamlit's automatic discovery only looks
beside the entry script), and draws the sidebar shared by every page.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PAGES = ROOT / "pages"
#: (file, title, icon, url path); the first is the default page.
NAV = [
    ("viewer.py", "Viewer", ":material/document_scanner:", "viewer"),
    ("compare.py", "Compare", ":material/compare:", "compare"),
    ("runs.py", "Runs", ":material/history:", "runs"),
    ("gpu.py", "GPU", ":material/memory:", "gpu"),
    ("about.py", "About", ":material/info:", "about"),
]


def main() -> None:
    # Imported here, not at the top: worker processes import this file as "__mp_main__" and
    # must not load the UI (Streamlit's caches warn "No runtime found" outside the app).
    import streamlit as st

    from workbench.logs import quiet_libraries
    from workbench.ui import download_grace
    from workbench.ui.sidebar import render_sidebar

    quiet_libraries()  # libraries' INFO lines off in the app's log (WORKBENCH_VERBOSE=1: on)
    download_grace.install()  # a clicked download outlives the next reruns (once per process)
    st.set_page_config(page_title="OCR Workbench", page_icon="🔎", layout="wide")
    pages = [
        st.Page(PAGES / file, title=title, icon=icon, url_path=url)
        for file, title, icon, url in NAV
    ]
    viewer = pages[0]

    def home() -> None:
        # The default page answers at "/" only; send it on so that /viewer is the viewer's URL.
        st.switch_page(viewer)

    landing = st.Page(home, title="Home", url_path="home", default=True, visibility="hidden")
    nav = st.navigation([landing, *pages])
    render_sidebar()
    nav.run()


# Streamlit runs this file as "__main__"; worker processes (forkserver/spawn) import it again
# as "__mp_main__" and must not draw the app ("missing ScriptRunContext" warnings).
if __name__ == "__main__":
    main()
