"""The hint for the hand in play: best action and the EV of each legal action.

Computed from what the player can see: his cards, the dealer's up card and any other
cards seen since the shuffle (composition-dependent, exact for this hand).  In peek
games the EVs are conditioned on the dealer not having a blackjack (he has peeked).

>>> from types import SimpleNamespace
>>> from app.cards import Card, parse_cards
>>> h = hint(SimpleNamespace(decks=6), Card.parse("6c"), parse_cards("Th 6d"))
>>> h.best
'stand'
>>> sorted(h.evs)
['double', 'hit', 'stand']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.cards import Card
from app.native import handeval
from app.strategy.rules import analysis_rules, shoe_counts, value_index

ACTIONS: tuple[str, ...] = ("stand", "hit", "double", "split", "surrender")


@dataclass(frozen=True)
class Hint:
    """Best action (one of :data:`ACTIONS`) and the EV of each legal action.

    ``insurance``: EV per chip of an insurance bet (2:1) when the dealer shows an ace
    and the table offers it, from the cards not seen (None otherwise).
    """

    best: str
    evs: dict[str, float]
    insurance: float | None = None


def _counts(cards: Sequence[Card]) -> list[int]:
    c = [0] * 10
    for card in cards:
        c[value_index(int(card.rank))] += 1
    return c


def hint(
    rules: object,
    up: Card,
    hand: Sequence[Card],
    seen: Sequence[Card] = (),
    *,
    hands_now: int = 1,
    split_card: Card | None = None,
) -> Hint:
    """Hint for ``hand`` against ``up``; ``seen``: other cards seen since the shuffle.

    ``hands_now`` is 1 for an unsplit hand, else the number of hands the box has;
    ``split_card`` is a card of the pair that was split (split aces take one card).
    Raises ValueError when the cards cannot come from the shoe.
    """
    decks = int(getattr(rules, "decks", 6))
    if not hand:
        raise ValueError("the hand has no cards")
    unseen = shoe_counts(decks)
    for card in (up, *hand, *seen):
        i = value_index(int(card.rank))
        unseen[i] -= 1
        if unseen[i] < 0:
            raise ValueError(f"more {card.rank.char}s than the shoe holds")
    if hands_now < 1 or (hands_now > 1 and split_card is None):
        raise ValueError("a split hand needs hands_now >= 2 and the split card")
    pair_ok = len(hand) == 2 and (
        hand[0].rank == hand[1].rank
        if getattr(rules, "split_by", "rank") == "rank"
        else value_index(int(hand[0].rank)) == value_index(int(hand[1].rank))
    )
    split_rank = value_index(int(split_card.rank)) if split_card is not None else -1
    evs = handeval.hand_evs(
        analysis_rules(rules),
        value_index(int(up.rank)),
        unseen,
        _counts(hand),
        hands_now,
        split_rank,
        pair_ok,
    )
    legal = {ACTIONS[i]: v for i, v in enumerate(evs) if not math.isnan(v)}
    best = max(legal, key=legal.__getitem__)
    insurance = None
    if up.rank == 1 and getattr(rules, "insurance", True) and hands_now == 1 and len(hand) == 2:
        p_ten = unseen[9] / sum(unseen)  # the hole card is one of the unseen cards
        insurance = 2 * p_ten - (1 - p_ten)
    return Hint(best, legal, insurance)
