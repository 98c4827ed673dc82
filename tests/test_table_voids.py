"""A void only for a reason every phone can check (issue 30, finding 1).

The real HostTable and GuestTables over TCP; only the host's phone is modified. A host
that voids every round it does not win (it sees every proven hand at the showdown,
before the audit lets anyone score), or deals again a deal it does not like, is named
by every honest guest (``unjustified_void``): no guest applies its void, none is named
or dropped. The voids an honest host makes (a cheater named, a complaint, a player
holding up the audit) still go through on every phone, each charged on every screen
to whom it was owed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from cheats import Cheat, FalseComplaint, RevealingFalseComplaint, keep_seed
from test_table_sra import departures, finished, make_table, run

from app.rules.oczko import Phase
from app.rules.oczko.actions import Action, ActionKind
from app.rules.oczko.events import RoundEnded
from app.table.errors import TableError
from app.table.messages import CONTROL, Deal, Void, decode
from app.table.oczko import sequencer as host_sequencer
from app.table.oczko.book import Announce
from app.table.oczko.phone import PhoneMatch, Waiting


def showdown_winner(phone: PhoneMatch) -> tuple[int, int | None] | None:
    """(round, winner) once every hand of the round in play is proven on this phone
    (the showdown, before the audit lets the round count); None before."""
    m = phone.match
    r = m.round
    if m.over or r is None or r.phase is not Phase.SHOWDOWN:
        return None
    number = r.number
    while m.round is not None and m.round.number == number and m.to_reveal:
        seat = m.to_reveal[0]
        try:
            cards = phone._proven(seat, number)
        except Waiting:
            return None
        m, events = m.apply(Action(ActionKind.REVEAL, seat, tuple(cards)))
        for event in events:
            if isinstance(event, RoundEnded):
                return number, event.winner
    return None


def take_any_void(phone: PhoneMatch) -> None:
    """The cheating host's own phone applies whatever void its host announces."""
    phone._void_justified = lambda event: True  # type: ignore[method-assign]


def voiding_host(host: Any, reason: str, seat: int | None) -> list[int]:
    """Make ``host`` void every round it does not win, once it has seen the proven
    hands, giving ``reason`` and ``seat``; returns the rounds it voided (filled as it
    plays)."""
    voided: list[int] = []
    original = host.step

    def step(wait: float = 0.0) -> None:
        original(wait)
        phone = host.phone
        if phone is None or host.closed:
            return
        seen = showdown_winner(phone)
        if seen is None or seen[1] == 0 or seen[0] in voided:
            return
        take_any_void(phone)
        voided.append(seen[0])
        host.book, effects = host_sequencer._void(host.book, seen[0], reason, seat)
        for effect in effects:
            host._perform(effect)
        phone._owed_left = None  # (nor does it remove the seat it charged)

    host.step = step
    return voided


def redealing_host(host: Any, how: str) -> list[int]:
    """Make ``host`` undo the first deal of every round once its own cards are open:
    ``newdeck`` deals again from a fresh deck as if a player had left; ``void`` voids
    the round (as if a card had not opened)."""
    undone: list[int] = []
    original = host.step

    def step(wait: float = 0.0) -> None:
        original(wait)
        phone = host.phone
        if phone is None or host.closed or phone.match.round is None:
            return
        r = phone.match.round
        if r.phase is not Phase.DEAL or r.number in undone:
            return
        if not any(n == r.number for n, _deck in phone._told_dealt):
            return  # (my cards are not open yet)
        undone.append(r.number)
        if how == "void":
            take_any_void(phone)
            host.book, effects = host_sequencer._void(host.book, r.number, "dispute", None)
        else:
            phone._deck_lefts = {1}  # (its own phone takes the fresh deck)
            book = replace(
                host.book,
                dealt=frozenset(p for p in host.book.dealt if p[0] != r.number),
                persian=frozenset(p for p in host.book.persian if p[0] != r.number),
            )
            host.book, effects = host_sequencer._new_deck(book, r.number)
            effects = (*effects, Announce(Deal(r.number, host.book.deck)))
        for effect in effects:
            host._perform(effect)

    host.step = step
    return undone


def named_the_host_for_the_void(players: list[Any], *, applied: bool = False) -> None:
    """Every honest guest named the host (nobody else) and left; no guest was named by
    anybody. The host's void was not applied (``applied``: a void charged to a seat
    whose seed this guest's audit did lack, then not followed by his removal: it was
    applied and the host named at the next event, before any card of the replay)."""
    for p in players:
        violations = [n.details for n in p.notices if n.code == "violation"]
        assert violations and violations[-1]["seat"] in (0, None), p.notices
        assert violations[-1]["code"] == "unjustified_void", violations
        assert p.closed
        assert not [n for n in p.notices if n.code == "cheat_named"]
        m = p.phone.match
        if not applied:
            assert p.phone.voided == []  # the host's void never counted here
            assert not any(e.get("event") == "round_void" for e in p.phone.log)
        else:
            # Nothing was replayed: the void round is the last one this guest saw.
            assert len(p.phone.voided) == 1 and m.history[-1].reason == "void"
            r = m.round
            assert r is not None and r.phase is Phase.DEAL and not p.phone.decks_of(r.number)


