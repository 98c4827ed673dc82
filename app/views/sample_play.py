"""Sample play for the benchmark, the tests and demos: a practice Oczko match and a
blackjack session played to the end through the app's own game objects, with seeded
random decisions (so the hooks where rounds end record them as in a real game)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.views.blackjack.game import BlackjackGame
    from app.views.oczko.practice import PracticeMatch


def play_practice(
    names: Sequence[str] = ("Me", "Ada", "Bruno"), rounds: int = 3, seed: int = 1
) -> PracticeMatch:
    """A practice match against bots to its end (the player draws 40 % of the time);
    returns the finished :class:`app.views.oczko.practice.PracticeMatch`."""
    from app.views.oczko.practice import PracticeMatch

    rng = random.Random(seed)
    m = PracticeMatch(list(names), rounds=rounds, rng=random.Random(seed + 1))
    now = 0.0
    while not m.over:
        now += 6.0
        if m.awaiting_next:
            m.next_round(now)
        elif m.match.to_act == 0:
            m.draw(now) if rng.random() < 0.4 else m.hold(now)
        else:
            m.tick(now)  # the bots (and their thinking time) move on
    return m


def play_blackjack(
    me: str = "Me", bots: Sequence[str] = ("Bot",), rounds: int = 6, seed: int = 1
) -> BlackjackGame:
    """A blackjack session to its end: the player bets 10 on box 1 and picks his
    decisions at random; returns the finished :class:`app.views.blackjack.game.BlackjackGame`."""
    from app.rules.table_rules import TableRules
    from app.views.blackjack.game import BlackjackGame

    rng = random.Random(seed)
    g = BlackjackGame(TableRules(rounds=rounds), me, bots=list(bots), rng=random.Random(seed + 1))
    while not g.over:
        g.bet(1, 10)
        g.deal()
        while g.round is not None and not g.round.settled and g.legal():
            kinds = [a.kind.value for a in g.legal() if a.kind.value != "insure"]
            g.decide(rng.choice(kinds))
        g.next_round()
    return g
