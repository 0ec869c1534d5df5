"""What a Viewer session asks the background worker for, and what it is told back
(:mod:`workbench.ui.jobs.worker`): typed records, no behaviour beyond their own fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from workbench.documents import Document
from workbench.engines.base import Engine
from workbench.models.registry import ModelSpec
from workbench.schema import PageResult


@dataclass(frozen=True)
class DocAsk:
    """One readable document of an ask and the 1-based pages wanted from it."""

    sha256: str
    name: str
    doc: Document
    pages: tuple[int, ...]


@dataclass(frozen=True)
class Ask:
    """What one session wants processed, and the page it shows."""

    engine: Engine
    spec: ModelSpec
    ekey: str  # the result-cache key part naming engine, model and settings
    dpi: float
    docs: tuple[DocAsk, ...]
    focus: tuple[str, int] | None = None  # (sha256, page) on screen
    store_root: Path | None = None  # None: results are not saved as runs
    runs: tuple[tuple[tuple[str, str], str], ...] = ()  # known ((sha256, ekey), run id)

    def plan_key(self) -> tuple[object, ...]:
        """What decides the work: a different key stops the work in progress."""
        return (
            id(self.engine),
            self.ekey,
            self.dpi,
            tuple((d.sha256, d.pages) for d in self.docs),
            self.focus,
            self.store_root,
        )


def page_text(name: str, page: int) -> str:
    """A page as the worker names the one it is on (:attr:`Progress.current`)."""
    return f"{name} page {page}"


class PageWord(StrEnum):
    """What a page with no result yet is doing, in the words the Viewer uses for it: the
    page's badge and the status line above it say the same (their one home)."""

    NOT_PROCESSED = "not processed"  # nothing asked (no engine, or stopped)
    QUEUED = "queued"  # asked, not sent to the engine yet
    RUNNING = "running"  # on an engine that cannot list its calls (in-process)
    WAITING = "waiting for the model"  # sent to a server, no token back yet
    RECEIVING = "receiving from the model"  # tokens are coming in


@dataclass(frozen=True)
class Waiting:
    """A page of this session in flight on a watchable engine (a server), for display."""

    name: str  # the document's file name
    sha256: str
    page: int  # 1-based
    elapsed: float  # seconds in this attempt
    tokens: int  # tokens received so far (0: still waiting for the first)
    attempt: int  # 1 for the first call

    @property
    def word(self) -> PageWord:
        return PageWord.RECEIVING if self.tokens else PageWord.WAITING


@dataclass(frozen=True)
class Progress:
    """A session's pages as the worker sees them now."""

    asked: int = 0
    done: int = 0
    failed: int = 0  # pages of documents that failed as a whole (not retried)
    current: str = ""  # "file page N" in progress for this session, "" when none
    current_s: float = 0.0  # seconds the worker has been on ``current``
    waiting: tuple[Waiting, ...] = ()  # pages in flight on the engine, oldest first
    stopped: bool = False  # the user stopped this session's processing (Resume restarts it)
    last: PageResult | None = None  # the last page finished for this session
    notes: tuple[str, ...] = ()
    runs: dict[tuple[str, str], str] = field(default_factory=dict)

    @property
    def pending(self) -> int:
        return 0 if self.stopped else max(self.asked - self.done - self.failed, 0)

    def word(self, sha256: str, page: int, name: str) -> PageWord:
        """What the page (of the document ``sha256`` named ``name``) is doing now, if it has
        no result: in flight on a server (waiting or receiving), being worked on by an engine
        that lists no calls, queued, or not asked."""
        for w in self.waiting:
            if (w.sha256, w.page) == (sha256, page):
                return w.word
        if not self.waiting and self.current == page_text(name, page):
            return PageWord.RUNNING  # an in-process engine: ``current`` is the page it is on
        return PageWord.QUEUED if self.pending else PageWord.NOT_PROCESSED

    @property
    def left(self) -> int:
        """Pages neither done nor failed (stopped pages included)."""
        return max(self.asked - self.done - self.failed, 0)
