"""Exact money: parsing and the JSON representation."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.money import MoneyError, money_json, money_text, ratio_text, to_money


def test_six_to_five_on_seven_chips() -> None:
    win = to_money(7) * Fraction(6, 5)
    assert win == Fraction(42, 5)
    assert money_json(win) == "8.4"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (10, Fraction(10)),
        ("8.4", Fraction(42, 5)),
        ("42/5", Fraction(42, 5)),
        (8.4, Fraction(42, 5)),
        ("-2.5", Fraction(-5, 2)),
        (Decimal("1.25"), Fraction(5, 4)),
        (Fraction(1, 3), Fraction(1, 3)),
    ],
)
def test_to_money(value: object, expected: Fraction) -> None:
    assert to_money(value) == expected


@pytest.mark.parametrize(
    "value", [True, None, "abc", "1e3", float("nan"), float("inf"), "1/0", [1]]
)
def test_to_money_refuses(value: object) -> None:
    with pytest.raises(MoneyError):
        to_money(value)


def test_json_forms() -> None:
    assert money_json(Fraction(15)) == 15
    assert money_json(Fraction(-10)) == -10
    assert money_json(Fraction(-5, 2)) == "-2.5"
    assert money_json(Fraction(1, 3)) == "1/3"
    assert money_text(Fraction(1, 8)) == "0.125"
    assert ratio_text(Fraction(3, 2)) == "3:2"


@given(st.fractions(max_denominator=1000))
def test_json_round_trip(q: Fraction) -> None:
    assert to_money(money_json(q)) == q
