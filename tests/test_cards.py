"""Card notation and codes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cards import (
    DECK,
    Card,
    CardError,
    Rank,
    Suit,
    format_cards,
    parse_cards,
    rank_counts,
    shoe,
)


def test_deck_has_52_distinct_cards_in_code_order() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert [c.code for c in DECK] == list(range(52))


@given(st.integers(0, 51))
def test_code_and_text_round_trip(code: int) -> None:
    card = Card.from_code(code)
    assert card.code == code
    assert Card.parse(str(card)) == card


def test_notation() -> None:
    assert Card.parse("As") == Card(Rank.ACE, Suit.SPADES)
    assert Card.parse("10h") == Card.parse("Th") == Card(Rank.TEN, Suit.HEARTS)
    assert Card.parse("kD") == Card(Rank.KING, Suit.DIAMONDS)
    assert format_cards(parse_cards("As Kd 7c")) == "As Kd 7c"
    assert parse_cards("AsKd7c") == parse_cards(["As", "Kd", "7c"])


@pytest.mark.parametrize("bad", ["", "A", "Ax", "1s", "Asd", "ZZ", "11s"])
def test_bad_text_is_a_clear_error(bad: str) -> None:
    with pytest.raises(CardError, match=r"card|rank|suit"):
        Card.parse(bad)


@pytest.mark.parametrize("bad", [-1, 52, 1.0, True, "3"])
def test_bad_code_is_a_clear_error(bad: object) -> None:
    with pytest.raises(CardError, match="0-51"):
        Card.from_code(bad)  # type: ignore[arg-type]


def test_shoe_and_counts() -> None:
    s = shoe(6)
    assert len(s) == 312
    assert rank_counts(s) == [24] * 13
    with pytest.raises(CardError):
        shoe(9)
