"""The Viewer's working set: the documents a session loaded, kept across pages and reloads.

Streamlit drops a widget's value when the user opens another page, and a file uploader cannot
be handed files back. So the files the uploader holds are mirrored here (``VIEWER_LIVE``, by
sha256); when the Viewer is drawn again with its uploader empty after a visit elsewhere, they
become *kept* files (``VIEWER_KEPT``), listed in their own box beside the uploader, where each
can be removed; the samples and the page range are put back into their widgets. "Clear all"
empties all of it.

The set is also written to ``<store>/.worksets/<token>/`` (a manifest and each file by its
sha256; a dot folder, never listed as a run) and the token put in the URL (``?docs=<token>``),
so reloading the page brings the same documents back, at the page that was on screen
(``&at=<n>``); a set unchanged for :data:`KEEP_DAYS` is deleted when another is made.
Passwords are never written.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from workbench.settings import Settings
from workbench.ui import state

KEEP_DAYS = 14  # a set not changed for this long is deleted when another is made
QUERY = "docs"  # the URL's query parameter naming this working set on disk
AT = "at"  # ... and the page of the set on screen (1-based), so a reload comes back to it
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
_SHA = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class KeptFile:
    """One uploaded file as the user gave it (an encrypted PDF stays encrypted)."""

    name: str
    sha256: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Manifest:
    """What ``<token>/manifest.json`` records: the files (name, sha256), samples and range."""

    files: list[tuple[str, str]]
    samples: list[str]
    range: str


def _root() -> Path:
    return Settings.from_env().store_dir / ".worksets"


def uploader_key() -> str:
    """The uploader's widget key: ``wb_uploads``, a new one after "Clear all" (to empty it)."""
    gen = state.VIEWER_UPLOADER_GEN.get()
    return state.VIEWER_UPLOADS.key if gen == 0 else f"{state.VIEWER_UPLOADS.key}_{gen}"


def restore(sample_names: Sequence[str]) -> None:
    """Before the inputs are drawn: load the set named in the URL into a new session, turn the
    last visit's uploads into kept files when the uploader comes back empty, and put the
    samples and range back into their widgets."""
    if state.VIEWER_WORKSET.get() is None:
        _load_from_disk()
    if not state.WIDGET(uploader_key()).present():  # a new visit: the uploader starts empty
        kept = state.VIEWER_KEPT.setdefault()
        kept.update(state.VIEWER_LIVE.setdefault())
        state.VIEWER_LIVE.set({})
    if not state.VIEWER_SAMPLES.present():
        known = set(sample_names)
        state.VIEWER_SAMPLES.set([s for s in state.VIEWER_KEPT_SAMPLES.get() if s in known])
    if not state.VIEWER_RANGE.present():
        state.VIEWER_RANGE.set(state.VIEWER_KEPT_RANGE.get())
    state.VIEWER_KEPT_PICK.set(list(state.VIEWER_KEPT.get()))


def held() -> int:
    """How many documents the set holds (kept, in the uploader, samples)."""
    uploads = state.WIDGET(uploader_key()).get() or []  # the uploader now, not the last run
    return len(state.VIEWER_KEPT.get()) + len(uploads) + len(state.VIEWER_SAMPLES.get() or [])


def kept_files() -> list[KeptFile]:
    return list(state.VIEWER_KEPT.get().values())


def kept_widget() -> None:
    """The kept files (from earlier visits) with a remove cross each; nothing when none."""
    kept = state.VIEWER_KEPT.get()
    if not kept:
        return
    names = {sha: f.name for sha, f in kept.items()}
    st.multiselect(
        "Kept from before (remove one with ×)",
        list(kept),
        key=state.VIEWER_KEPT_PICK.key,
        format_func=lambda sha: names.get(sha, sha[:12]),
        on_change=_kept_changed,
        help="The files you dropped stay while you visit other pages and when you reload.",
    )


def open_documents(files: Sequence[KeptFile]) -> None:
    """Put ``files`` into the set (another page reopening documents: Runs' "Resume in the
    Viewer"), every page of them, the first of them on screen when the Viewer opens."""
    kept = state.VIEWER_KEPT.setdefault()
    for f in files:
        if f.sha256 not in state.VIEWER_LIVE.get():
            kept[f.sha256] = f
    state.VIEWER_KEPT_RANGE.set("")
    state.VIEWER_RANGE.pop()
    state.VIEWER_POS.set(0)


def _kept_changed() -> None:
    pick = set(state.VIEWER_KEPT_PICK.get() or [])
    kept = state.VIEWER_KEPT.setdefault()
    for sha in [s for s in kept if s not in pick]:
        del kept[sha]


def clear_button() -> None:
    """ "Clear all": every document out of the set (uploader, kept files, samples, range)."""
    if held():
        st.button("Clear all documents", icon=":material/clear_all:", on_click=clear)


