"""A player's taps at a casino table are never silently lost: one that comes while
his phone's table cannot take it (its cards still opening: "not now") is queued and
sent once it can; one the host's copy could not take yet (``CNo(n, "not_now")``) is
sent again; one the table refuses when its time comes is told to the player. Real
host and guests over TCP, on the fake clock; nobody plays by bot but the test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from app.protocol.keys import DeterministicRng
from app.rules.blackjack.actions import Action, ActionKind
from app.rules.money import ZERO
from app.rules.table_rules import TableRules
from app.table import lobby
from app.table.casino.host import MAX_REFUSED, CasinoHost
from app.table.casino.messages import CIntent, CNo
from app.table.casino.snapshot import CasinoStage
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from tests.casino_net import GROUP, open_table, run, settled

RULES = TableRules.preset("european", decks=1, penetration="1/2")


def sra(seat: int, players: int) -> SraShoe:
    """The real shoe: every phone's key opens each card (p2's included)."""
    return SraShoe(seat, players, group=GROUP, rng=DeterministicRng(seat))


def actions(side: Any, player: str) -> list[str]:
    return [
        e["action"] for e in side.phone.log if e.get("event") == "action" and e["player"] == player
    ]


def refused(side: Any) -> list[Any]:
    return [n.params.get("code") for n in side._notes if n.code == "intent_refused"]


def _bet_on_box_one(sides: list[Any], clock: FakeClock) -> None:
    """p1 sits at box 1 and bets 10 (the host and p2 do not play)."""
    p1 = sides[1]
    run(sides, lambda: all(s.phone.stage is CasinoStage.BETTING for s in sides), clock)
    p1.take_box(1)
    run(sides, lambda: all(s.phone.boxes.get(1) == "p1" for s in sides), clock)
    p1.act(Action.bet("p1", 1, 10))
    run(sides, lambda: all(s.phone.round.box_owner(1) == "p1" for s in sides), clock)


def _deal_while_p2_is_paused(
    clock: FakeClock, until: Callable[[Any, Any], bool]
) -> tuple[Any, Any, list[Any]]:
    """p1 bets on box 1 and the deal starts while p2's app is paused: the deal's cards
    cannot open without his part; runs the host and p1 ``until(host, p1)``."""
    host, guests = open_table(3, RULES, clock=clock, factory=sra, bot=None)
    p1, p2 = guests
    sides = [host, p1, p2]
    _bet_on_box_one(sides, clock)
    p1.bets_done()
    run([host, p1], lambda: until(host, p1), clock)
    return host, p1, sides


def test_a_decision_tapped_while_the_cards_open_is_applied_once_they_are() -> None:
    clock = FakeClock()
    host, p1, sides = _deal_while_p2_is_paused(clock, lambda h, p1: p1.phone.waiting)
    assert p1.phone.round.phase.value == "betting"  # (the deal waits in the queue)
    tapped = clock.now()
    p1.act(Action(ActionKind.STAND, "p1"))  # "not now": queued, not refused
    p1.act(Action.bet("p1", 1, 10))  # queued behind it: refused once its time comes
    assert p1._taps and not refused(p1)
    run(sides, settled(sides, 1), clock)
    for s in sides:
        assert actions(s, "p1") == ["stand"], s.me
    assert clock.now() - tapped < host.turn_time  # his tap, not a time-out, stood
    assert len(refused(p1)) == 1  # the late bet is told (the box has its bet), not lost
    assert not p1._taps


def _send_signed(side: Any, act: str, box: int = 0, later: int = 0) -> None:
    """``side``'s signed intent sent straight on its link, past its own copy's check
    (its counter the next one, plus ``later``)."""
    phone = side.phone
    n = phone.players[side.me].n + 1 + later
    unsigned = CIntent(side.me, n, phone.round_no, act, box, ZERO)
    sig = side.identity.sign(b"blu21/casino-intent", unsigned.signed_bytes(phone.table))
    side.send(side.link, replace(unsigned, sig=sig.hex()))


class OnceBusyHost(CasinoHost):
    """An honest host whose copy was still dealing when p1's first bet came: it answers
    ``CNo(n, "not_now")`` once instead of relaying it (a race at a real table)."""

    busy_once = True

    def _relay_intent(self, seat: int, pid: str, intent: CIntent, held: bool = False) -> None:
        if self.busy_once and intent.act == "bet":
            self.busy_once = False
            link = self.link_of(seat)
            assert link is not None
            self.lobby.send(link, CNo(intent.n, "not_now"))
            return
        super()._relay_intent(seat, pid, intent, held)


def test_a_tap_the_hosts_copy_could_not_take_yet_goes_again() -> None:
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=6, bot=None, host_cls=OnceBusyHost)
    sides = [host, *guests]
    _bet_on_box_one(sides, clock)  # (waits until every phone has his bet)
    assert not host.busy_once
    for s in sides:
        assert s.phone.round.box_total(1) == 10
    assert not refused(guests[0]) and not guests[0]._taps


def test_an_intent_that_reaches_the_host_while_its_copy_deals_waits_there() -> None:
    """p1's phone was quicker than the host's: his decision reaches the host while the
    host's own copy still waits for the deal's cards. The host holds it (it does not
    refuse it: p1 would send it again and again while the cards open) and relays it
    once its copy can take it."""
    clock = FakeClock()
    host, p1, sides = _deal_while_p2_is_paused(
        clock, lambda h, p1: h.phone.waiting and p1.phone.waiting
    )
    _send_signed(p1, "stand")  # (as a copy ahead of the host's)
    run([host, p1], lambda: bool(host._later), clock)
    assert actions(host, "p1") == []
    run(sides, settled(sides, 1), clock)
    for s in sides:
        assert actions(s, "p1") == ["stand"], s.me
    assert not refused(p1) and not host._later


# -- box taps the round ended before they came ------------------------------------------


def _late_intents(side: Any) -> Callable[[], None]:
    """``side``'s next intents stay on a slow link until the returned call sends them."""
    late: list[CIntent] = []
    send = side._send_intent
    side._send_intent = late.append

    def arrive() -> None:
        side._send_intent = send
        for intent in late:
            send(intent)

    return arrive


