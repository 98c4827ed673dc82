"""Events of a casino blackjack round: frozen records of everything that happens.

Each event derives from the one :class:`app.rules.engine.Event` base: a stable ``kind``
and :meth:`~app.rules.engine.Event.to_json` (cards as text, money as in
:mod:`app.rules.money`); :data:`EVENTS` reads them back with
:func:`app.rules.engine.decode_event`. Views render them; they never carry translated text.
A face-down card (``DealerCard(face_down=True)``) is carried in the event for replays
and tests; :func:`app.rules.blackjack.view.view_for` hides it (``card`` None) until
:class:`HoleCardRevealed`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from app.cards import Card
from app.rules.engine import Event, event_registry


@dataclass(frozen=True)
class Shuffled(Event):
    """The shoe was shuffled: ``reason`` "cut_card" (between rounds) or "shoe_empty"."""

    kind: ClassVar[str] = "shuffled"
    reason: str


@dataclass(frozen=True)
class BetPlaced(Event):
    """A bet on a box; ``behind`` when placed by someone other than the box owner."""

    kind: ClassVar[str] = "bet"
    player: str
    box: int
    amount: Fraction
    behind: bool


@dataclass(frozen=True)
class SideBetPlaced(Event):
    """A dealer-busts side bet."""

    kind: ClassVar[str] = "side_bet"
    player: str
    amount: Fraction


@dataclass(frozen=True)
class PlayerCard(Event):
    """A card dealt face up to hand ``hand`` (1-based) of box ``box``."""

    kind: ClassVar[str] = "card"
    box: int
    hand: int
    card: Card


@dataclass(frozen=True)
class DealerCard(Event):
    """A card dealt to the dealer; the peek hole card is ``face_down`` (``card`` None
    in a player's view until it is turned)."""

    kind: ClassVar[str] = "dealer_card"
    card: Card | None
    face_down: bool = False


@dataclass(frozen=True)
class HoleCardRevealed(Event):
    """The dealer turns his hole card."""

    kind: ClassVar[str] = "hole_card"
    card: Card


@dataclass(frozen=True)
class InsuranceTaken(Event):
    """An insurance bet (at most half the bettor's stake on the box)."""

    kind: ClassVar[str] = "insurance"
    player: str
    box: int
    amount: Fraction


@dataclass(frozen=True)
class InsuranceDeclined(Event):
    """A bettor declined insurance (or even money)."""

    kind: ClassVar[str] = "insurance_declined"
    player: str
    box: int


@dataclass(frozen=True)
class DealerPeeked(Event):
    """Peek rule: the dealer checked his hole card for blackjack."""

    kind: ClassVar[str] = "peek"
    blackjack: bool


@dataclass(frozen=True)
class PlayerActed(Event):
    """The box owner's decision: "hit", "stand", "double", "split" or "surrender"."""

    kind: ClassVar[str] = "action"
    player: str
    box: int
    hand: int
    action: str


@dataclass(frozen=True)
class DoubleStake(Event):
    """A bettor's stake on a doubled hand: ``followed`` false if he did not double."""

    kind: ClassVar[str] = "double_stake"
    player: str
    box: int
    hand: int
    amount: Fraction
    followed: bool


@dataclass(frozen=True)
class SplitStake(Event):
    """A bettor's stake on a new split hand; ``matched`` false if he could not pay it
    (his stake then stays with the first hand only)."""

    kind: ClassVar[str] = "split_stake"
    player: str
    box: int
    hand: int
    amount: Fraction
    matched: bool


@dataclass(frozen=True)
class HandEnded(Event):
    """A hand finished its play: ``status`` as in :class:`app.rules.blackjack.HandStatus`."""

    kind: ClassVar[str] = "hand_end"
    box: int
    hand: int
    status: str
    total: int


@dataclass(frozen=True)
class DealerDone(Event):
    """The dealer's final hand."""

    kind: ClassVar[str] = "dealer_done"
    cards: tuple[Card, ...]
    total: int
    blackjack: bool
    bust: bool


@dataclass(frozen=True)
class Settled(Event):
    """One bettor's stake on one hand settled: ``returned`` chips go back to him
    (stake included), ``net`` = returned - stake. ``outcome`` is an
    :class:`app.rules.blackjack.settle.Outcome` value."""

    kind: ClassVar[str] = "settled"
    player: str
    box: int
    hand: int
    outcome: str
    stake: Fraction
    returned: Fraction
    net: Fraction


@dataclass(frozen=True)
class InsuranceSettled(Event):
    """An insurance bet settled (2:1 on a dealer blackjack, else lost)."""

    kind: ClassVar[str] = "insurance_settled"
    player: str
    box: int
    amount: Fraction
    won: bool
    returned: Fraction
    net: Fraction


@dataclass(frozen=True)
class SideBetSettled(Event):
    """A dealer-busts side bet settled (5:2 if the dealer busts, else lost)."""

    kind: ClassVar[str] = "side_bet_settled"
    player: str
    amount: Fraction
    won: bool
    returned: Fraction
    net: Fraction


@dataclass(frozen=True)
class RoundSettled(Event):
    """The round is over: each bettor's net result and the house's."""

    kind: ClassVar[str] = "round_settled"
    net: dict[str, Fraction]
    house: Fraction


#: ``{kind: event class}`` for :func:`app.rules.engine.decode_event`.
EVENTS = event_registry(
    Shuffled,
    BetPlaced,
    SideBetPlaced,
    PlayerCard,
    DealerCard,
    HoleCardRevealed,
    InsuranceTaken,
    InsuranceDeclined,
    DealerPeeked,
    PlayerActed,
    DoubleStake,
    SplitStake,
    HandEnded,
    DealerDone,
    Settled,
    InsuranceSettled,
    SideBetSettled,
    RoundSettled,
)


__all__ = [
    "EVENTS",
    "BetPlaced",
    "DealerCard",
    "DealerDone",
    "DealerPeeked",
    "DoubleStake",
    "Event",
    "HandEnded",
    "HoleCardRevealed",
    "InsuranceDeclined",
    "InsuranceSettled",
    "InsuranceTaken",
    "PlayerActed",
    "PlayerCard",
    "RoundSettled",
    "Settled",
    "Shuffled",
    "SideBetPlaced",
    "SideBetSettled",
    "SplitStake",
]
