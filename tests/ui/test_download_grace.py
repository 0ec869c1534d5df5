"""A download built for a click survives Streamlit's sweeps until the browser fetches it.

Real Streamlit MediaFileManager and MemoryMediaFileStorage (the app's own), driven as the
runtime drives them: ``execute_deferred`` on a click, ``remove_orphaned_files`` at the end of
every script run (fragments included). The first test shows Streamlit's own behaviour (the
reason for the wrapper); if an upgrade fixes it, it fails and the wrapper can go.
"""

from __future__ import annotations

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.media_file_storage import MediaFileStorageError
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from workbench.ui import download_grace


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _manager() -> tuple[MediaFileManager, MemoryMediaFileStorage]:
    storage = MemoryMediaFileStorage("/media")
    return MediaFileManager(storage), storage


def _click(manager: MediaFileManager, data: bytes = b"# page 1\n") -> str:
    """A deferred download button drawn, then clicked: the built file's name in storage."""
    placeholder = manager.add_deferred(lambda: data, "text/markdown", "1.(2).3", file_name="doc.md")
    url = manager.execute_deferred(placeholder)
    assert url.startswith("/media/") and url.endswith(".md")
    return url.rsplit("/", 1)[1]


def _exists(storage: MemoryMediaFileStorage, name: str) -> bool:
    try:
        storage.get_file(name)
    except MediaFileStorageError:
        return False
    return True


def test_streamlit_alone_deletes_a_clicked_download_after_two_script_runs() -> None:
    manager, storage = _manager()
    name = _click(manager)
    manager.remove_orphaned_files()  # a fragment's rerun ends: marked
    assert _exists(storage, name)
    manager.remove_orphaned_files()  # the next one: deleted before a slow browser fetched it
    assert not _exists(storage, name)


def test_a_clicked_download_is_kept_through_the_grace_then_swept() -> None:
    manager, storage = _manager()
    clock = Clock()
    assert download_grace.install(manager, grace_s=60, clock=clock)
    name = _click(manager)
    for _ in range(20):  # 20 script runs within the grace: still there to fetch
        manager.remove_orphaned_files()
        clock.now += 2.0
    assert _exists(storage, name)
    assert storage.get_file(name).filename == "doc.md"  # served under its name
    clock.now += 25.0  # past the grace: Streamlit's two sweeps remove it as before
    manager.remove_orphaned_files()
    assert _exists(storage, name)
    manager.remove_orphaned_files()
    assert not _exists(storage, name)


def test_files_nobody_clicked_are_swept_as_before() -> None:
    manager, storage = _manager()
    assert download_grace.install(manager, grace_s=60, clock=Clock())
    url = manager.add(b"png bytes", "image/png", "1.(4)")  # an image a run showed
    name = url.rsplit("/", 1)[1]
    manager.clear_session_refs()  # the next run no longer shows it
    manager.remove_orphaned_files()
    assert not _exists(storage, name)


def test_install_is_idempotent_and_wraps_once() -> None:
    manager, storage = _manager()
    clock = Clock()
    assert download_grace.install(manager, grace_s=60, clock=clock)
    assert download_grace.install(manager, grace_s=60, clock=clock)
    name = _click(manager)
    clock.now += 61
    manager.remove_orphaned_files()
    manager.remove_orphaned_files()
    assert not _exists(storage, name)  # one grace, not two stacked


def test_a_manager_without_the_methods_is_left_alone() -> None:
    class Other:
        pass

    other = Other()
    assert download_grace.install(other) is False
    assert not hasattr(other, "execute_deferred")


def test_install_outside_a_running_app_does_nothing() -> None:
    assert download_grace.install() is False


@pytest.mark.parametrize(
    ("url", "expected"),
    [("/media/abc123.md", "abc123"), ("/media/abc123.tar.gz", "abc123"), ("abc", "abc")],
)
def test_file_id_of(url: str, expected: str) -> None:
    assert download_grace.file_id_of(url) == expected
