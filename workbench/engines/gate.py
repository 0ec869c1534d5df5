"""Slots of one engine shared by every caller: at most ``size`` pages in flight, taken in turn.

Why: one engine serves every session of the app, the Batch page and the CLI at once. Each
caller (one ``run()`` of the engine) asks for one slot at a time and waits in a first-come
queue, so with several callers the free slots go to them in turn: a session that asks for one
page while another has 200 in flight gets the next free slot, not the 201st.

Contract
--------
* :meth:`Gate.enter` puts one :class:`Ticket` in the queue; it is *granted* as soon as a slot
  is free and every ticket before it has been granted. A granted ticket holds one slot until
  :meth:`Gate.release`; a ticket given up before it was granted (:meth:`Gate.leave`) holds
  nothing. ``on_grant`` is called (outside the gate's lock) when the ticket is granted, so a
  caller can wait on its own event for either a slot or its own results.
* **A reserve for newcomers**: a ticket entered ``fresh`` (its caller has nothing in flight)
  may also take one of ``reserve`` slots beyond ``size``. Measured on the H200 (vLLM 0.26):
  with every slot held by a 200-page caller, a one-page caller waited for the first of those
  pages to finish, 47 s, because they all finish together; with the reserve it is sent at once.
  Ordinary tickets stay first come, first served among themselves.
* **Newcomers first** (``pause`` seconds, 0 = off): while a slot taken by a fresh ticket is
  held, ordinary tickets of other owners (callers) are not granted, so the other callers add
  no new pages to vLLM and the newcomer's page decodes in steps that carry no new prefill
  chunks (a step carrying a full chunk takes several times a plain decode step). The pause
  is bounded: once fresh slots have been held ``pause`` seconds in a row, ordinary tickets
  are granted again until no fresh slot is held, so a stream of newcomers can slow the others
  but never stop them.
  :meth:`release` says how many of the slots it gives back were fresh, and whose. A caller
  is never held by its own fresh slot: a long run's first page must not stall its second.
* :meth:`Gate.resize` changes ``size`` at any time; slots held above a smaller size are kept
  until released. Thread-safe; never blocks except for the lock.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

#: Slots kept beyond an engine's pages in flight for a caller with nothing in flight (a
#: newcomer's page is sent at once). The in-process engine takes them out of vLLM's
#: ``max_num_seqs`` when its plan would use all of them.
RESERVE = 8
#: Seconds other callers add no pages while a newcomer's page is in vLLM: long enough for a
#: page of 4 k tokens beside a full batch, short enough that a stream of one-page callers
#: only slows a long run.
PAUSE = 5.0


@dataclass(eq=False)
class Ticket:
    """One wait for one slot."""

    on_grant: Callable[[], None] | None = None
    fresh: bool = False  # its caller has nothing in flight: it may use the reserve
    owner: object = None  # its caller (a newcomer pauses the others, never itself)
    granted: bool = False
    left: bool = field(default=False, repr=False)


class Gate:
    """``size`` slots handed out first come, first served (see the module contract)."""

    def __init__(self, size: int, reserve: int = 0, pause: float = 0.0) -> None:
        self.size = max(1, int(size))
        self.reserve = max(0, int(reserve))
        self.pause = max(0.0, float(pause))
        self.held = 0
        self._fresh: Counter[int] = Counter()  # owner's id -> its fresh slots still held
        self._fresh_since: float | None = None  # when fresh_held last went above 0
        self._queue: deque[Ticket] = deque()
        self._lock = threading.Lock()

    def enter(
        self,
        on_grant: Callable[[], None] | None = None,
        *,
        fresh: bool = False,
        owner: object = None,
    ) -> Ticket:
        """Queue for one slot; the ticket may come back granted already."""
        ticket = Ticket(on_grant, fresh, owner)
        with self._lock:
            self._queue.append(ticket)
            granted = self._grant()
        self._notify(granted)
        return ticket

    def leave(self, ticket: Ticket) -> None:
        """Give up a ticket: its slot when granted, its place in the queue otherwise."""
        with self._lock:
            if ticket.left:
                return
            ticket.left = True
            if ticket.granted:
                self.held -= 1
                self._fresh_released(1 if ticket.fresh else 0, ticket.owner)
            else:
                self._queue.remove(ticket)
            granted = self._grant()
        self._notify(granted)

    def release(self, count: int = 1, fresh: int = 0, owner: object = None) -> None:
        """Give back ``count`` slots held by granted tickets that are done, ``fresh`` of them
        granted to fresh tickets of ``owner``."""
        with self._lock:
            self.held = max(0, self.held - count)
            self._fresh_released(min(fresh, count), owner)
            granted = self._grant()
        self._notify(granted)

    def resize(self, size: int) -> None:
        with self._lock:
            self.size = max(1, int(size))
            granted = self._grant()
        self._notify(granted)

    @property
    def waiting(self) -> int:
        """Tickets queued and not granted yet."""
        with self._lock:
            return len(self._queue)

    @property
    def paused(self) -> bool:
        """Whether ordinary tickets wait for a newcomer's page now (module contract)."""
        with self._lock:
            return self._paused()

    def _paused(self) -> bool:
        if not self.pause or self._fresh_since is None:
            return False
        return time.monotonic() - self._fresh_since < self.pause

    @property
    def fresh_held(self) -> int:
        """Slots granted to fresh tickets and not released yet."""
        with self._lock:
            return sum(self._fresh.values())

    def _fresh_released(self, count: int, owner: object) -> None:
        if count:
            self._fresh[id(owner)] -= count
            self._fresh = +self._fresh  # drop owners at zero
        if not self._fresh:
            self._fresh_since = None

    def _held_back(self, ticket: Ticket, paused: bool) -> bool:
        """An ordinary ticket waits while another owner's newcomer page is in flight."""
        if ticket.fresh or not paused:
            return False
        return any(owner != id(ticket.owner) for owner in self._fresh)

    def _grant(self) -> list[Ticket]:
        granted = []
        paused = self._paused()
        for ticket in list(self._queue):  # in order: the first that fit are granted
            limit = self.size + (self.reserve if ticket.fresh else 0)
            if self.held < limit and not self._held_back(ticket, paused):
                self._queue.remove(ticket)
                ticket.granted = True
                self.held += 1
                if ticket.fresh:
                    self._fresh[id(ticket.owner)] += 1
                    if self._fresh_since is None:
                        self._fresh_since = time.monotonic()
                        paused = self._paused()
                granted.append(ticket)
            elif self.held >= self.size + self.reserve:
                break  # nobody else fits
        return granted

    @staticmethod
    def _notify(tickets: list[Ticket]) -> None:
        for ticket in tickets:
            if ticket.on_grant is not None:
                ticket.on_grant()