def test_a_box_asked_for_in_the_lobby_is_taken_when_the_first_round_opened_before_it_came(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The guest's wish goes out as soon as the table begins, stamped round 0; his link is
    slow, and the host has opened the first round's bets when it comes. The host refuses
    it for that round; the guest sends it again in round 1 and sits at his box (seen 4
    times in 300 runs of the service test beside two busy loops: he never sat)."""
    clock = FakeClock()
    host, (p1,) = open_table(2, RULES, clock=clock, bot=None, start=False)
    sides = [host, p1]
    p1.take_box(3)
    arrive = _late_intents(p1)
    host.start()
    with monkeypatch.context() as m:  # (p1 takes in the table's begin alone, as if loaded)
        m.setattr(lobby, "EVENTS_PER_STEP", 1)
        run(sides, lambda: p1.phone is not None, clock)
    assert list(p1._tapped.values()) == [(0, "take_box", 3, ZERO)]  # (sent in round 0)
    run(sides, lambda: all(s.phone.stage is CasinoStage.BETTING for s in sides), clock)
    arrive()
    run(sides, lambda: all(s.phone.boxes == {3: "p1"} for s in sides), clock)
    assert not refused(p1)
    assert [n.params["code"] for n in host._notes if n.code == "intent_refused"] == ["wrong_round"]


def test_a_box_tap_made_after_a_round_goes_in_the_next_when_that_opened_before_it_came() -> None:
    """p2 taps "take box 2" while round 1 is settled; his link is slow and the host has
    opened round 2 when it comes: he sits at box 2 in round 2, and is not told 'refused'
    (a late decision or bet is a round's: it is told, see the first test)."""
    clock = FakeClock()
    host, guests = open_table(3, RULES, clock=clock, seed=4, bot=None)
    p1, p2 = guests
    sides = [host, p1, p2]
    host.round_pause = 5.0  # (the results stay on screen a while: p2 taps then)
    _bet_on_box_one(sides, clock)
    p1.bets_done()
    run(sides, lambda: all(s.phone.stage is CasinoStage.SETTLED for s in sides), clock)
    arrive = _late_intents(p2)
    p2.take_box(2)
    assert list(p2._tapped.values()) == [(1, "take_box", 2, ZERO)]
    run(sides, lambda: all(s.phone.round_no == 2 for s in sides), clock)
    arrive()
    run(sides, lambda: all(s.phone.boxes.get(2) == "p2" for s in sides), clock)
    assert not refused(p2) and not p2._taps
    for s in sides:
        assert s.phone.boxes == {1: "p1", 2: "p2"}


# -- refused intents: a budget per round ------------------------------------------------


def _send_refused(p1: Any, count: int) -> None:
    """``count`` signed intents of p1 the host's engine refuses (box 5 is not his)."""
    for k in range(count):
        _send_signed(p1, "leave_box", 5, later=k)


def test_refused_intents_are_counted_per_round_not_over_the_table_s_life() -> None:
    """An honest phone's races are a few refusals a round, and a long evening adds them up:
    a guest refused the whole budget in each of three rounds still plays; one refused
    more in a single round floods the table and is removed, and the table goes on."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, seed=5, bot=None)
    sides = [host, p1, p2]

    def betting(sides: list[Any], rnd: int) -> Callable[[], bool]:
        return lambda: all(
            s.phone.round_no == rnd and s.phone.stage is CasinoStage.BETTING for s in sides
        )

    def p2_plays(sides: list[Any], rnd: int) -> None:
        """p2 bets at box 2 and the round is played out (decisions time out)."""
        if rnd == 1:
            p2.take_box(2)
            run(sides, lambda: all(s.phone.boxes.get(2) == "p2" for s in sides), clock)
        p2.act(Action.bet("p2", 2, 10))
        run(sides, lambda: all(s.phone.round.box_total(2) == 10 for s in sides), clock)
        p2.bets_done()
        run(sides, settled(sides, rnd), clock)

    for rnd in (1, 2, 3):
        run(sides, betting(sides, rnd), clock)
        _send_refused(p1, MAX_REFUSED)
        run(sides, lambda rnd=rnd: host._refusals.get("p1") == (rnd, MAX_REFUSED), clock)
        assert host.phone.players["p1"].present
        p2_plays(sides, rnd)
    assert not p1.over and p1.phone.fault is None and not refused(p2)
    run(sides, betting(sides, 4), clock)
    _send_refused(p1, MAX_REFUSED + 1)
    run(sides, lambda: not any(s.phone.players["p1"].present for s in (host, p2)), clock)
    assert host._refusals["p1"] == (4, MAX_REFUSED + 1)
    assert [n.details["reason"] for n in host.notices if n.code == "player_left"] == ["flood"]
    assert [n.params["player"] for n in p2._notes if n.code == "player_left"] == ["p1"]
    p2_plays([host, p2], 4)
    assert host.phone.players["p2"].present and p2.phone.fault is None
