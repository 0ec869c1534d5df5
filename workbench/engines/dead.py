"""A dead vLLM engine, recognised from what it raises (in-process) or answers (a server).

Contract
--------
* :func:`dead_in_process` reads an exception from ``vllm.LLM.chat`` (and its causes): vLLM's
  ``EngineDeadError`` or "EngineCore encountered an issue", or ``torch.OutOfMemoryError`` /
  "CUDA out of memory", is a dead engine; anything else (a bad request, one page's fault) is
  not. The cause is said plainly: "vLLM ran out of GPU memory in the vision encoder with N
  pages at once" when the error's traceback or text names the vision encoder, "… ran out of
  GPU memory with N pages at once" otherwise, else the cause vLLM reported: the error line
  nearest before the ``EngineDeadError`` line in its text ("the vLLM engine died: RuntimeError:
  CUDA error: an illegal memory access…"). Where vLLM's text holds no such line the cause is
  said to be unknown, with where to read it (the EngineCore traceback in the log). Given what
  vLLM logged while the engine ran (``log``), the EngineCore's own traceback there is the
  cause, the one its exception only points to ("See stack trace (above)").
* :func:`dead_server` reads a server's error message (an HTTP 500's body, or an error event
  mid-stream): the same names and texts, as ``vllm serve`` reports them once its EngineCore
  is gone. :func:`server_gone`: a 5xx, then connections refused past the wait a restart is
  given, is a dead server too (vLLM answers a bare 500 when its engine dies, then exits).
* :func:`log_cause` reads the same cause from a vLLM log (vLLM's line prefixes dropped): the
  probe's child log holds the EngineCore's traceback, which its exception does not carry.
* Each names the fix its cause needs: for an out-of-memory death (and only then) a restart
  with :data:`SAFER_SETTING` (one page per vision-encoder step, the setting measured to run
  256 pages in-process and 277 server requests on the H200 where the default died;
  ``../shared/gpu-lab/README.md``); for a cause in :data:`KNOWN_FIXES` (FlashInfer missing),
  its own fix; for another cause, a restart once that cause is dealt with; for an unknown
  one, where to read it. Finished pages are kept, a rerun resumes.
"""

from __future__ import annotations

import re
import traceback

from workbench.errors import EngineDeadError

#: The engine argument a restart after an out-of-memory death should use: the vision encoder
#: then takes one page per step (its attention grows with the square of its batch).
SAFER_SETTING = {"max_num_batched_tokens": 4096}

_DEAD_TEXTS = ("EngineDeadError", "EngineCore encountered an issue", "Engine core died")
_OOM_TEXTS = ("CUDA out of memory", "OutOfMemoryError")
#: Names in a traceback or message that put an out-of-memory in the vision encoder.
_ENCODER_TEXTS = ("vision", "encoder", "pixtral", "siglip", "visual", "patch_embed")

FIX_IN_PROCESS = (
    "Restart the engine with max_num_batched_tokens={n} (one page per vision-encoder step; "
    "CLI: --max-num-batched-tokens {n}); finished pages are kept and a rerun does the rest"
)
FIX_SERVER = (
    "Restart `vllm serve` with --max-num-batched-tokens {n} (one page per vision-encoder "
    "step); finished pages are kept and a rerun does the rest"
)
#: The fix for a death whose cause is known but is not memory: deal with it, then restart.
FIX_OTHER = {
    "in-process": "Deal with that cause, then restart the engine",
    "server": "Deal with that cause, then restart `vllm serve`",
}
#: Where to read a cause vLLM did not send along.
LOOK = {
    "in-process": "this process's output (vLLM logs to stdout unless VLLM_LOGGING_STREAM "
    "says otherwise): the EngineCore traceback before the EngineDeadError line",
    "server": "the server's log: the EngineCore traceback before the EngineDeadError line",
}
RESUME = "; finished pages are kept and a rerun does the rest"
#: Causes whose fix is known, by a text of theirs: the fix, for in-process and for a server.
KNOWN_FIXES: tuple[tuple[str, dict[str, str]], ...] = (
    (
        "No module named 'flashinfer'",  # Chandra OCR 2 on the H200, vLLM 0.26 (2026-12-06)
        {
            "in-process": "Install the flashinfer-python that this vLLM pins (`pip show vllm` "
            "lists it), or restart the engine with gdn_prefill_backend='triton' "
            "(CLI: --engine-arg gdn_prefill_backend=triton): a Gated-DeltaNet model's prefill "
            "then runs vLLM's own Triton kernel",
            "server": "Install the flashinfer-python that this vLLM pins (`pip show vllm` "
            "lists it) where the server runs, or restart `vllm serve` with "
            "--gdn-prefill-backend triton: a Gated-DeltaNet model's prefill then runs vLLM's "
            "own Triton kernel",
        },
    ),
)
#: What a dead engine's message says when vLLM sent no cause along (a log may hold it).
UNSAID = "vLLM did not say why"
#: A line that reports an error: ``SomeError: text``, ``pkg.mod.SomeException: text``.
_ERROR_LINE = re.compile(r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Fault)\b:?\s*\S")


