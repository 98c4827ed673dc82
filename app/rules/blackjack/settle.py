"""Payouts of casino blackjack: pure functions from outcome and stake to chips returned.

>>> from app.rules.table_rules import TableRules
>>> returned(Outcome.BLACKJACK, Fraction(10), TableRules())
Fraction(25, 1)
>>> returned(Outcome.BLACKJACK, Fraction(7), TableRules(blackjack_pays=Fraction(6, 5)))
Fraction(77, 5)
>>> compare(20, False, 22, False)
<Outcome.WIN: 'win'>
"""

from __future__ import annotations

import enum
from fractions import Fraction

from app.rules.table_rules import TableRules


class Outcome(enum.StrEnum):
    """How a stake ended. Values are stable codes."""

    WIN = "win"  # 1:1
    BLACKJACK = "blackjack"  # natural, blackjack_pays
    PUSH = "push"  # stake back
    LOSE = "lose"  # beaten by the dealer
    BUST = "bust"  # over 21, lost at once
    SURRENDER = "surrender"  # half back
    EVEN_MONEY = "even_money"  # blackjack vs ace taken at 1:1
    TRIPLE_SEVEN = "triple_seven"  # three sevens, 3:2 at once
    RETURNED = "returned"  # extra stake given back (ENHC original-bets-only)


def returned(outcome: Outcome, stake: Fraction, rules: TableRules) -> Fraction:
    """Chips handed back to the bettor (his stake included) for ``outcome``."""
    match outcome:
        case Outcome.WIN | Outcome.EVEN_MONEY:
            return stake * 2
        case Outcome.BLACKJACK:
            return stake * (1 + rules.blackjack_pays)
        case Outcome.TRIPLE_SEVEN:
            return stake * (1 + rules.TRIPLE_SEVEN_PAYS)
        case Outcome.PUSH | Outcome.RETURNED:
            return stake
        case Outcome.SURRENDER:
            return stake / 2
        case Outcome.LOSE | Outcome.BUST:
            return Fraction(0)
    raise ValueError(f"unknown outcome {outcome!r}")  # pragma: no cover


def compare(
    player_total: int, player_natural: bool, dealer_total: int, dealer_natural: bool
) -> Outcome:
    """Outcome of a finished, not busted hand against the dealer's final hand."""
    if player_natural:
        return Outcome.PUSH if dealer_natural else Outcome.BLACKJACK
    if dealer_natural:
        return Outcome.LOSE
    if dealer_total > 21 or player_total > dealer_total:
        return Outcome.WIN
    return Outcome.PUSH if player_total == dealer_total else Outcome.LOSE


def insurance_returned(amount: Fraction, dealer_blackjack: bool, rules: TableRules) -> Fraction:
    """Insurance pays 2:1 on a dealer blackjack, else it is lost."""
    return amount * (1 + rules.INSURANCE_PAYS) if dealer_blackjack else Fraction(0)


def dealer_busts_returned(amount: Fraction, dealer_bust: bool, rules: TableRules) -> Fraction:
    """The dealer-busts side bet pays 5:2 when the dealer ends over 21, else it is lost."""
    return amount * (1 + rules.DEALER_BUSTS_PAYS) if dealer_bust else Fraction(0)