class Holding:
    """One caller's slots on a gate, for a caller whose pages each wait in a thread of their
    own (the server engine): :meth:`acquire` blocks that thread until a slot is granted or
    ``cancelled()`` says to give up; the ticket is fresh when the caller holds or waits for
    nothing else. Every ticket :meth:`acquire` returns goes back through :meth:`release`."""

    def __init__(self, gate: Gate, owner: object) -> None:
        self.gate = gate
        self.owner = owner
        self.count = 0  # tickets of this caller held or waiting
        self._lock = threading.Lock()

    def acquire(self, cancelled: Callable[[], bool], poll: float = 0.1) -> Ticket | None:
        """A granted ticket, or None (nothing held) once ``cancelled()`` is true."""
        granted = threading.Event()
        with self._lock:
            fresh = self.count == 0
            self.count += 1
        ticket = self.gate.enter(granted.set, fresh=fresh, owner=self.owner)
        while not granted.wait(poll):
            if cancelled():
                self.release(ticket)
                return None
        return ticket

    def release(self, ticket: Ticket) -> None:
        self.gate.leave(ticket)
        with self._lock:
            self.count -= 1

    def call(self, cancelled: Callable[[], bool], work: Callable[[], T]) -> T:
        """``work()`` holding one slot (acquired first, released after); given up while it
        waits, ``work()`` runs holding none (it must then see why and send nothing)."""
        ticket = self.acquire(cancelled)
        try:
            return work()
        finally:
            if ticket is not None:
                self.release(ticket)
