"""A casino session: players' chips over a fixed number of rounds.

Chips are free play money: each player starts with ``rules.starting_chips``; a session
lasts ``rules.rounds`` rounds. Chips are never negative and never created: what the
players win the house loses and vice versa (checked after every round).

>>> import random
>>> from app.rules.table_rules import TableRules
>>> s = Session.start(TableRules(rounds=2), ["ann", "bob"], random.Random(1))
>>> r = s.new_round().act("bet", "ann", 1, 10).act("bet", "bob", 2, 20).act("deal")
>>> def stand_or_decline(r):
...     kinds = ("stand", "decline_insurance", "decline_double")
...     return next(a for a in r.legal_actions() if a.kind in kinds).action()
>>> while not r.settled:
...     r, events = r.apply(stand_or_decline(r))
>>> s = s.record(r)
>>> s.rounds_played, sum(s.balances.values()) + s.house == 2000
(1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from app.rules.blackjack import Round
from app.rules.blackjack.deal import ShoeRound
from app.rules.blackjack.events import Shuffled
from app.rules.errors import IllegalAction
from app.rules.money import ZERO, Money, money_json
from app.rules.shoe import RandomSource, Shoe
from app.rules.table_rules import TableRules


class SessionError(ValueError):
    """A session cannot do what was asked (stable ``code``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Session:
    """Balances, round count and the shoe between rounds (immutable)."""

    rules: TableRules
    balances: Mapping[str, Money]
    shoe: Shoe
    rounds_played: int = 0
    #: The house's net result over the session.
    house: Money = ZERO
    #: Each finished round's net results, in order.
    history: tuple[Mapping[str, Money], ...] = field(default=(), repr=False)

    @classmethod
    def start(
        cls,
        rules: TableRules,
        players: Iterable[str],
        rng: RandomSource,
        shoe: Shoe | None = None,
    ) -> Session:
        """A new session: every player gets ``rules.starting_chips``. ``rng`` shuffles the
        shoe (``secrets.SystemRandom()`` in play); a ``shoe`` may be given instead."""
        names = list(players)
        if (
            not names
            or len(set(names)) != len(names)
            or not all(isinstance(p, str) and p for p in names)
        ):
            raise SessionError("bad_players", f"players must be distinct names, not {names!r}")
        start = Money(rules.starting_chips)
        return cls(
            rules,
            MappingProxyType(dict.fromkeys(names, start)),
            shoe or Shoe.shuffled(rules.decks, rules.penetration, rng),
        )

    @property
    def over(self) -> bool:
        """All rounds played, or nobody can afford the smallest bet."""
        return self.rounds_played >= self.rules.rounds or all(
            v < self.rules.min_bet for v in self.balances.values()
        )

    def new_round(self) -> ShoeRound:
        """The next round, in its betting phase, with the players' current balances,
        dealt from the session's shoe."""
        if self.over:
            raise SessionError("session_over", "the session is over")
        return ShoeRound.new(self.rules, self.shoe, self.balances)

    def record(self, dealt: ShoeRound) -> Session:
        """The session after a settled round; checks that no chips were created."""
        rnd, shoe = dealt.round, dealt.shoe
        if not rnd.settled:
            raise IllegalAction("round_not_settled", "the round is not finished yet")
        if (
            rnd.rules != self.rules
            or dict(rnd.bankrolls or {}) != dict(self.balances)
            or not _dealt_after(self.shoe, rnd, shoe)
        ):
            raise IllegalAction("foreign_round", "this round was not dealt from this session")
        nets = rnd.results()
        balances = dict(self.balances)
        for p, v in nets.items():
            balances[p] += v
            if balances[p] < 0:  # pragma: no cover - the round checks every stake
                raise AssertionError(f"{p} would have {balances[p]} chips")
        house = self.house - sum(nets.values(), ZERO)
        total_before = sum(self.balances.values(), ZERO) + self.house
        if sum(balances.values(), ZERO) + house != total_before:  # pragma: no cover
            raise AssertionError("chips were created or lost")
        return Session(
            self.rules,
            MappingProxyType(balances),
            shoe,
            self.rounds_played + 1,
            house,
            (*self.history, MappingProxyType(dict(nets))),
        )

    def summary(self) -> dict[str, Any]:
        """JSON-ready session summary: per player start, balance, net, best and worst
        round; the house's result."""
        start = Money(self.rules.starting_chips)
        players = {}
        for p, bal in self.balances.items():
            rounds = [h[p] for h in self.history if p in h]
            players[p] = {
                "start": money_json(start),
                "balance": money_json(bal),
                "net": money_json(bal - start),
                "rounds_played": len(rounds),
                "best_round": money_json(max(rounds)) if rounds else None,
                "worst_round": money_json(min(rounds)) if rounds else None,
            }
        return {
            "rounds_played": self.rounds_played,
            "rounds": self.rules.rounds,
            "over": self.over,
            "players": players,
            "house": money_json(self.house),
        }


def _dealt_after(before: Shoe, rnd: Round, after: Shoe) -> bool:
    """Whether ``rnd``, leaving shoe ``after``, was dealt from shoe ``before`` (the
    session's shoe).

    Why: equal balances alone let a round with no net result be recorded twice, or a
    round dealt from an older session state be recorded, which counted an extra round
    and rewound the shoe (the same cards dealt again)."""
    if after.shuffles != before.shuffles:
        # Reshuffled: at the start because the cut card was out, or mid-round because
        # the shoe ran empty.
        mid_round = any(isinstance(e, Shuffled) and e.reason == "shoe_empty" for e in rnd.events)
        return after.shuffles > before.shuffles and (before.due or mid_round)
    return after.cards == before.cards and after.round_start == before.position
