"""Cards, ranks, suits, decks: one text notation for the whole app.

A card is written as rank + suit: rank one of ``A23456789TJQK``, suit one of
``shdc`` (spades, hearts, diamonds, clubs).

>>> Card.parse("As")
Card('As')
>>> str(Card.parse("td"))
'Td'
>>> Card.parse("7c").code
27
>>> Card.from_code(27)
Card('7c')
>>> [str(c) for c in parse_cards("As Kd 7c")]
['As', 'Kd', '7c']

The compact integer code (0-51) is what the native side and the protocol use:
``code = (rank - 1) * 4 + suit``, with ranks 1 (ace) to 13 (king).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"


class Rank(enum.IntEnum):
    """Card rank; the value is the rank number (ace 1, ..., king 13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def char(self) -> str:
        """The one-letter notation (``A``, ``2`` ... ``9``, ``T``, ``J``, ``Q``, ``K``)."""
        return RANK_CHARS[self.value - 1]


class Suit(enum.IntEnum):
    """Card suit; the value is the suit's place in ``shdc``."""

    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def char(self) -> str:
        """The one-letter notation (``s``, ``h``, ``d``, ``c``)."""
        return SUIT_CHARS[self.value]


class CardError(ValueError):
    """A card's text or code is not valid."""


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. Immutable, hashable, ordered by code."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``"As"``, ``"Td"``, ``"7c"`` (rank case-insensitive, ``10`` accepted for ``T``)."""
        if not isinstance(text, str):
            raise CardError(f"a card is written as text like 'As', not {type(text).__name__}")
        s = text.strip()
        if len(s) == 3 and s[:2] == "10":
            s = "T" + s[2]
        if len(s) != 2:
            raise CardError(f"{text!r} is not a card: write rank + suit, e.g. 'As', 'Td', '7c'")
        r = RANK_CHARS.find(s[0].upper())
        u = SUIT_CHARS.find(s[1].lower())
        if r < 0:
            raise CardError(f"{text!r}: unknown rank {s[0]!r} (ranks are {RANK_CHARS})")
        if u < 0:
            raise CardError(f"{text!r}: unknown suit {s[1]!r} (suits are {SUIT_CHARS})")
        return cls(Rank(r + 1), Suit(u))

    @classmethod
    def from_code(cls, code: int) -> Card:
        """The card with compact code ``code`` (0-51)."""
        if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code < 52:
            raise CardError(f"card code must be an integer 0-51, not {code!r}")
        return _BY_CODE[code]

    @property
    def code(self) -> int:
        """Compact integer code 0-51: ``(rank - 1) * 4 + suit``."""
        return (self.rank - 1) * 4 + self.suit

    def __str__(self) -> str:
        return self.rank.char + self.suit.char

    def __repr__(self) -> str:
        return f"Card('{self}')"

    def __lt__(self, other: Card) -> bool:
        return self.code < other.code


_BY_CODE: tuple[Card, ...] = tuple(Card(Rank(r), Suit(s)) for r in range(1, 14) for s in range(4))

#: The 52 cards of one deck in code order.
DECK: tuple[Card, ...] = _BY_CODE


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards: ``"As Kd 7c"``, ``"AsKd7c"`` or an iterable of card texts."""
    if isinstance(text, str):
        t = text.replace(",", " ").split()
        if len(t) == 1 and len(t[0]) > 3:
            w = t[0]
            if len(w) % 2:
                raise CardError(f"{text!r} is not a list of cards")
            t = [w[i : i + 2] for i in range(0, len(w), 2)]
        return tuple(Card.parse(x) for x in t)
    return tuple(Card.parse(x) for x in text)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as space-separated text, e.g. ``'As Kd'``."""
    return " ".join(str(c) for c in cards)


def codes(cards: Iterable[Card]) -> list[int]:
    """Compact codes of ``cards`` (for the native side)."""
    return [c.code for c in cards]


def shoe(decks: int = 1) -> tuple[Card, ...]:
    """``decks`` 52-card decks in code order (shuffle with an injected RNG)."""
    if not isinstance(decks, int) or not 1 <= decks <= 8:
        raise CardError(f"a shoe has 1-8 decks, not {decks!r}")
    return DECK * decks


def rank_counts(cards: Sequence[Card]) -> list[int]:
    """Number of cards of each rank, index 0 for aces to 12 for kings."""
    counts = [0] * 13
    for c in cards:
        counts[c.rank - 1] += 1
    return counts
