"""The screens' side of the real casino table (app/views/casino_net.py), without Kivy:
two :class:`CasinoNet` (a host and a guest, each stepping its real table on its own
worker thread) over TCP loopback, on a fake clock that never moves."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from app.i18n.codes import message_for
from app.rules.blackjack_actions import Action
from app.rules.table_rules import EUROPEAN
from app.table.casino_snapshot import CasinoStage
from app.table.clock import FakeClock
from app.table.service import TableService, tcp_transport
from app.views import casino_net
from app.views.casino_net import CasinoNet
from app.views.casino_vm import present_casino

#: real seconds after which a wait counts as hung (a guard, not a speed target)
HANG = 240.0  # as tests/casino_net.py: a loaded CI machine is slow, never this slow


def until(cond: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + HANG
    while not cond():
        assert time.monotonic() < end, f"hung waiting for {what}"
        time.sleep(0.005)


def test_two_phones_sit_bet_and_deal_through_their_workers() -> None:
    clock = FakeClock()
    service = TableService(tcp_transport, dealer=lambda: "open", clock=lambda: clock)
    host = CasinoNet(hosting=True, service=service, name="Ann", lang="en", rules=EUROPEAN)
    guest = None
    try:
        assert host.wait_open()
        assert host._options["round_pause"] > 0  # the players read a settled round
        # a box taken in the lobby shows at once (the table takes it when it begins)
        assert host.send("take_box", 1) == ""
        assert host.snapshot().boxes == {1: host.snapshot().me}
        guest = CasinoNet(
            hosting=False, service=service, address=host.address, name="Bob", lang="pl"
        )
        assert guest.wait_open()
        # the host's lobby lists the guest; its worker relays his key
        until(lambda: len(host.snapshot().players) == 2, "the guest in the host's lobby")
        until(lambda: host.send("start") == "", "the start")
        for net in (host, guest):
            until(lambda n=net: n.snapshot().stage is CasinoStage.BETTING, "bets open")
        assert guest.send("take_box", 2) == ""
        until(lambda: host.snapshot().boxes.get(2) == guest.snapshot().me, "box 2 taken")
        # a refused intent comes back as a message and changes nothing
        before = host.snapshot()
        refused = host.send("act", Action.bet("p0", 2, 10))  # the owner has not bet yet
        assert refused != "" and host.snapshot().round == before.round
        assert host.send("act", Action.bet("p0", 1, 10)) == ""
        assert guest.send("act", Action.bet("p1", 2, 20)) == ""
        assert host.send("bets_done") == ""
        assert host.snapshot().bets_in == {"p0"}
        # the screen tells him why nothing happens yet; the guest may still bet
        waiting = present_casino(host.snapshot(), clock.now(), hosting=True)
        assert waiting.turn.startswith("Your bets are in") and not waiting.can_deal
        assert present_casino(guest.snapshot(), clock.now()).can_deal
        assert guest.send("bets_done") == ""  # everybody's bets are in: the deal comes
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

    def step(self, wait: float) -> None:
        self.entered.set()
        self.go.wait(HANG)

    def snapshot(self) -> tuple[int, ...]:
        return tuple(self.boxes)

    def take_box(self, box: int) -> None:
        self.boxes.append(box)


class _Service:
    def __init__(self, table: _SlowTable) -> None:
        self.table = table

    def join_casino(self, address: str, on_change: Callable[[], None], **_: object) -> object:
        return self.table

    def on_main(self, call: Callable[[], object]) -> None:
        call()


def test_a_tap_told_connection_lost_is_never_carried_out(monkeypatch) -> None:
    """The worker is stuck in a step longer than a tap waits (``ANSWER``): the tap is
    told "connection lost" (nothing was sent), so its intent must not be carried out
    once the worker is back (it was, before: a bet the player was told failed)."""
    monkeypatch.setattr(casino_net, "ANSWER", 0.05)
    table = _SlowTable()
    net = CasinoNet(hosting=False, service=_Service(table), address="here")
    try:
        assert net.wait_open()
        assert table.entered.wait(HANG)  # the worker is in its long step
        assert net.send("take_box", 1) == message_for("connection_lost")
        table.go.set()  # the step ends; the worker reads the queue
        assert net.send("take_box", 2) == ""  # a tap after it is carried out
        assert table.boxes == [2]  # the first one never was
    finally:
        table.go.set()
        table.over = True
