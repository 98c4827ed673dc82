"""Hand totals for both games: the plain-Python reference of ``app.native.handeval``.

Hands are sequences of compact card codes (see :mod:`app.cards`).
The engines call the native module; the tests compare it with these functions.

>>> from app.cards import parse_cards, codes
>>> oczko_total(codes(parse_cards("Qs 7h")))
10
>>> oczko_total(codes(parse_cards("Ks Ah")))
15
>>> is_persian(codes(parse_cards("As Ah")))
True
>>> bj_total(codes(parse_cards("As 6h")))
(17, True)
>>> bj_total(codes(parse_cards("As 6h 5d")))
(12, False)
"""

from __future__ import annotations

from collections.abc import Sequence

#: Oczko value of each rank (index rank - 1): ace 11, 2-10 face value, J 2, Q 3, K 4.
OCZKO_VALUES: tuple[int, ...] = (11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4)
#: Blackjack hard value of each rank (index rank - 1): ace 1, tens and faces 10.
BJ_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)


def _rank_index(code: int) -> int:
    if not isinstance(code, int) or not 0 <= code < 52:
        raise ValueError(f"card code must be an integer 0-51, not {code!r}")
    return code >> 2


def oczko_total(hand: Sequence[int]) -> int:
    """Oczko total: aces always count 11, so a hand with an ace can bust."""
    return sum(OCZKO_VALUES[_rank_index(c)] for c in hand)


def is_persian(hand: Sequence[int]) -> bool:
    """Persian 21: the hand is exactly the first two cards and both are aces."""
    ranks = [_rank_index(c) for c in hand]
    return ranks == [0, 0]


def bj_total(hand: Sequence[int]) -> tuple[int, bool]:
    """Casino total and softness: one ace counts 11 when that does not bust the hand."""
    hard = 0
    aces = 0
    for c in hand:
        r = _rank_index(c)
        hard += BJ_VALUES[r]
        aces += r == 0
    if aces and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def is_blackjack(hand: Sequence[int]) -> bool:
    """Two cards totalling 21 (whether it *pays* as a natural is the engine's call)."""
    total = bj_total(hand)[0]
    return len(hand) == 2 and total == 21


def is_triple_seven(hand: Sequence[int]) -> bool:
    """Exactly three sevens."""
    ranks = [_rank_index(c) for c in hand]
    return ranks == [6, 6, 6]