def clear() -> None:
    state.VIEWER_LIVE.set({})
    state.VIEWER_KEPT.set({})
    state.VIEWER_KEPT_PICK.set([])
    state.VIEWER_SAMPLES.set([])
    state.VIEWER_KEPT_SAMPLES.set([])
    state.VIEWER_POS.set(0)
    state.VIEWER_UPLOADER_GEN.set(state.VIEWER_UPLOADER_GEN.get() + 1)
    _save(Manifest([], [], state.VIEWER_RANGE.get()))


def remember(uploads: Sequence[KeptFile], samples: Sequence[str], spec: str) -> None:
    """After the inputs are drawn: what they hold now, in the session and on disk."""
    state.VIEWER_LIVE.set({f.sha256: f for f in uploads})
    state.VIEWER_KEPT_SAMPLES.set(list(samples))
    state.VIEWER_KEPT_RANGE.set(spec)
    files = [*state.VIEWER_KEPT.get().values(), *uploads]
    _save(Manifest([(f.name, f.sha256) for f in files], list(samples), spec), files)


def _save(manifest: Manifest, files: Sequence[KeptFile] = ()) -> None:
    """Write the set when it changed; the URL names it while it holds documents."""
    empty = not manifest.files and not manifest.samples
    token = state.VIEWER_WORKSET.get()
    if manifest != state.VIEWER_WORKSET_SAVED.get():
        if token is None and not empty:
            token = secrets.token_urlsafe(12)
            state.VIEWER_WORKSET.set(token)
        if token is not None:
            with contextlib.suppress(OSError):  # read-only store: the set lives in the session
                _write(_root() / token, manifest, files)
        state.VIEWER_WORKSET_SAVED.set(manifest)
    if token is not None and not empty:
        st.query_params[QUERY] = token
    elif QUERY in st.query_params:
        del st.query_params[QUERY]
        st.query_params.pop(AT, None)


def show_position(pos: int) -> None:
    """Put the page on screen (0-based ``pos`` in the set) in the URL beside the set's token;
    a reload opens the set at that page (:func:`_load_from_disk`). Per tab, unlike the set."""
    if QUERY in st.query_params and st.query_params.get(AT) != str(pos + 1):
        st.query_params[AT] = str(pos + 1)


def _write(folder: Path, manifest: Manifest, files: Sequence[KeptFile]) -> None:
    if not manifest.files and not manifest.samples:
        shutil.rmtree(folder, ignore_errors=True)
        return
    if not folder.is_dir():  # a new set: sets untouched for KEEP_DAYS go (closed tabs')
        _prune(folder.parent)
    folder.mkdir(parents=True, exist_ok=True)
    for f in files:
        path = folder / f.sha256
        if not path.exists():
            path.write_bytes(f.data)
    wanted = {sha for _, sha in manifest.files} | {"manifest.json"}
    for path in folder.iterdir():
        if path.name not in wanted:
            path.unlink(missing_ok=True)
    (folder / "manifest.json").write_text(json.dumps(asdict(manifest)), encoding="utf-8")


def _prune(root: Path) -> None:
    if not root.is_dir():
        return
    old = time.time() - KEEP_DAYS * 86400
    for folder in root.iterdir():
        manifest = folder / "manifest.json"
        with contextlib.suppress(OSError):
            stale = folder.stat().st_mtime < old  # a set being made now is never stale
            if (
                folder.is_dir()
                and stale
                and (not manifest.exists() or manifest.stat().st_mtime < old)
            ):
                shutil.rmtree(folder, ignore_errors=True)


def _load_from_disk() -> None:
    """The set named by ``?docs=`` (a reload): its files become kept files."""
    token = st.query_params.get(QUERY)
    if not token or not _TOKEN.match(token):
        return
    folder = _root() / token
    try:
        raw: Any = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        manifest = Manifest(
            [(str(n), str(s)) for n, s in raw["files"]],
            [str(s) for s in raw["samples"]],
            str(raw["range"]),
        )
        kept = {
            sha: KeptFile(name, sha, (folder / sha).read_bytes())
            for name, sha in manifest.files
            if _SHA.match(sha)
        }
    except (OSError, ValueError, KeyError, TypeError):
        return  # gone or damaged: start empty, as before
    state.VIEWER_WORKSET.set(token)
    state.VIEWER_KEPT.set(kept)
    state.VIEWER_KEPT_SAMPLES.set(manifest.samples)
    state.VIEWER_KEPT_RANGE.set(manifest.range)
    state.VIEWER_WORKSET_SAVED.set(manifest)
    at = st.query_params.get(AT, "")
    if at.isdigit() and int(at) >= 1:  # clamped to the set by the pager
        state.VIEWER_POS.set(int(at) - 1)
