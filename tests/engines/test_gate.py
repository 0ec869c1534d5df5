"""The engine's shared slots (workbench/engines/gate.py): first come, a reserve for newcomers,
and the bounded pause of the other callers while a newcomer's page is in flight."""

from __future__ import annotations

import time

import pytest

from workbench.engines.gate import Gate

A, B = object(), object()  # two callers


def test_slots_go_first_come_and_the_reserve_only_to_fresh_tickets() -> None:
    gate = Gate(2, reserve=1)
    first, second, third = (gate.enter() for _ in range(3))
    assert (first.granted, second.granted, third.granted) == (True, True, False)
    newcomer = gate.enter(fresh=True)
    assert newcomer.granted and gate.held == 3  # the reserve, past the queued ordinary ticket
    gate.release(1)
    assert not third.granted  # the reserve's slot is still held: size is what ordinary get
    gate.release(1)
    assert third.granted


def test_ordinary_tickets_wait_while_a_newcomers_slot_is_held() -> None:
    gate = Gate(4, reserve=2, pause=60.0)
    ordinary = gate.enter(owner=A)
    assert ordinary.granted
    newcomer = gate.enter(fresh=True, owner=B)
    assert newcomer.granted and gate.paused
    waiting = gate.enter(owner=A)
    assert not waiting.granted  # a free slot, but the newcomer's page decodes alone first
    gate.release(1, owner=A)  # an ordinary page finished: still paused
    assert not waiting.granted
    gate.release(1, fresh=1, owner=B)  # the newcomer's page finished: the others go on at once
    assert waiting.granted and not gate.paused and gate.fresh_held == 0


def test_the_pause_is_bounded_so_newcomers_never_stop_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    gate = Gate(4, reserve=2, pause=5.0)
    assert gate.enter(fresh=True, owner=B).granted
    waiting = gate.enter(owner=A)
    assert not waiting.granted
    now[0] += 5.1  # fresh slots held past the pause
    assert not gate.paused
    gate.enter(
        fresh=True, owner=object()
    )  # any event grants again; another newcomer does not restart it
    assert waiting.granted and not gate.paused


def test_without_a_pause_newcomers_do_not_hold_the_others() -> None:
    gate = Gate(4, reserve=2)
    gate.enter(fresh=True)
    assert gate.enter().granted and not gate.paused


def test_a_fresh_ticket_given_back_unused_ends_its_pause() -> None:
    gate = Gate(4, reserve=2, pause=60.0)
    newcomer = gate.enter(fresh=True, owner=B)
    waiting = gate.enter(owner=A)
    assert not waiting.granted
    gate.leave(newcomer)
    assert waiting.granted and gate.fresh_held == 0


def test_a_caller_is_not_held_by_its_own_first_page() -> None:
    """A long run's first page is a newcomer's (it had nothing in flight): its second page
    must not wait for it, or every run would start one page at a time."""
    gate = Gate(4, reserve=2, pause=60.0)
    assert gate.enter(fresh=True, owner=A).granted and gate.paused
    assert gate.enter(owner=A).granted
    assert not gate.enter(owner=B).granted