@pytest.mark.parametrize(
    ("guests", "reason", "seat"),
    [(2, "cheat", 1), (2, "dispute", None), (2, "stalled", 2), (3, "cheat", 3)],
)
def test_a_host_voiding_every_round_it_does_not_win_is_named_by_every_guest(
    guests: int, reason: str, seat: int | None
) -> None:
    host, players, clock = make_table(guests, seed=3, rounds=5)
    voided = voiding_host(host, reason, seat)
    run(host, players, clock, until=lambda: all(p.closed for p in players) or host.phone.match.over)
    assert voided, "the host won every round: no void was tried"
    named_the_host_for_the_void(players, applied=reason == "stalled")
    # No guest was dropped or named by the host: they left of their own accord.
    assert not [n for n in host.notices if n.code == "cheat_named"]


@pytest.mark.parametrize("how", ["newdeck", "void"])
def test_a_host_dealing_again_a_deal_it_does_not_like_is_named_by_every_guest(how: str) -> None:
    host, players, clock = make_table(2, seed=5, rounds=3)
    undone = redealing_host(host, how)
    run(host, players, clock, until=lambda: all(p.closed for p in players))
    assert undone
    named_the_host_for_the_void(players)
    for p in players:
        # Nothing of the deal the host undid went into this guest's match.
        assert not p.phone.match.history


def test_a_host_faking_a_dispute_by_a_false_complaint_is_named_by_every_guest() -> None:
    # The one reason a host could give itself: a complaint of its own. It is a signed
    # frame like any other, so the audit judges it: the host is named ``false_complaint``
    # on every guest (those that applied the void leave at once; nothing is replayed).
    host, players, clock = make_table(2, seed=1, rounds=2, dealers={0: RevealingFalseComplaint})
    run(host, players, clock, until=lambda: all(p.closed for p in players) or host.closed)
    for p in players:
        violations = [n.details for n in p.notices if n.code == "violation"]
        assert [(v["seat"], v["code"]) for v in violations] == [(0, "false_complaint")]
        assert not [n for n in p.notices if n.code == "cheat_named"]
        assert all(v.reason == "dispute" for v in p.phone.voided)
        assert not [h for h in p.phone.match.history if h.reason != "void"]
    assert not [r for _, r in departures(host) if r in ("cheat", "stalled")], departures(host)


def test_a_void_for_a_cheat_is_charged_to_the_cheater_on_every_screen() -> None:
    # A guest complains falsely and keeps his seed: named, removed, the round void on
    # every phone, and each screen says whose the void was.
    host, players, clock = make_table(2, seed=1, rounds=2, dealers={2: FalseComplaint})
    honest = [players[0]]
    run(host, players, clock, until=lambda: finished(host, honest) or host.closed)
    assert not host.closed
    for side in (host, *honest):
        assert side.phone.violation is None and not getattr(side, "closed", False)
        voids = [n.details for n in side.notices if n.code == "round_void"]
        assert voids and all(v["seat"] == 2 for v in voids), voids
        assert {v["reason"] for v in voids} <= {"cheat", "dispute", "stalled"}
    assert [v.seat for v in honest[0].phone.voided] == [2] * len(honest[0].phone.voided)


class KeepsSeed(Cheat):
    """A guest that plays honestly but keeps his round seed at the audit."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        keep_seed(self)


def test_a_player_holding_up_the_audit_voids_his_round_on_every_phone_charged_to_him() -> None:
    host, players, clock = make_table(2, seed=2, rounds=2, dealers={2: KeepsSeed})
    honest = [players[0]]
    run(host, players, clock, until=lambda: finished(host, honest) or host.closed)
    assert not host.closed
    assert "stalled" in {reason for _, reason in departures(host) if _ == 2}, departures(host)
    for side in (host, *honest):
        assert side.phone.violation is None and not getattr(side, "closed", False)
        voids = [n.details for n in side.notices if n.code == "round_void"]
        assert voids == [{**voids[0], "round": 1, "reason": "stalled", "seat": 2}], voids
        assert {"event": "round_void", "round": 1} in side.phone.log
        assert not [n for n in side.notices if n.code == "violation"]
    m = host.phone.match
    assert m.history[0].reason == "void" and 2 in m.gone


@pytest.mark.parametrize(
    "body",
    [
        b'{"t":"void","round":1}',
        b'{"t":"void","round":1,"reason":"whim","seat":null}',
        b'{"t":"void","round":1,"reason":"cheat","seat":9}',
        b'{"t":"void","round":1,"reason":"cheat","seat":"1"}',
    ],
)
def test_a_void_without_a_known_reason_does_not_decode(body: bytes) -> None:
    with pytest.raises(TableError) as caught:
        decode(CONTROL + body)
    assert caught.value.code == "bad_message"
    assert decode(CONTROL + b'{"t":"void","round":1,"reason":"dispute","seat":null}') == Void(
        1, "dispute", None
    )