_MISSING = re.compile(r"No module named '([A-Za-z0-9_.]+)'")


def known_fix(cause: str, where: str) -> str | None:
    """The fix :data:`KNOWN_FIXES` gives ``cause`` (``where``: "in-process" or "server"); for
    another ``No module named 'x'``, installing x's package (``-`` for ``_``:
    ``compressed-tensors``) where vLLM runs."""
    fix = next((fixes[where] for said, fixes in KNOWN_FIXES if said in cause), None)
    missing = _MISSING.search(cause)
    if fix is None and missing is not None:
        package = missing.group(1).split(".")[0].replace("_", "-")
        fix = (
            f"Install {package} where vLLM runs (`pip install {package}`; vLLM's requirements "
            "pin its version: `pip show vllm`), then start the engine again"
        )
    return fix


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "no message")


def reported_cause(text: str) -> str | None:
    """The cause vLLM reported in ``text``: the error line nearest before its first
    ``EngineDeadError`` / "EngineCore encountered an issue" line (a traceback's last line
    above it); None when there is none."""
    lines = [line.strip() for line in text.splitlines()]
    dead_at = next((i for i, line in enumerate(lines) if any(t in line for t in _DEAD_TEXTS)),
                   len(lines))  # fmt: skip
    before = (line for line in reversed(lines[:dead_at]) if _ERROR_LINE.match(line))
    return next(before, None)


#: vLLM's prefixes of a log line: the process (``(EngineCore pid=12)``, also ``(EngineCore_DP0
#: pid=12)``), then level, date, time and ``[file.py:line]``.
_LOG_PREFIX = re.compile(
    r"^\s*(?:\([\w.]+ pid=\d+\)\s*)?(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]*\]\s?)?"
)


#: What an EngineCore logs, its traceback after, when it dies (``vllm/v1/engine/core.py``).
_FATAL_TEXTS = ("EngineCore encountered a fatal error", "EngineCore failed to start")


def core_traceback(log: str) -> list[str]:
    """The last EngineCore death in a vLLM log, vLLM's prefixes dropped: its fatal-error line
    and the traceback logged with it (to the log's end); empty when the log has none."""
    return _fatal_tail([_LOG_PREFIX.sub("", line) for line in log.splitlines()])


def _fatal_tail(lines: list[str]) -> list[str]:
    fatal = [i for i, line in enumerate(lines) if any(t in line for t in _FATAL_TEXTS)]
    return lines[fatal[-1] :] if fatal else []


def log_cause(log: str) -> str | None:
    """The cause a vLLM log (a server's, or this process's :mod:`~workbench.engines.core_log`)
    holds, each line read without vLLM's prefixes: :func:`reported_cause` where the log holds
    the ``EngineDeadError``, else the last error line of the EngineCore's own fatal traceback
    (:func:`core_traceback`); None when the engine did not die there or no error line says
    why."""
    lines = [_LOG_PREFIX.sub("", line) for line in log.splitlines()]
    if any(t in line for line in lines for t in _DEAD_TEXTS):
        return reported_cause("\n".join(lines))
    errors = [line.strip() for line in _fatal_tail(lines) if _ERROR_LINE.match(line)]
    return errors[-1] if errors else None


