"""One writer per run folder: the guard every :class:`~workbench.runs.folder.RunWriter` holds.

Contracts
---------
* A process that writes a run folder holds an exclusive ``flock`` on ``<run>/.writer.lock``
  (the file names the holder's pid). A second *process* asking for the folder is refused at
  once with a :class:`~workbench.errors.StoreError` naming the folder and the holder: "wait
  until it ends, or choose another folder" (it never waits silently, never writes beside it).
* Inside one process, writers of the same folder share the hold (counted): the app's Viewer,
  Batch and Compare may each hold a writer of one run; their manifest saves merge
  (:func:`merging` and :meth:`RunWriter._save_manifest`).
* The kernel drops the lock when its holder dies (kill -9 included): a crashed run resumes
  with no stale-lock step. The last release removes the file, so a finished folder holds only
  the run; acquiring checks the locked file is still the one at the path (a racing release
  may have removed it) and tries again when not.
* :func:`held` tells a live writer from a dead one's leftover lock file, taking nothing.
* Where ``flock`` is not supported (ENOLCK, some network filesystems) the guard is skipped:
  two processes are not kept apart there.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import StoreError, display_name
from workbench.runs.files import room_for

LOCK_FILE = ".writer.lock"


@dataclass
class _Hold:
    fd: int | None  # None: flock is unsupported here, nothing is held
    count: int


_HOLDS: dict[Path, _Hold] = {}
_GUARD = threading.Lock()
_MERGING: dict[Path, threading.Lock] = {}


def _key(run_dir: Path) -> Path:
    return run_dir.resolve()


def holder(run_dir: Path) -> str:
    """Who holds ``run_dir`` (the pid its lock file names), in words."""
    try:
        pid = (run_dir / LOCK_FILE).read_text().strip()
    except OSError:
        pid = ""
    return f"process {pid}" if pid.isdigit() else "another process"


def _flock(path: Path) -> int | None:
    """An fd holding an exclusive lock on ``path``; raises BlockingIOError when another
    process holds it, returns None when flock is unsupported here."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS):
                return None
            raise
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:  # else a release removed the file between our open and our lock: again
            return fd
        os.close(fd)


def acquire(run_dir: Path) -> None:
    """Hold ``run_dir`` for writing (see the module contract); StoreError when another process
    holds it."""
    key = _key(run_dir)
    with _GUARD:
        hold = _HOLDS.get(key)
        if hold is not None:
            hold.count += 1
            return
        try:
            with room_for(key, 0):  # the lock file is made even on a full disk (an inode)
                fd = _flock(key / LOCK_FILE)
        except BlockingIOError:
            raise StoreError(busy_message(run_dir)) from None
        if fd is not None:
            with contextlib.suppress(OSError):  # the holder's pid is a courtesy: no room, none
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        _HOLDS[key] = _Hold(fd, 1)


def busy_message(run_dir: Path) -> str:
    return (
        f"{display_name(run_dir)} is being written by {holder(run_dir)}: one writer per run "
        "folder. Wait until it ends (then run again to resume), or choose another folder"
    )


def release(run_dir: Path) -> None:
    """Give up one hold of ``run_dir``; the last one unlocks and removes the lock file."""
    key = _key(run_dir)
    with _GUARD:
        hold = _HOLDS.get(key)
        if hold is None:
            return
        hold.count -= 1
        if hold.count > 0:
            return
        del _HOLDS[key]
        if hold.fd is not None:
            with contextlib.suppress(OSError):
                (key / LOCK_FILE).unlink()  # while locked: no one else holds this file
            os.close(hold.fd)


def check_free(run_dir: Path) -> None:
    """Refuse early (StoreError) when another process writes ``run_dir``; takes nothing.
    A caller about to start an engine for minutes asks this first."""
    if not (run_dir / LOCK_FILE).exists() or _key(run_dir) in _HOLDS:
        return
    acquire(run_dir)
    release(run_dir)


def held(run_dir: Path) -> bool:
    """Whether a live writer holds ``run_dir`` now (this process or another); takes nothing
    and changes nothing. A lock file left by a killed writer (its lock died with it) is not
    held: the run it was writing is interrupted, not running."""
    if _key(run_dir) in _HOLDS:
        return True
    try:
        fd = os.open(run_dir / LOCK_FILE, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError:  # no lock file: nobody writes it
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:  # flock unsupported here: writers are not told apart
        return False
    finally:
        os.close(fd)  # closing drops a lock we took
    return False


def merging(run_dir: Path) -> threading.Lock:
    """The lock held while a manifest is read, merged and replaced: writers of one folder in
    one process (other processes are kept out by :func:`acquire`) never lose each other's
    entries."""
    key = _key(run_dir)
    with _GUARD:
        return _MERGING.setdefault(key, threading.Lock())


class Guard:
    """One writer's hold on its folder: taken once, dropped once (idempotent both ways)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir
        self.held = False

    def take(self) -> None:
        if not self.held:
            acquire(self.path)
            self.held = True

    def drop(self) -> None:
        if self.held:
            self.held = False
            release(self.path)
