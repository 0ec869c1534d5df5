"""What goes into the viewer: uploaded files, sample documents, and the page range.

Files are recognised by content (:func:`workbench.documents.open_document`), never by name:
the uploader's ``type`` list only filters the file picker. A file that cannot be read becomes a
:class:`~workbench.ui.files.LoadedFile` with ``error`` set (the message names the file and
says why), and the others go on. Samples are the files in ``assets/`` (see assets/SOURCES.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from workbench.documents import FILE_TYPES, supported
from workbench.errors import PageRangeError
from workbench.ui import state, workset
from workbench.ui.files import LoadedFile, content_sha, load_file
from workbench.ui.workset import KeptFile

ASSETS = Path(__file__).resolve().parents[2] / "assets"


@dataclass(frozen=True)
class Selected:
    """One readable file and the 1-based pages picked from it."""

    file: LoadedFile
    pages: tuple[int, ...]


def sample_paths() -> list[Path]:
    if not ASSETS.is_dir():
        return []
    return sorted(p for p in ASSETS.iterdir() if supported(p))


@st.cache_data(show_spinner=False)
def _read_sample(path: str, mtime: float) -> bytes:
    return Path(path).read_bytes()


#: The uploader's file list at full height: Streamlit clips it to about two rows of chips (106
#: px), so from the 7th file on some were cut off and could only be found by scrolling inside.
_CHIPS_CSS = (
    "<style>.st-key-{key} [data-testid='stFileChips'] {{ max-height: none; overflow: visible; }}"
    ".st-key-{key} [data-testid='stFileUploaderDropzone'] {{ height: auto; }}</style>"
)


def show_every_file(key: str) -> None:
    """The file list of the uploader with widget key ``key`` at full height (no clipped chips)."""
    st.html(_CHIPS_CSS.format(key=key))


def _inputs_open(held: int) -> None:
    """The Documents expander: open while nothing is loaded, closed when files are added (the
    page then starts within the first screen at 1100×800); otherwise as the user left it."""
    if held == 0:
        state.VIEWER_INPUTS_OPEN.set(True)
    elif held > state.VIEWER_INPUTS_HELD.get() or not state.VIEWER_INPUTS_OPEN.present():
        state.VIEWER_INPUTS_OPEN.set(False)  # also back from another page with files kept
    state.VIEWER_INPUTS_HELD.set(held)


def input_widgets() -> tuple[list[LoadedFile], str]:
    """The uploader and the sample picker (in a "Documents" expander that closes once files
    are loaded, never dropping them) and the page range; returns files and range spec."""
    samples = sample_paths()
    workset.restore([p.name for p in samples])
    _inputs_open(workset.held())
    left, right = st.columns([3, 2], vertical_alignment="top")
    with left.expander(
        "Documents: drop files, remove them, or try a sample",
        icon=":material/upload_file:",
        key=state.VIEWER_INPUTS_OPEN.key,
        on_change="rerun",
    ):
        show_every_file(workset.uploader_key())
        workset.kept_widget()
        uploads = st.file_uploader(
            "Drop PDFs or images (PNG, JPEG, TIFF, WebP, BMP)",
            type=list(FILE_TYPES),
            accept_multiple_files=True,
            key=workset.uploader_key(),
        )
        picked = st.pills(
            "…or try a sample",
            [p.name for p in samples],
            selection_mode="multi",
            key=state.VIEWER_SAMPLES.key,
            wrap=True,
        )
        ups = [(u.name, u.getvalue(), u.file_id) for u in uploads or []]
        live = [KeptFile(name, content_sha(data, fid), data) for name, data, fid in ups]
        files = [load_file(f.name, f.data, f"kept-{f.sha256}") for f in workset.kept_files()]
        files += [load_file(name, data, fid) for name, data, fid in ups]
        by_name = {p.name: p for p in samples}
        for name in picked or []:
            path = by_name.get(name)
            if path is not None:
                files.append(load_file(path.name, _read_sample(str(path), path.stat().st_mtime)))
        if files:  # every file by its full name (the uploader's chips shorten names)
            names = ", ".join(f.name for f in files)
            st.caption(f"{len(files)} file{'s' if len(files) != 1 else ''}: {names}")
        workset.clear_button()
    with right:
        spec = st.text_input(
            "Pages",
            key=state.VIEWER_RANGE.key,
            placeholder="all pages — or e.g. 1,3-5",
            help="1-based page numbers for every file: `1,3-5`, `4-` to the end; empty = all.",
        )
    workset.remember(live, list(picked or []), spec or "")
    return files, spec or ""


def select_pages(files: list[LoadedFile], spec: str) -> tuple[list[Selected], list[str]]:
    """Readable files with their pages, and one message per readable file whose pages the
    range does not reach (unreadable files are left out; their ``error`` says why)."""
    chosen: list[Selected] = []
    problems: list[str] = []
    seen: set[str] = set()
    for f in files:
        if f.doc is None:
            continue
        if f.sha256 in seen:  # the same content twice (uploaded and picked as a sample)
            continue
        seen.add(f.sha256)
        try:
            pages = f.doc.select(spec)
        except PageRangeError as exc:
            problems.append(f"{f.name}: {exc}")
            continue
        chosen.append(Selected(f, tuple(pages)))
    return chosen, problems
