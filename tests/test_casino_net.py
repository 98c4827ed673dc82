"""The screens' side of the real casino table (app/views/casino/network.py), without Kivy:
two :class:`CasinoNet` (a host and a guest, each stepping its real table on its own
worker thread) over TCP loopback, on a fake clock that never moves."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from app.i18n.codes import message_for
from app.rules.blackjack.actions import Action
from app.rules.table_rules import EUROPEAN
from app.table.casino.snapshot import CasinoSnapshot, CasinoStage
from app.table.clock import FakeClock
from app.table.service import TableService, tcp_transport
from app.views.casino.network import Act, BetsDone, CasinoIntent, CasinoNet, Start, TakeBox
from app.views.casino.vm import present_casino
from app.views.table.bridge import Outcome, direct

#: real seconds after which a wait counts as hung (a guard, not a speed target)
HANG = 240.0  # as tests/casino_net.py: a loaded CI machine is slow, never this slow


class Timers:
    """The bridge's answer timers, fired by the test (no wall clock)."""

    def __init__(self) -> None:
        self.due: list[Callable[[], None]] = []

    def later(self, _delay: float, fn: Callable[[], None]) -> None:
        self.due.append(fn)

    def fire(self) -> None:
        due, self.due = self.due, []
        for fn in due:
            fn()


#: headless: answers and updates delivered on the worker thread, timers never fire
HEADLESS = {"post": direct, "later": lambda _delay, _fn: None}


def submit_and_wait(net: CasinoNet, intent: CasinoIntent) -> Outcome:
    """Send ``intent`` and wait for its answer (a test may wait; a tap never does)."""
    got: list[Outcome] = []
    done = threading.Event()

    def answered(outcome: Outcome) -> None:
        got.append(outcome)
        done.set()

    net.submit(intent, answered)
    assert done.wait(HANG), f"no answer to {intent}"
    return got[0]


def ask(net: CasinoNet, intent: CasinoIntent) -> str:
    """'' when ``intent`` was accepted, else the translated reason."""
    return submit_and_wait(net, intent).message


def until(cond: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + HANG
    while not cond():
        assert time.monotonic() < end, f"hung waiting for {what}"
        time.sleep(0.005)


def test_two_phones_sit_bet_and_deal_through_their_workers() -> None:
    clock = FakeClock()
    service = TableService(tcp_transport, dealer=lambda: "open", clock=lambda: clock)
    host = CasinoNet(
        hosting=True, service=service, name="Ann", lang="en", rules=EUROPEAN, **HEADLESS
    )
    guest = None
    try:
        assert host.wait_open()
        assert host.options["round_pause"] > 0  # the players read a settled round
        # a box taken in the lobby shows at once (the table takes it when it begins)
        assert ask(host, TakeBox(1)) == ""
        assert host.snapshot().boxes == {1: host.snapshot().me}
        guest = CasinoNet(
            hosting=False, service=service, address=host.address, name="Bob", lang="pl", **HEADLESS
        )
        assert guest.wait_open()
        # the host's lobby lists the guest; its worker relays his key
        until(lambda: len(host.snapshot().players) == 2, "the guest in the host's lobby")
        until(lambda: ask(host, Start()) == "", "the start")
        for net in (host, guest):
            until(lambda n=net: n.snapshot().stage is CasinoStage.BETTING, "bets open")
        assert ask(guest, TakeBox(2)) == ""
        until(lambda: host.snapshot().boxes.get(2) == guest.snapshot().me, "box 2 taken")
        # a refused intent comes back as a message and changes nothing
        before = host.snapshot()
        refused = ask(host, Act(Action.bet("p0", 2, 10)))  # the owner has not bet yet
        assert refused != "" and host.snapshot().round == before.round
        assert ask(host, Act(Action.bet("p0", 1, 10))) == ""
        assert ask(guest, Act(Action.bet("p1", 2, 20))) == ""
        assert ask(host, BetsDone()) == ""
        assert host.snapshot().bets_in == {"p0"}
        # the screen tells him why nothing happens yet; the guest may still bet
        waiting = present_casino(host.snapshot(), clock.now(), hosting=True)
        assert waiting.turn.startswith("Your bets are in") and not waiting.can_deal
        assert present_casino(guest.snapshot(), clock.now()).can_deal
        assert ask(guest, BetsDone()) == ""  # everybody's bets are in: the deal comes
        for net in (host, guest):
            until(lambda n=net: n.snapshot().stage is not CasinoStage.BETTING, "the deal")
        # both phones' screens get the same round from their own engine copies
        until(lambda: host.snapshot().round == guest.snapshot().round, "the same round")
    finally:
        if guest is not None:
            guest.leave()
        host.leave()
    until(lambda: host.closed, "the host's table closing")
    assert host.snapshot().stage is CasinoStage.OVER


class _SlowTable:
    """A table whose first step hangs until released (a phone busy in a long step)."""

    def __init__(self) -> None:
        self.over = False
        self.entered = threading.Event()
        self.go = threading.Event()
        self.boxes: list[int] = []

    def step(self, wait: float = 0.0) -> None:
        self.entered.set()
        self.go.wait(HANG)

    def snapshot(self) -> CasinoSnapshot:
        return CasinoSnapshot(
            me="p0", rules=EUROPEAN, players=("p0",), names={"p0": "Ann"}, chips={},
            boxes={b: "p0" for b in self.boxes},
        )  # fmt: skip

    def take_box(self, box: int) -> None:
        self.boxes.append(box)

    def leave(self) -> None:
        self.over = True


class _Service:
    def __init__(self, table: _SlowTable) -> None:
        self.table = table

    def join_casino(self, address: str, on_change: Callable[[], None], **_: object) -> object:
        return self.table

    def on_main(self, call: Callable[[], object]) -> None:
        call()


def test_a_tap_told_connection_lost_is_never_carried_out() -> None:
    """The worker is stuck in a step longer than a tap's answer may take (the bridge's
    ``ANSWER`` timer fires, here by the test): the tap is told "connection lost"
    (nothing was sent), so its intent must never be carried out once the worker is
    back (a bet the player was told failed must not be placed)."""
    table = _SlowTable()
    timers = Timers()
    net = CasinoNet(
        hosting=False, service=_Service(table), address="here", post=direct, later=timers.later
    )
    try:
        assert net.wait_open()
        assert table.entered.wait(HANG)  # the worker is in its long step
        got: list[Outcome] = []
        net.submit(TakeBox(1), got.append)  # returns at once: the worker is stuck
        assert got == []
        timers.fire()  # its answer timer runs out before the worker took it
        assert [o.code for o in got] == ["connection_lost"]
        assert got[0].message == message_for("connection_lost")
        table.go.set()  # the step ends; the worker reads the queue
        assert ask(net, TakeBox(2)) == ""  # a tap after it is carried out
        assert table.boxes == [2]  # the first one never was
        timers.fire()  # (a late timer of an answered intent changes nothing)
        assert [o.code for o in got] == ["connection_lost"]
    finally:
        table.go.set()
        table.over = True
