"""The native hand evaluator against its plain-Python reference (app.hands)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import app.hands as ref
import app.native.handeval as nat
from app.cards import codes, parse_cards

hands = st.lists(st.integers(0, 51), min_size=0, max_size=12)
FUNCS = ["oczko_total", "is_persian", "bj_total", "is_blackjack", "is_triple_seven"]


@pytest.mark.parametrize("name", FUNCS)
@given(hand=hands)
def test_native_matches_reference(name: str, hand: list[int]) -> None:
    assert getattr(nat, name)(hand) == getattr(ref, name)(hand)


@pytest.mark.parametrize("name", FUNCS)
@pytest.mark.parametrize("bad", [[52], [-1], ["As"], [1.5]])
def test_bad_codes_are_errors(name: str, bad: list[object]) -> None:
    # Pad to the length every predicate inspects.
    hand = bad * 3
    for mod in (nat, ref):
        with pytest.raises(ValueError):
            getattr(mod, name)(hand)


@pytest.mark.parametrize(
    ("cards", "total"),
    [("Qs 7h", 10), ("Ks Ah", 15), ("Js Jh", 4), ("As Ah", 22), ("Qd 9s 8c", 20), ("Kh Ts Jd", 16)],
)
def test_oczko_values_from_seed(cards: str, total: int) -> None:
    for mod in (nat, ref):
        assert mod.oczko_total(codes(parse_cards(cards))) == total


@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        ("As 6h", 17, True),
        ("As 6h Td", 17, False),
        ("As 6h 5d", 12, False),
        ("As Ad", 12, True),
        ("Kd Qh", 20, False),
        ("Ts 9h 5c", 24, False),
    ],
)
def test_bj_totals_from_seed(cards: str, total: int, soft: bool) -> None:
    for mod in (nat, ref):
        assert mod.bj_total(codes(parse_cards(cards))) == (total, soft)


def test_predicates() -> None:
    for mod in (nat, ref):
        assert mod.is_persian(codes(parse_cards("As Ah")))
        assert not mod.is_persian(codes(parse_cards("As Ah 2c")))
        assert mod.is_blackjack(codes(parse_cards("As Kh")))
        assert not mod.is_blackjack(codes(parse_cards("7s 7h 7c")))
        assert mod.is_triple_seven(codes(parse_cards("7s 7h 7c")))
        assert not mod.is_triple_seven(codes(parse_cards("7s 7h")))
