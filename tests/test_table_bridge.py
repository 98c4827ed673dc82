"""The one bridge between the screens and a table's worker (app/views/table/bridge.py),
issue 31 item 4: typed intents answered through a callback, a tap that never waits for
the worker, and updates pushed to the UI thread through Kivy's clock.

The worker's table is a fake gated by events (never by timing): the test decides when
the worker may take a step or carry out an intent, so "the tap returned before the
worker answered" is a fact, not a race.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from app.i18n import set_language
from app.i18n.codes import message_for
from app.rules.errors import IllegalAction
from app.views.table.bridge import ACCEPTED, Outcome, TableBridge, clock_post, direct, never

#: real seconds after which a wait counts as hung (a guard, not a speed target)
HANG = 60.0


@dataclass(frozen=True)
class Bet:
    """A typed intent of the fake game."""

    box: int
    amount: int


@dataclass(frozen=True)
class Shown:
    """The fake game's immutable snapshot."""

    bets: tuple[tuple[int, int], ...]
    steps: int


class GatedTable:
    """The worker's own table: every step and every intent waits for the test's gate."""

    def __init__(self) -> None:
        self.bets: list[tuple[int, int]] = []
        self.steps = 0
        self.gate = threading.Event()  # the worker may go on
        self.in_step = threading.Event()  # the worker waits in a step
        self.applied = threading.Event()
        self.over = False
        self.threads: set[threading.Thread] = set()


class GatedGame:
    """The fake game's part of the bridge."""

    def __init__(self, table: GatedTable) -> None:
        self.table = table

    def open(self, changed: Callable[[], None]) -> GatedTable:
        return self.table

    def local(self, table: GatedTable) -> bool:
        return False

    def step(self, table: GatedTable, idle: Callable[[float], None]) -> bool:
        table.threads.add(threading.current_thread())
        table.in_step.set()
        assert table.gate.wait(HANG), "the test never let the worker go on"
        table.steps += 1
        return not table.over

    def snapshot(self, table: GatedTable) -> Shown:
        return Shown(tuple(table.bets), min(table.steps, 1))

    def apply(self, table: GatedTable, intent: Bet) -> None:
        table.threads.add(threading.current_thread())
        if intent.amount <= 0:
            raise IllegalAction("bad_amount", "a bet is at least one chip")
        table.bets.append((intent.box, intent.amount))
        table.applied.set()

    def close(self, table: GatedTable) -> None:
        table.over = True


def _waiter() -> tuple[list[Outcome], threading.Event, Callable[[Outcome], None]]:
    got: list[Outcome] = []
    done = threading.Event()

    def answered(outcome: Outcome) -> None:
        got.append(outcome)
        done.set()

    return got, done, answered


def test_a_typed_intent_comes_back_through_its_callback_and_the_tap_never_waits() -> None:
    """The worker is held in a step: the tap returns at once, unanswered and not carried
    out; once the worker goes on it carries the typed intent out and the callback gets
    the answer (accepted), the snapshot showing it; an illegal one is refused with the
    engine's error code and its translated message, and changes nothing."""
    set_language("en")
    table = GatedTable()
    bridge: TableBridge[GatedTable, Shown, Bet] = TableBridge(
        GatedGame(table), post=direct, later=never
    )
    assert bridge.wait_open(HANG)
    assert table.in_step.wait(HANG)  # the worker is busy (a long step of the links)
    got, done, answered = _waiter()
    bridge.submit(Bet(1, 10), answered)  # the tap: returns before the worker answered
    assert got == [] and not table.applied.is_set() and table.bets == []
    table.gate.set()  # the worker goes on and reads the queue
    assert done.wait(HANG)
    assert got == [ACCEPTED] and got[0].accepted and table.bets == [(1, 10)]
    assert bridge.state is not None and bridge.state.bets == ((1, 10),)  # shown first
    got2, done2, answered2 = _waiter()
    bridge.submit(Bet(2, 0), answered2)
    assert done2.wait(HANG)
    assert got2[0].code == "bad_amount" and not got2[0].accepted
    assert got2[0].message == message_for("bad_amount")
    assert table.bets == [(1, 10)]  # nothing changed
    assert threading.main_thread() not in table.threads  # only the worker touched it
    table.over = True
    bridge.join(HANG)
    assert bridge.finished
    got3, done3, answered3 = _waiter()
    bridge.submit(Bet(3, 5), answered3)  # after the table is over: refused, never hangs
    assert done3.wait(HANG) and got3[0].code == "connection_lost"


def test_updates_and_answers_reach_the_ui_thread_through_kivys_clock() -> None:
    """With the app's default, the worker's snapshot and an intent's answer wait for
    the UI thread's next frame (``Clock.schedule_once``) and run there: a listener
    gets them on the main thread, in order (what the intent changed, then its answer),
    and the worker never calls the screens itself."""
    from kivy.clock import Clock

    table = GatedTable()
    calls: list[tuple[str, threading.Thread]] = []
    bridge: TableBridge[GatedTable, Shown, Bet] = TableBridge(
        GatedGame(table), post=clock_post, later=never
    )
    bridge.listen(lambda: calls.append(("update", threading.current_thread())))
    assert bridge.wait_open(HANG)
    assert table.in_step.wait(HANG)
    Clock.tick()  # the first snapshot (taken when the table opened) arrives
    assert bridge.state == Shown((), 0)
    assert calls == [("update", threading.main_thread())]
    got, done, answered = _waiter()

    def on_result(outcome: Outcome) -> None:
        calls.append(("answer", threading.current_thread()))
        answered(outcome)

    bridge.submit(Bet(4, 20), on_result)
    table.gate.set()
    assert table.applied.wait(HANG)
    # the worker has carried it out, but nothing reached the screens without a frame
    assert not done.wait(0) and bridge.state == Shown((), 0)
    for _ in range(100):  # frames, until the posted calls ran (not a timing assumption)
        Clock.tick()
        if done.is_set():
            break
    assert got == [ACCEPTED]
    assert bridge.state is not None and bridge.state.bets == ((4, 20),)
    kinds = [k for k, _t in calls]
    assert kinds.index("answer") > kinds.index("update", 1)  # shown before answered
    assert {t for _k, t in calls} == {threading.main_thread()}
    table.over = True
    bridge.join(HANG)


def test_an_intent_the_worker_never_took_is_refused_and_never_carried_out() -> None:
    """The answer timer (the app's ``ANSWER`` seconds on Kivy's clock, fired here by
    the test) refuses an intent the stuck worker has not begun: the player is told
    "connection lost", and the worker skips it when it comes back."""
    table = GatedTable()
    timers: list[Callable[[], None]] = []
    bridge: TableBridge[GatedTable, Shown, Bet] = TableBridge(
        GatedGame(table), post=direct, later=lambda _delay, fn: timers.append(fn)
    )
    assert bridge.wait_open(HANG) and table.in_step.wait(HANG)
    got, _done, answered = _waiter()
    bridge.submit(Bet(1, 10), answered)
    assert len(timers) == 1 and got == []
    timers.pop()()  # the answer's time ran out while the worker was stuck
    assert [o.code for o in got] == ["connection_lost"]
    later, done, answered_later = _waiter()
    bridge.submit(Bet(2, 10), answered_later)
    table.gate.set()
    assert done.wait(HANG) and later == [ACCEPTED]
    assert table.bets == [(2, 10)]  # the withdrawn one was never carried out
    for fire in timers:  # a late timer of an answered intent changes nothing
        fire()
    assert [o.code for o in got] == ["connection_lost"] and later == [ACCEPTED]
    table.over = True
    bridge.join(HANG)
