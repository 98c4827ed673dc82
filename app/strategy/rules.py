"""Table rules as the analysis sees them: a tuple of numbers, and shoe compositions.

Any object with the agreed ``TableRules`` attribute names works (read with ``getattr``),
so this module does not depend on the casino engine's class.

>>> shoe_counts(1)
[4, 4, 4, 4, 4, 4, 4, 4, 4, 16]
>>> value_index(1), value_index(9), value_index(13)
(0, 8, 9)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

#: Short names of the value indexes 0-9 (ten-valued cards share index 9).
VALUE_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")

_DOUBLE = {"any": 0, "9-11": 1, "10-11": 2}


def value_index(rank: int) -> int:
    """Value index 0-9 of a rank 1-13 (ace 0, ten and faces 9)."""
    if not isinstance(rank, int) or not 1 <= rank <= 13:
        raise ValueError(f"a rank is 1-13, not {rank!r}")
    return min(rank, 10) - 1


def shoe_counts(decks: int) -> list[int]:
    """Cards of each value index in a full shoe of ``decks`` decks."""
    if not isinstance(decks, int) or not 1 <= decks <= 8:
        raise ValueError(f"a shoe has 1-8 decks, not {decks!r}")
    return [4 * decks] * 9 + [16 * decks]


def infinite_counts() -> list[float]:
    """The infinite-deck composition as probabilities (13ths)."""
    return [1 / 13] * 9 + [4 / 13]


#: The 13 numbers of :data:`app.native.handeval.RULE_FIELDS`, in that order: flags and counts,
#: then what a natural pays.
AnalysisRules = tuple[int, int, int, int, int, int, int, int, int, int, int, int, float]


def _get(rules: object, name: str, default: object) -> Any:
    # Any: the field's type is whatever the caller's rules object holds; callers convert.
    return getattr(rules, name, default)


def analysis_rules(rules: object, *, infinite: bool = False) -> AnalysisRules:
    """The 13-value rules tuple of :data:`app.native.handeval.RULE_FIELDS` for ``rules``."""
    hole = _get(rules, "hole_card", "peek")
    if hole not in ("peek", "enhc"):
        raise ValueError(f"hole_card must be 'peek' or 'enhc', not {hole!r}")
    double_on = _get(rules, "double_on", "any")
    if double_on not in _DOUBLE:
        raise ValueError(f"double_on must be one of {tuple(_DOUBLE)}, not {double_on!r}")
    split_by = _get(rules, "split_by", "rank")
    if split_by not in ("rank", "value"):
        raise ValueError(f"split_by must be 'rank' or 'value', not {split_by!r}")
    enhc = hole == "enhc"
    obo = enhc and bool(_get(rules, "enhc_original_bets_only", False))
    late = bool(_get(rules, "late_surrender", False))
    as_after_peek = bool(_get(rules, "enhc_late_surrender", False))
    if late and enhc:
        raise ValueError("late surrender needs the peek (American hole card)")
    if as_after_peek and not obo:
        raise ValueError("surrender as if after the peek needs ENHC with original bets only")
    surrender = late or as_after_peek
    max_hands = int(_get(rules, "max_hands", 4))
    if not 1 <= max_hands <= 8:
        raise ValueError(f"max_hands must be 1-8, not {max_hands}")
    return (
        int(infinite),
        int(bool(_get(rules, "dealer_hits_soft_17", False))),
        int(enhc),
        int(obo),
        _DOUBLE[double_on],
        int(bool(_get(rules, "double_after_split", True))),
        max_hands,
        int(bool(_get(rules, "resplit_aces", False))),
        int(bool(_get(rules, "hit_split_aces", False))),
        int(surrender),
        int(bool(_get(rules, "triple_seven", False))),
        int(split_by == "rank"),
        float(Fraction(_get(rules, "blackjack_pays", Fraction(3, 2)))),
    )


def describe(rules: object, *, infinite: bool = False) -> str:
    """One line naming the rules that matter for the edge, e.g. ``6D S17 3:2 DAS ...``;
    ``infinite``: the analysis ignores the decks (an infinite deck)."""
    pays = Fraction(_get(rules, "blackjack_pays", Fraction(3, 2)))
    parts = [
        "infinite deck" if infinite else f"{_get(rules, 'decks', 6)}D",
        "H17" if _get(rules, "dealer_hits_soft_17", False) else "S17",
        f"BJ {pays.numerator}:{pays.denominator}",
        "ENHC" + (" OBO" if _get(rules, "enhc_original_bets_only", False) else "")
        if _get(rules, "hole_card", "peek") == "enhc"
        else "peek",
        f"double {_get(rules, 'double_on', 'any')}",
        "DAS" if _get(rules, "double_after_split", True) else "no DAS",
        f"split to {_get(rules, 'max_hands', 4)} by {_get(rules, 'split_by', 'rank')}",
    ]
    if _get(rules, "resplit_aces", False):
        parts.append("RSA")
    if _get(rules, "hit_split_aces", False):
        parts.append("hit split aces")
    if _get(rules, "late_surrender", False):
        parts.append("late surrender")
    if _get(rules, "enhc_late_surrender", False):
        parts.append("surrender as after the peek")
    if _get(rules, "triple_seven", False):
        parts.append("777 pays 3:2")
    return ", ".join(parts)
