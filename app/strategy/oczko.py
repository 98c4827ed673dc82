"""Oczko odds: the chance that the next card busts the player.

Aces always count 11, J 2, Q 3, K 4, one 52-card deck.  The next card is any card the
player has not seen (his own cards and the cards he has seen are out).

>>> from app.cards import parse_cards
>>> bust_probability(parse_cards("Ts 9h"))    # 19: only the 2s and jacks are safe
Fraction(21, 25)
>>> bust_probability(parse_cards("As Kd"), parse_cards("Ah Ad"))  # 15: 7-10 and the last ace
Fraction(17, 48)
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from app.cards import DECK, Card
from app.hands import OCZKO_VALUES


def bust_probability(own: Sequence[Card], seen: Sequence[Card] = ()) -> Fraction:
    """P(the next card takes the player's Oczko total over 21), as an exact fraction."""
    known = list(own) + list(seen)
    if len(set(known)) != len(known):
        raise ValueError("a card appears twice among the player's and the seen cards")
    total = sum(OCZKO_VALUES[c.rank - 1] for c in own)
    unseen = [c for c in DECK if c not in set(known)]
    if not unseen:
        raise ValueError("no card is left to draw")
    busting = sum(1 for c in unseen if total + OCZKO_VALUES[c.rank - 1] > 21)
    return Fraction(busting, len(unseen))
