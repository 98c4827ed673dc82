"""Players leaving while a phone's copy of the match waits for something (issue 17):
the public events a leaver brings, applied to one :class:`PhoneMatch` by hand, with a
test dealer that says exactly whose parts have come. Every case here was found by
``blu21 soak``; each is the smallest state in which it happens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.cards import Card
from app.rules.oczko import OczkoOptions
from app.rules.oczko.match import Match
from app.table.dealer import DeckVerdict, OpenDealer
from app.table.messages import Applied, CloseDeal, Deal, Go, Left, Options
from app.table.oczko.phone import PhoneMatch


class KeysNotIn(OpenDealer):
    """The open test dealer, except that no seat has given its part of a card on its
    way yet (a watcher outside a tiebreak never does: his key is in no card)."""

    def shared(self, deck: int, position: int, seat: int) -> bool:
        return False


def _round(m: Match, cards: str, winner: int) -> Match:
    """Deal ``cards`` (every card known), everybody holds; ``winner`` must win."""
    for text in cards.split():
        m = m.deal(Card.parse(text))[0]
    number = m.round.number if m.round is not None else 0
    while m.round is not None and m.round.number == number and m.to_act is not None:
        m = m.hold(m.to_act)[0]
    assert m.history[-1].winner == winner
    return m


def tiebreak_between_0_and_2() -> dict[str, Any]:
    """Four players, two rounds: seat 0 wins one, seat 2 the other; the tiebreak is
    theirs, seats 1 and 3 only watch it."""
    m = Match.new(4, OczkoOptions(rounds=2))[0]
    m = _round(m, "Ts 5h 5c 5d 9s 6h 6c 6d", winner=0)  # (seat 0 deals first)
    m = _round(m, "5h 9s 5c 6d 6h Ts 6c 5d", winner=2)  # (seat 1 deals first)
    assert m.round is not None and m.round.tiebreak
    assert sorted(m.round.order) == [0, 2]
    return m.snapshot()


def test_a_watcher_leaving_during_a_tiebreak_draw_does_not_cut_the_card_off() -> None:
    """Soak seed 270039: seat 0 drew in a tiebreak against seat 2; seat 3, who only
    watched the tiebreak, lost his link before the card was in. His key is in no card
    of the tiebreak's deck, yet every phone took the card on its way for cut off (it
    "can never open"), and the host's phone refused the host's own ``drawn``: the
    table closed on a violation. A watcher's leaving cuts no card off."""
    snapshot = tiebreak_between_0_and_2()
    phone = PhoneMatch(0, 4, Options(rounds=2), KeysNotIn(0), snapshot=snapshot)
    number = phone.match.round.number
    for event in (Go(number, 1), Deal(number, 1), CloseDeal(number, ())):
        phone.announce(event)
    while phone.match.to_act != 0:
        phone.announce(Applied(number, phone.match.to_act, "hold"))
    phone.announce(Applied(number, 0, "draw"))
    phone.announce(Left(3, "lost"))
    assert not phone.cut_off
    phone.announce(Applied(number, 0, "drawn"))
    assert phone.violation is None
    assert len(phone.match.round.hand(0).cards) == 3


class AuditWaits(OpenDealer):
    """The open test dealer with a stacked deck (seat 2 is dealt two aces) whose audit
    never ends: a seed it needs has not come (its owner's phone died)."""

    def start_deck(self, deck: int, order: Sequence[int]) -> list[bytes]:
        aces = [Card.parse(t).code for t in ("As", "Ah")]
        rest = [c for c in range(52) if c not in aces]
        self._decks[deck] = [*rest[:2], aces[0], *rest[2:4], aces[1], *rest[4:]]
        return []

    def verdict(self, deck: int) -> DeckVerdict | None:
        return None


def test_a_round_end_does_not_wait_for_the_seed_of_a_leaver_announced_after_it() -> None:
    """Soak seed 470108: a Persian 21 ended round 1 at the deal, and its end waited for
    the deck's audit, which lacked the seed of seat 3, whose phone had died. His
    ``Left`` came next, queued behind the round's end, so the audit kept waiting for a
    seed that could no longer come; the host no longer counted him as a guest, so
    nobody was named: the table waited for ever. The round ends without waiting for
    the seed. It is void, not scored (issue 30: the Persian 21 of a stacked deck whose
    stacker left before revealing his seed must not stand), and the leaver may not be
    readmitted before the round played in its place is over."""
    phone = PhoneMatch(0, 3, Options(rounds=3), AuditWaits(0))
    phone.announce(Go(1, 1))
    phone.announce(Deal(1, 1))
    aces = [[2, Card.parse("As").code], [5, Card.parse("Ah").code]]  # (his two cards)
    phone.frame(OpenDealer._frame(k="claim", d=1, s=2, kind="persian", cards=aces))
    phone.announce(CloseDeal(1, (2,)))
    assert phone.waiting  # (the round's end waits for its audit)
    phone.announce(Left(1, "silent"))
    assert not phone.waiting and phone.violation is None
    assert phone.match.history[0].reason == "void" and phone.match.points == (0, 0, 0)
    assert 1 in phone.match.gone and phone.match.round.number == 2
    assert {"event": "round_void", "round": 1, "unaudited": [1]} in phone.log
    assert phone.barred(2) == {1} and phone.barred(3) == set()
