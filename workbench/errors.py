"""Exception hierarchy. Every message names the thing at fault and, where it can, what to do.

``WorkbenchError`` is the root; the UI shows ``str(error)`` to the user and the CLI prints it
as one line on stderr, so messages are complete sentences without tracebacks.
"""

from __future__ import annotations


class WorkbenchError(RuntimeError):
    """Base of every error the workbench raises on purpose."""


def display_name(name: object) -> str:
    """A file name safe to show, in a message line or the UI: every character that is not
    printable (controls, a newline, bidi overrides and marks such as U+202E, zero-width
    characters, line separators) is written as its escape (``\\n``, ``\\x1b``,
    ``\\u202e``), the rest as it is (``résumé.pdf`` stays). So a newline cannot split an
    error line and a right-to-left override cannot show ``exe.pdf`` as ``fdp.exe``. The one
    helper for names: documents get their names through it (:func:`open_document`)."""
    text = str(name)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class DocumentError(WorkbenchError):
    """A file cannot be read as a document: corrupt, empty, encrypted, unsupported or too big.

    The message is one line: the name goes through :func:`display_name`."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{display_name(name)}: {reason}")
        self.name = name
        self.reason = reason


class PageRangeError(WorkbenchError, ValueError):
    """A page range such as ``1,3-5`` is malformed or outside the document."""


class UsageError(WorkbenchError):
    """The command was asked something it cannot do as asked (a flag that does not apply to
    the engine picked, a value out of range); the message names the argument. Nothing was
    started: the CLI prints it and exits 2."""


class EngineUnavailable(WorkbenchError):
    """An engine cannot start here (package missing, server down, no GPU); says how to fix it."""


class EngineError(WorkbenchError):
    """An engine failed on a page (server error, timeout, loop); the page is marked, the rest go
    on."""


# What went wrong with one completion against a server; each says so in its own words, so "the
# server crashed mid-answer" is never reported as "is the server running?".


class ServerUnreachable(EngineError):
    """No connection could be made (nothing listens, DNS, refused): is the server running?"""


class ConnectionLost(EngineError):
    """The server accepted the request, then closed the connection before the answer ended."""


class EngineTimeout(EngineError):
    """The server was silent too long, or the page ran past its time budget."""


class ServerHTTPError(EngineError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class MalformedAnswer(EngineError):
    """The server answered 200 but not with a (streamed) chat completion."""


class IncompleteAnswer(EngineError):
    """The server's stream ended properly (``[DONE]``) but is no answer: it held nothing
    ("empty answer"), or it ended without a finish reason (the text may be cut short).
    Retried like a lost connection; never an ``ok`` page."""


class PageCancelled(EngineError):
    """The user cancelled the page (or the whole run) while it was in flight."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message or CANCELLED)


#: The error of a page the user cancelled (what a cancelled page's output says).
CANCELLED = "cancelled by the user"


class EngineDeadError(EngineError):
    """The engine can take no more pages: vLLM's engine core died (out of GPU memory, a crash)
    or its server answers only that it did. Every page not finished fails with this one
    message; ``cause`` says what happened, ``fix`` what to do, ``setting`` the engine argument
    a restart should change (for a button: :attr:`restart_label`)."""

    def __init__(self, cause: str, fix: str, setting: dict[str, int] | None = None) -> None:
        super().__init__(f"{cause.rstrip('.')}. {fix}")
        self.cause = cause
        self.fix = fix
        self.setting = dict(setting or {})

    @property
    def restart_label(self) -> str:
        """The text of a button that restarts the engine with :attr:`setting`."""
        said = ", ".join(f"{k}={v}" for k, v in self.setting.items())
        return f"Restart vLLM with {said}" if said else "Restart vLLM"


class PlanError(WorkbenchError):
    """The memory planner cannot fit the model on this GPU; says what would make it fit."""


class StoreError(WorkbenchError):
    """The run store cannot read or write a run."""


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{max(n, 1e3) / 1e3:.0f} kB"


class DiskFull(StoreError):
    """The disk (or quota) holding a run folder is full. Names the folder, what is free and
    about what is needed (``needed`` bytes, for ``pages_left`` pages when known); finished
    pages are kept and a rerun resumes once there is room."""

    def __init__(self, folder: object, free: int, needed: int, pages_left: int = 0) -> None:
        self.folder, self.free, self.needed, self.pages_left = folder, free, needed, pages_left
        what = f" for the {pages_left} page(s) left" if pages_left else ""
        super().__init__(
            f"no space left on the disk of {display_name(folder)}: {_mb(free)} free, about "
            f"{_mb(needed)} needed{what}. Free some space (or choose another folder) and run "
            "again: finished pages are kept and the rest resume"
        )
