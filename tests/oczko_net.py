"""A full-information Oczko engine beside one phone engine per seat, fed one common stream.

Shared by the networked property tests (tests/test_oczko_hidden.py, tests/test_oczko_rejoin.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.rules.oczko import Match, OczkoOptions, Phase


class Net:
    """A full-information engine and one phone engine per seat, fed one common stream."""

    def __init__(self, players: int, rounds: int) -> None:
        opts = OczkoOptions(rounds=rounds)
        self.host, _ = Match.new(players, opts)
        self.phones = {s: Match.new(players, opts, me=s)[0] for s in range(players)}

    def send(self, kind: str, args: Callable[[int], tuple[Any, ...]]) -> None:
        """Every phone applies the same message; then due claims are announced."""
        for s in list(self.phones):
            self.phones[s], _ = getattr(self.phones[s], kind)(*args(s))
        for s, p in list(self.phones.items()):
            due = p.claim_due(s)
            if due in ("bust", "hold"):
                self.send(due, lambda _, s=s: (s,))
                return

    def settle(self) -> None:
        """Persian proofs and the close of the deal; the hands opened at the showdown."""
        if any(p.phase is Phase.DEAL_CHECK for p in self.phones.values()):
            for s, p in list(self.phones.items()):
                if p.claim_due(s) == "persian":
                    cards = p.round.hand(s).cards
                    self.send("reveal", lambda _, s=s, cards=cards: (s, cards))
            self.send("close_deal", lambda _: ())
        while any(p.phase is Phase.SHOWDOWN for p in self.phones.values()):
            p = next(iter(self.phones.values()))
            seat = p.to_reveal[0]
            hand = next(h for h in self.host.history[p.round.number - 1].hands if h.seat == seat)
            self.send("reveal", lambda _, seat=seat, cards=hand.cards: (seat, cards))

    def check(self) -> None:
        h = self.host
        public = set()
        for s, p in self.phones.items():
            assert (p.points, p.over, p.winner, p.gone) == (h.points, h.over, h.winner, h.gone)
            assert [r.winner for r in p.history] == [r.winner for r in h.history]
            assert p.round.number == h.round.number and p.to_act == h.to_act
            assert p.round.order == h.round.order and p.phase == h.phase
            for mine, full in zip(p.round.hands, h.round.hands, strict=True):
                assert mine.status == full.status and len(mine.cards) == len(full.cards)
                if mine.seat == s:
                    assert mine.cards == full.cards
                elif not mine.shown:
                    assert all(c is None for c in mine.cards)
            public.add(tuple((x.seat, x.status, len(x.cards)) for x in p.round.hands))
        assert len(public) <= 1  # every phone shows the same table

    def play(self, deck: list[Any], rng: Any, stops: tuple[str, ...] = ("hold",)) -> None:
        """One move of a sensible random player: deal, draw below 15 (sometimes to 18), or stop."""
        h = self.host
        if h.phase is Phase.DEAL:
            card, to = deck.pop(), h.to_deal
            self.host, _ = h.deal(card)
            self.send("deal", lambda s, card=card, to=to: (card if s == to else None,))
            return
        seat = h.to_act
        total = h.round.hand(seat).total
        if total < 15 or (total < 19 and rng.random() < 0.3):
            card = deck.pop()
            self.host, _ = h.draw(seat, card)
            self.send("draw", lambda s, seat=seat, card=card: (seat, card if s == seat else None))
        else:
            kind = rng.choice(stops)
            self.host, _ = getattr(h, kind)(seat)
            self.send(kind, lambda _, seat=seat: (seat,))
