"""Events of the Oczko engine: small immutable records of what an action caused.

Every transition of :class:`app.rules.oczko.Match` returns ``(new_state, events)``;
the events say what happened, in order, so that the table can broadcast it and the
UI can animate it. ``event.to_json(names)`` gives a JSON-ready dict with an
``"event"`` key (a stable code) and seats replaced by player names when ``names``
is given.

Every event derives from the one :class:`app.rules.engine.Event` base (one
``to_json``; :data:`EVENTS` reads them back with :func:`app.rules.engine.decode_event`).
An event about a card another phone must not see yet (a dealt or drawn card, a total) is
projected for one seat by :func:`app.rules.oczko.views.view_for` (its event part is
:func:`app.rules.oczko.views.redact`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from app.cards import Card
from app.rules.engine import Event, event_registry


@dataclass(frozen=True, slots=True)
class OczkoEvent(Event):
    """Base of the Oczko events: names the fields that hold seats (for ``names``)."""

    seat_fields: ClassVar[frozenset[str]] = frozenset({"seat", "winner"})
    seats_fields: ClassVar[frozenset[str]] = frozenset({"order"})
    per_seat_fields: ClassVar[frozenset[str]] = frozenset({"points"})
    pair_fields: ClassVar[frozenset[str]] = frozenset({"totals", "statuses"})


@dataclass(frozen=True, slots=True)
class RoundStarted(OczkoEvent):
    """A round begins; ``order`` is the dealing and turn order (first seat first)."""

    kind: ClassVar[str] = "round_started"
    round: int
    tiebreak: bool
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DeckReplaced(OczkoEvent):
    """A fresh deck is in use from now on in this round (after a dropout)."""

    kind: ClassVar[str] = "deck_replaced"
    round: int
    deck: int


@dataclass(frozen=True, slots=True)
class CardDealt(OczkoEvent):
    """One card of the deal went to ``seat``; ``card`` is None when it is hidden."""

    kind: ClassVar[str] = "card_dealt"
    round: int
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class Persian21(OczkoEvent):
    """``seat`` was dealt two aces (shown, or proven by a reveal)."""

    kind: ClassVar[str] = "persian21"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class TurnStarted(OczkoEvent):
    """It is ``seat``'s turn to draw or hold."""

    kind: ClassVar[str] = "turn_started"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class CardDrawn(OczkoEvent):
    """``seat`` drew ``card`` (None when hidden); ``total`` is None when unknown."""

    kind: ClassVar[str] = "card_drawn"
    round: int
    seat: int
    card: Card | None
    total: int | None


@dataclass(frozen=True, slots=True)
class Held(OczkoEvent):
    """``seat`` holds; ``reason`` is ``"hold"``, ``"timeout"`` or ``"21"`` (automatic)."""

    kind: ClassVar[str] = "held"
    round: int
    seat: int
    total: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Busted(OczkoEvent):
    """``seat`` is bust: ``reason`` ``"over_21"`` (seen), ``"claim"`` or ``"disconnect"``."""

    kind: ClassVar[str] = "busted"
    round: int
    seat: int
    total: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Disconnected(OczkoEvent):
    """``seat`` left the table for the rest of the match, during round ``round``."""

    kind: ClassVar[str] = "disconnected"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class Rejoined(OczkoEvent):
    """``seat``, who had left, is back before round ``round`` is dealt, his points kept.

    A :class:`RoundStarted` with the round's new order follows (or :class:`MatchEnded`
    when his return decides the match).
    """

    kind: ClassVar[str] = "rejoined"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class Revealed(OczkoEvent):
    """``seat``'s hidden cards were opened (showdown or Persian 21 proof)."""

    kind: ClassVar[str] = "revealed"
    round: int
    seat: int
    cards: tuple[Card, ...]
    total: int


@dataclass(frozen=True, slots=True)
class RoundEnded(OczkoEvent):
    """The round is decided; ``winner`` None means no point (tie at the top or nobody).

    ``reason``: ``"persian"``, ``"showdown"`` or ``"last_player"``. ``totals`` and
    ``statuses`` are ``(seat, value)`` pairs (a total is None when it stayed hidden);
    ``points`` are everybody's points after this round, indexed by seat.
    """

    kind: ClassVar[str] = "round_ended"
    round: int
    tiebreak: bool
    winner: int | None
    reason: str
    totals: tuple[tuple[int, int | None], ...]
    statuses: tuple[tuple[int, str], ...]
    points: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(OczkoEvent):
    """The match is over; ``reason``: ``"rounds"``, ``"decided"``, ``"tiebreak"`` or
    ``"last_player"``.
    """

    kind: ClassVar[str] = "match_ended"
    winner: int
    reason: str
    points: tuple[int, ...]


#: ``{kind: event class}`` for :func:`app.rules.engine.decode_event`.
EVENTS = event_registry(
    RoundStarted,
    DeckReplaced,
    CardDealt,
    Persian21,
    TurnStarted,
    CardDrawn,
    Held,
    Busted,
    Disconnected,
    Rejoined,
    Revealed,
    RoundEnded,
    MatchEnded,
)


__all__ = [
    "EVENTS",
    "Busted",
    "CardDealt",
    "CardDrawn",
    "DeckReplaced",
    "Disconnected",
    "Event",
    "Held",
    "MatchEnded",
    "OczkoEvent",
    "Persian21",
    "Rejoined",
    "Revealed",
    "RoundEnded",
    "RoundStarted",
    "TurnStarted",
]
