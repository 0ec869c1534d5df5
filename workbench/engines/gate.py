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
* :meth:`Gate.resize` changes ``size`` at any time; slots held above a smaller size are kept
  until released. Thread-safe; never blocks except for the lock.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(eq=False)
class Ticket:
    """One wait for one slot."""

    on_grant: Callable[[], None] | None = None
    granted: bool = False
    left: bool = field(default=False, repr=False)


class Gate:
    """``size`` slots handed out first come, first served (see the module contract)."""

    def __init__(self, size: int) -> None:
        self.size = max(1, int(size))
        self.held = 0
        self._queue: deque[Ticket] = deque()
        self._lock = threading.Lock()

    def enter(self, on_grant: Callable[[], None] | None = None) -> Ticket:
        """Queue for one slot; the ticket may come back granted already."""
        ticket = Ticket(on_grant)
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
            else:
                self._queue.remove(ticket)
            granted = self._grant()
        self._notify(granted)

    def release(self, count: int = 1) -> None:
        """Give back ``count`` slots held by granted tickets that are done."""
        with self._lock:
            self.held = max(0, self.held - count)
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

    def _grant(self) -> list[Ticket]:
        granted = []
        while self._queue and self.held < self.size:
            ticket = self._queue.popleft()
            ticket.granted = True
            self.held += 1
            granted.append(ticket)
        return granted

    @staticmethod
    def _notify(tickets: list[Ticket]) -> None:
        for ticket in tickets:
            if ticket.on_grant is not None:
                ticket.on_grant()
