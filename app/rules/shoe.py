"""The dealing shoe: N decks, a cut card, randomness injected.

The shoe is an immutable value: :meth:`Shoe.draw` returns the card and the shoe
without it. Its randomness is part of its state: a 256-bit ``seed`` taken once from an
injected random source (``secrets.SystemRandom()`` in play, ``random.Random(seed)`` in
tests); shuffle number n is a pure function of (seed, n). So the same shoe always
reshuffles the same way, and replaying a round from a saved state cannot diverge.
A scripted shoe (:meth:`Shoe.scripted`) has no seed and never reshuffles.

>>> import random
>>> s = Shoe.shuffled(decks=1, penetration=Fraction(3, 4), rng=random.Random(7))
>>> s.remaining, s.cut
(52, 39)
>>> card, s2 = s.draw()
>>> s2.remaining
51
>>> Shoe.scripted("As Kd").draw()[0]
Card('As')

Reshuffles: between rounds, :meth:`for_next_round` reshuffles the whole shoe once the
cut card has come out. If a round empties the shoe, the discards of earlier rounds
are shuffled into a new shoe (cards on the table stay out), as dealers do.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Protocol

from app.cards import Card, format_cards, parse_cards
from app.cards import shoe as full_shoe


class RandomSource(Protocol):
    """What the shoe needs of a random source (``random.Random``, ``SystemRandom``)."""

    def getrandbits(self, k: int, /) -> int: ...


def _shuffled(cards: Iterable[Card], seed: int, n: int) -> list[Card]:
    """Shuffle number ``n`` of the shoe with ``seed``: a pure function of its inputs."""
    order = list(cards)
    random.Random(f"blu21-shoe:{seed}:{n}").shuffle(order)
    return order


class ShoeEmpty(RuntimeError):
    """A scripted shoe (no random source) ran out of cards."""


class ShoeError(ValueError):
    """A scripted shoe order that no real shoe could hold."""


@dataclass(frozen=True)
class Shoe:
    """An ordered shoe. ``cards[position:]`` are still to come."""

    cards: tuple[Card, ...]
    decks: int
    #: Index of the cut card: once ``position >= cut`` the shoe is due for a reshuffle.
    cut: int
    position: int = 0
    #: Where the current round started (cards before it are discards).
    round_start: int = 0
    #: Number of shuffles so far (full and emergency).
    shuffles: int = 0
    #: The shoe's randomness (None: scripted, never reshuffled); see the module doc.
    seed: int | None = field(default=None, repr=False)
    #: Share of the shoe dealt before the cut card (kept for the next shuffle).
    penetration: Fraction = Fraction(1)

    @classmethod
    def shuffled(cls, decks: int, penetration: Fraction, rng: RandomSource) -> Shoe:
        """A freshly shuffled shoe of ``decks`` decks with the cut card at ``penetration``;
        its seed is drawn from ``rng`` once."""
        return cls.seeded(decks, penetration, rng.getrandbits(256))

    @classmethod
    def seeded(cls, decks: int, penetration: Fraction, seed: int, shuffles: int = 0) -> Shoe:
        """The shoe of ``seed`` after shuffle number ``shuffles + 1`` (deterministic)."""
        order = _shuffled(full_shoe(decks), seed, shuffles + 1)
        cut = int(len(order) * Fraction(penetration))
        return cls(tuple(order), decks, cut, 0, 0, shuffles + 1, seed, Fraction(penetration))

    @classmethod
    def stacked(
        cls,
        prefix: str | Iterable[str | Card],
        decks: int,
        penetration: Fraction,
        rng: RandomSource,
    ) -> Shoe:
        """A shoe whose first cards are ``prefix`` and the rest shuffled by ``rng``
        (trainers that practise a situation; tests that need pairs and aces)."""
        head = cls.scripted(prefix, decks).cards
        rest = Counter(full_shoe(decks))
        rest.subtract(head)
        seed = rng.getrandbits(256)
        cards = head + tuple(_shuffled(rest.elements(), seed, 1))
        cut = int(len(cards) * Fraction(penetration))
        return cls(cards, decks, cut, 0, 0, 1, seed, Fraction(penetration))

    @classmethod
    def scripted(cls, cards: str | Iterable[str | Card], decks: int = 8) -> Shoe:
        """A shoe dealing exactly ``cards`` in order (tests, scenarios); no reshuffle.

        Refuses an order holding a card more often than ``decks`` decks contain it.
        """
        if isinstance(cards, str):
            order = parse_cards(cards)
        else:
            order = tuple(c if isinstance(c, Card) else Card.parse(c) for c in cards)
        too_many = sorted(str(c) for c, n in Counter(order).items() if n > decks)
        if too_many:
            raise ShoeError(
                f"a {decks}-deck shoe holds each card {decks} time(s); too many of {too_many}"
            )
        return cls(order, decks, len(order))

    @property
    def remaining(self) -> int:
        """Cards still in the shoe."""
        return len(self.cards) - self.position

    @property
    def due(self) -> bool:
        """The cut card has come out: reshuffle before the next round."""
        return self.position >= self.cut

    def upcoming(self) -> tuple[Card, ...]:
        """The cards still to come, in order (tests and replays only)."""
        return self.cards[self.position :]

    def discards(self) -> tuple[Card, ...]:
        """Cards of earlier rounds since the last shuffle."""
        return self.cards[: self.round_start]

    def for_next_round(self) -> tuple[Shoe, bool]:
        """The shoe ready for a new round and whether it was reshuffled."""
        if self.due and self.seed is not None:
            return Shoe.seeded(self.decks, self.penetration, self.seed, self.shuffles), True
        return replace(self, round_start=self.position), False

    def draw(self) -> tuple[Card, Shoe]:
        """The next card and the shoe after it (see :meth:`draw_with_reshuffle`)."""
        card, shoe, _ = self.draw_with_reshuffle()
        return card, shoe

    def draw_with_reshuffle(self) -> tuple[Card, Shoe, bool]:
        """The next card, the shoe after it, and whether the discards had to be
        reshuffled first because the shoe ran empty mid-round."""
        shoe, reshuffled = self, False
        if shoe.position >= len(shoe.cards):
            if shoe.seed is None or shoe.round_start == 0:
                raise ShoeEmpty(f"the shoe is empty after {len(shoe.cards)} cards")
            order = _shuffled(shoe.cards[: shoe.round_start], shoe.seed, shoe.shuffles + 1)
            # Cards of this round are on the table: the new shoe is the old discards.
            # Cut 0: the whole shoe is reshuffled before the next round.
            shoe = replace(
                shoe,
                cards=tuple(order),
                cut=0,
                position=0,
                round_start=0,
                shuffles=shoe.shuffles + 1,
            )
            reshuffled = True
        card = shoe.cards[shoe.position]
        return card, replace(shoe, position=shoe.position + 1), reshuffled

    def __str__(self) -> str:
        head = format_cards(self.upcoming()[:6])
        return f"Shoe({self.decks} decks, {self.remaining} left: {head} ...)"
