"""The native analysis against an independent brute-force referee (tests/bj_referee.py).

The referee shares no code and no tables with the analysis: it deals literally (hole
card first, split hands one after the other from the shoe really left, the dealer
last), card by card.  Small shoes keep it fast; every shoe here holds cards worth more
than two split hands and the dealer can ever use (86 points), so no deal runs out of
cards.  Splits without resplitting: the shoe holds no third card of the pair.
"""

from fractions import Fraction

import pytest
from bj_referee import Game, Referee

import app.native.handeval as nat

# Longer than the default per-test limit (pyproject.toml): the independent referee enumerates
# every pair against every up-card (about 20 s a case quiet).
pytestmark = pytest.mark.timeout(300)

ACTIONS = ("stand", "hit", "double", "split", "surrender")

# (referee game, analysis rules tuple: infinite, h17, enhc, obo, double_on, das, max_hands,
#  rsa, hsa, surrender, triple_seven, split_by_rank, bj_pays)
RULE_SETS = {
    "peek S17 DAS": (Game(), (0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 1.5)),
    "peek H17 no DAS D10 LS 6:5 hit split aces 777": (
        Game(
            h17=True,
            das=False,
            double_on="10-11",
            surrender=True,
            bj_pays=Fraction(6, 5),
            hit_split_aces=True,
            triple_seven=True,
        ),
        (0, 1, 0, 0, 2, 0, 4, 0, 1, 1, 1, 0, 1.2),
    ),
    "ENHC lose all H17 DAS D9": (
        Game(hole="enhc", h17=True, double_on="9-11"),
        (0, 1, 1, 0, 1, 1, 4, 0, 0, 0, 0, 0, 1.5),
    ),
    "ENHC original bets only S17 DAS hit split aces": (
        Game(hole="obo", hit_split_aces=True),
        (0, 0, 1, 1, 0, 1, 2, 0, 1, 0, 0, 0, 1.5),
    ),
}


def small_shoe(up: int, pair: int) -> list[int]:
    """One card of each value and five tens, with exactly the pair (and up card) added."""
    shoe = [1] * 9 + [5]
    shoe[pair] = max(shoe[pair], 2 + (up == pair))
    if pair == 9:
        shoe[9] = 5 + (up == 9)  # the tens: no third pair card
    if up != pair:
        shoe[up] = max(shoe[up], 1)
    return shoe


def native_evs(rules: tuple, shoe: list[int], up: int, a: int, b: int) -> tuple[float, ...]:
    _, evs, probs, _, _ = nat.game_ev(rules, shoe, 1)
    i = up * 55 + a * 10 - a * (a - 1) // 2 + (b - a)
    assert probs[i] > 0
    return tuple(evs[i * 5 : i * 5 + 5])


def test_small_shoes_never_run_out() -> None:
    for up in range(10):
        for pair in range(10):
            shoe = small_shoe(up, pair)
            points = sum((r + 1) * n for r, n in enumerate(shoe))
            assert points > 86
            if pair != 9:  # no third pair card: no resplit
                assert shoe[pair] == 2 + (up == pair)


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_pair_against_every_up_card(name: str) -> None:
    game, rules = RULE_SETS[name]
    for up in range(10):
        for pair in range(10):
            shoe = small_shoe(up, pair)
            # tens stay behind the pair (the dealer needs them): no resplit, two hands
            two = rules if pair != 9 else (*rules[:6], 2, *rules[7:])
            ref = Referee(shoe, game, exact=False)
            evs = native_evs(two, shoe, up, pair, pair)
            assert abs(ref.split_ev(up, pair) - evs[3]) < 1e-9, (name, up, pair)
            other = ref.hand_evs(up, pair, pair)
            for action, value in other.items():
                assert abs(value - evs[ACTIONS.index(action)]) < 1e-9, (name, up, pair, action)


def test_split_is_exact_as_a_fraction() -> None:
    game, rules = RULE_SETS["peek S17 DAS"]
    for up, pair in ((9, 0), (5, 7), (0, 9)):
        shoe = small_shoe(up, pair)
        exact = Referee(shoe, game, exact=True).split_ev(up, pair)
        assert isinstance(exact, Fraction)
        assert abs(float(exact) - native_evs(rules, shoe, up, pair, pair)[3]) < 1e-12


def test_other_two_card_hands_against_every_up_card() -> None:
    for name, (game, rules) in RULE_SETS.items():
        for up in range(10):
            for a, b in ((1, 8), (0, 6), (5, 9)):  # 11, soft 18, 16
                shoe = [1] * 9 + [5]
                for card in (a, b, up):
                    shoe[card] += card != 9
                got = Referee(shoe, game, exact=False).hand_evs(up, a, b)
                evs = native_evs(rules, shoe, up, a, b)
                for action, value in got.items():
                    assert abs(value - evs[ACTIONS.index(action)]) < 1e-9, (name, up, a, b)


def test_six_deck_aces_against_a_ten_is_the_issues_published_value() -> None:
    # issue 14: 6 decks, S17, DAS, split to 4 by value, peek: AA v T 18.198761677 %
    shoe = [24] * 9 + [96]
    ref = Referee(shoe, Game(), exact=False).split_ev(9, 0)
    native = native_evs((0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 1.5), shoe, 9, 0, 0)[3]
    assert abs(ref - native) < 1e-9
    assert round(100 * native, 9) == 18.198761677