def _verdict(
    text: str, names: set[str], pages: int | None, encoder: bool, where: str
) -> EngineDeadError | None:
    oom = "OutOfMemoryError" in names or any(t in text for t in _OOM_TEXTS)
    dead = "EngineDeadError" in names or any(t in text for t in _DEAD_TEXTS)
    if not (oom or dead):
        return None
    n = SAFER_SETTING["max_num_batched_tokens"]
    if oom:
        place = " in the vision encoder" if encoder else ""
        many = f" with {pages} page(s) at once" if pages else ""
        fix = FIX_IN_PROCESS if where == "in-process" else FIX_SERVER
        return EngineDeadError(
            f"vLLM ran out of GPU memory{place}{many}", fix.format(n=n), SAFER_SETTING
        )
    cause = reported_cause(text)
    if cause is not None:
        fix = known_fix(cause, where) or FIX_OTHER[where]
        return EngineDeadError(f"the vLLM engine died: {cause}", fix + RESUME)
    said = _first_line(text)
    return EngineDeadError(
        f"the vLLM engine died ({said.rstrip('.')}); {UNSAID}",
        f"Read the cause in {LOOK[where]}, deal with it and restart{RESUME}",
    )


def dead_in_process(
    exc: BaseException, pages: int, log: str = "", log_path: str = ""
) -> EngineDeadError | None:
    """The :class:`EngineDeadError` for ``exc`` raised by a call of ``pages`` pages, or None
    when ``exc`` is not a dead engine (see the module contract). ``log``: what vLLM logged
    while this engine ran (:mod:`~workbench.engines.core_log`); the EngineCore's traceback
    there is the root cause its exception only points to. ``log_path``: the file ``log`` was
    read from, named in the fix when the cause stays unknown (where its lines would be)."""
    chain = _chain(exc)
    names = {cls.__name__ for e in chain for cls in type(e).__mro__}
    messages = [str(e) for e in chain if str(e)]
    text = "\n".join(messages)
    where = "".join(
        f"{frame.filename} {frame.name}\n"
        for e in chain
        for frame in traceback.extract_tb(e.__traceback__)
    ).lower()
    cause = log_cause(log) if any(t in text for t in _DEAD_TEXTS) else None
    if cause is not None:  # the root cause, before what this process raised
        messages.insert(0, cause)
        text = f"{cause}\n{text}"
        where += "\n".join(core_traceback(log)).lower()
    oom_text = next((m for m in messages if any(t in m for t in _OOM_TEXTS)), "").lower()
    encoder = any(t in where or t in oom_text for t in _ENCODER_TEXTS)
    # the chain's messages, the root cause first: each line above the EngineDeadError's own
    said = [(type(e).__name__, str(e)) for e in reversed(chain) if str(e)]
    lines = [f"{name}: {m}" for name, m in said if not any(t in m for t in _DEAD_TEXTS)]
    lines += [cause] if cause else []  # nearest the death: what the EngineCore died of
    dead = [m for _, m in said if any(t in m for t in _DEAD_TEXTS)]
    ordered = "\n".join(lines + dead) if dead else text
    verdict = _verdict(ordered, names, pages, encoder, "in-process")
    if verdict is not None and UNSAID in verdict.cause and log_path:
        fix = f"{verdict.fix} (vLLM's warnings and errors: {log_path})"
        return EngineDeadError(verdict.cause, fix)
    return verdict


def server_gone(last_error: str, refused_s: float) -> EngineDeadError:
    """A server that answered a 5xx (``last_error``, perhaps an empty body: ``vllm serve``
    answers a bare 500 when its engine dies, then exits) and has refused connections for
    ``refused_s`` seconds since: not a restart, a dead server."""
    said = last_error.split(":", 1)[1] if last_error.startswith("server error") else last_error
    said = f" ({_first_line(said)})" if said.strip() else ""
    cause = (
        f"the vLLM server died: it answered HTTP 500{said}, then refused connections for "
        f"{refused_s:.0f} s"
    )
    if any(t in last_error for t in _OOM_TEXTS):
        fix = FIX_SERVER.format(n=SAFER_SETTING["max_num_batched_tokens"])
        return EngineDeadError(cause, fix, SAFER_SETTING)
    return EngineDeadError(
        cause,
        f"Its cause is not known here: read {LOOK['server']}, deal with it and restart{RESUME}",
    )


def dead_server(message: str) -> EngineDeadError | None:
    """The :class:`EngineDeadError` for a server's error message, or None when it does not
    say its engine died."""
    encoder = any(t in message.lower() for t in _ENCODER_TEXTS)
    return _verdict(message, set(), None, encoder, "server")
