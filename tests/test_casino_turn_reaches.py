"""Issue 37, item 1, the casino table: its decision turn reaches the player wherever he
is in the app. Two :class:`CasinoNet` (a host and a guest, each stepping its real table
on its own worker thread) over TCP loopback on a fake clock: while a phone's decision
is awaited, :func:`app.views.table.turn_watch.waiting_table` names the casino table screen
(the app brings him back there), for that phone only, and no longer once he decided.
The Kivy side (the app bringing him back) is driven in tests/test_turn_reaches.py."""

from __future__ import annotations

import time

from test_casino_net import HEADLESS, ask, until  # (the wait with its hang guard)

from app.rules.blackjack.actions import Action, ActionKind
from app.rules.table_rules import EUROPEAN
from app.table.casino.snapshot import CasinoStage
from app.table.clock import FakeClock
from app.table.service import TableService, tcp_transport
from app.views.casino.network import Act, BetsDone, CasinoNet, Start, TakeBox
from app.views.table.turn_watch import waiting_table


def test_the_casino_decision_turn_calls_its_player_back_to_the_table() -> None:
    clock = FakeClock()
    service = TableService(tcp_transport, dealer=lambda: "open", clock=lambda: clock)
    host = CasinoNet(
        hosting=True, service=service, name="Ann", lang="en", rules=EUROPEAN, **HEADLESS
    )
    guest = None
    try:
        assert host.wait_open()
        assert waiting_table({"casino": host}) is None  # the lobby waits for nobody
        assert ask(host, TakeBox(1)) == ""
        guest = CasinoNet(
            hosting=False, service=service, address=host.address, name="Bob", lang="en", **HEADLESS
        )
        assert guest.wait_open()
        until(lambda: len(host.snapshot().players) == 2, "the guest in the host's lobby")
        until(lambda: ask(host, Start()) == "", "the start")
        for net in (host, guest):
            until(lambda n=net: n.snapshot().stage is CasinoStage.BETTING, "bets open")
        assert ask(guest, TakeBox(2)) == ""
        until(lambda: host.snapshot().boxes.get(2) == guest.snapshot().me, "box 2 taken")
        assert ask(host, Act(Action.bet("p0", 1, 10))) == ""
        assert ask(guest, Act(Action.bet("p1", 2, 10))) == ""
        assert ask(host, BetsDone()) == "" and ask(guest, BetsDone()) == ""
        phones = {"p0": host, "p1": guest}
        called: list[str] = []
        # every decision of the round: its player's phone, and only his, calls him back
        until(lambda: host.snapshot().stage is not CasinoStage.BETTING, "the deal")
        while True:
            snap = host.snapshot()
            if snap.stage is not CasinoStage.PLAYING or snap.round is None or snap.round.settled:
                break
            if snap.turn is None:
                time.sleep(0.005)
                continue
            phone = phones[snap.turn]
            until(lambda p=phone: p.snapshot().my_turn, "the turn on its phone")
            other = guest if phone is host else host
            assert waiting_table({"casino": phone}) == "casino_table"
            assert waiting_table({"casino": other}) is None
            called.append(snap.turn)
            # the decision its own phone offers: stand, or say no to insurance (an ace
            # up: the European table asks) or to following a double
            mine = phone.snapshot().round
            assert mine is not None
            offered = {legal.kind: legal for legal in mine.legal_actions(snap.turn)}
            kinds = (ActionKind.STAND, ActionKind.DECLINE_INSURANCE, ActionKind.DECLINE_DOUBLE)
            choice = next(offered[k] for k in kinds if k in offered)
            assert ask(phone, Act(choice.action())) == ""
            until(lambda s=snap: host.snapshot().round != s.round, "the decision on the host")
            assert waiting_table({"casino": phone}) is None or phone.snapshot().my_turn
        assert called, "no decision was awaited this round"
    finally:
        if guest is not None:
            guest.leave()
        host.leave()
    until(lambda: host.closed, "the host's table closing")
    assert waiting_table({"casino": host}) is None  # a closed table calls nobody
