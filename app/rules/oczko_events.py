"""Events of the Oczko engine: small immutable records of what an action caused.

Every transition of :class:`app.rules.oczko.Match` returns ``(new_state, events)``;
the events say what happened, in order, so that the table can broadcast it and the
UI can animate it. ``event.to_json(names)`` gives a JSON-ready dict with an
``"event"`` key (a stable code) and seats replaced by player names when ``names``
is given.

An event about a card another phone must not see yet (a dealt or drawn card, a
total) is projected for one seat with :func:`redact`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar

from app.cards import Card

#: Fields holding one seat number (rendered as a name when names are given).
_SEAT_FIELDS = frozenset({"seat", "winner"})
#: Fields holding a tuple of seat numbers.
_SEATS_FIELDS = frozenset({"order"})
#: Fields holding a tuple indexed by seat (rendered as {name: value}).
_PER_SEAT_FIELDS = frozenset({"points"})
#: Fields holding ((seat, value), ...) pairs (rendered as {name: value}).
_PAIR_FIELDS = frozenset({"totals", "statuses"})


def _who(seat: int | None, names: Sequence[str] | None) -> Any:
    if seat is None or names is None:
        return seat
    return names[seat]


def _jsonable(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events; ``kind`` is the stable code in ``to_json()["event"]``."""

    kind: ClassVar[str] = "event"

    def to_json(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON-ready dict; with ``names``, seats become names (``"seat"`` becomes ``"player"``)."""
        out: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "seat" and names is not None:
                out["player"] = names[v]
            elif f.name in _SEAT_FIELDS:
                out[f.name] = _who(v, names)
            elif f.name in _SEATS_FIELDS:
                out[f.name] = [_who(s, names) for s in v]
            elif f.name in _PER_SEAT_FIELDS:
                out[f.name] = {str(_who(s, names) if names else s): p for s, p in enumerate(v)}
            elif f.name in _PAIR_FIELDS:
                out[f.name] = {str(_who(s, names) if names else s): _jsonable(x) for s, x in v}
            else:
                out[f.name] = _jsonable(v)
        return out


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    """A round begins; ``order`` is the dealing and turn order (first seat first)."""

    kind: ClassVar[str] = "round_started"
    round: int
    tiebreak: bool
    order: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DeckReplaced(Event):
    """A fresh deck is in use from now on in this round (after a dropout)."""

    kind: ClassVar[str] = "deck_replaced"
    round: int
    deck: int


@dataclass(frozen=True, slots=True)
class CardDealt(Event):
    """One card of the deal went to ``seat``; ``card`` is None when it is hidden."""

    kind: ClassVar[str] = "card_dealt"
    round: int
    seat: int
    card: Card | None


@dataclass(frozen=True, slots=True)
class Persian21(Event):
    """``seat`` was dealt two aces (shown, or proven by a reveal)."""

    kind: ClassVar[str] = "persian21"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    """It is ``seat``'s turn to draw or hold."""

    kind: ClassVar[str] = "turn_started"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """``seat`` drew ``card`` (None when hidden); ``total`` is None when unknown."""

    kind: ClassVar[str] = "card_drawn"
    round: int
    seat: int
    card: Card | None
    total: int | None


@dataclass(frozen=True, slots=True)
class Held(Event):
    """``seat`` holds; ``reason`` is ``"hold"``, ``"timeout"`` or ``"21"`` (automatic)."""

    kind: ClassVar[str] = "held"
    round: int
    seat: int
    total: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Busted(Event):
    """``seat`` is bust: ``reason`` ``"over_21"`` (seen), ``"claim"`` or ``"disconnect"``."""

    kind: ClassVar[str] = "busted"
    round: int
    seat: int
    total: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Disconnected(Event):
    """``seat`` left the table for the rest of the match, during round ``round``."""

    kind: ClassVar[str] = "disconnected"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class Rejoined(Event):
    """``seat``, who had left, is back before round ``round`` is dealt, his points kept.

    A :class:`RoundStarted` with the round's new order follows (or :class:`MatchEnded`
    when his return decides the match).
    """

    kind: ClassVar[str] = "rejoined"
    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    """``seat``'s hidden cards were opened (showdown or Persian 21 proof)."""

    kind: ClassVar[str] = "revealed"
    round: int
    seat: int
    cards: tuple[Card, ...]
    total: int


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
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
class MatchEnded(Event):
    """The match is over; ``reason``: ``"rounds"``, ``"decided"``, ``"tiebreak"`` or
    ``"last_player"``.
    """

    kind: ClassVar[str] = "match_ended"
    winner: int
    reason: str
    points: tuple[int, ...]


def redact(events: Iterable[Event], seat: int | None) -> tuple[Event, ...]:
    """The events as the phone of ``seat`` may see them (None: a spectator).

    Other players' dealt and drawn cards and their totals are hidden; everything
    else (turns, holds, busts, reveals, results) is public.

    >>> from app.cards import Card
    >>> redact([CardDealt(1, 0, Card.parse("As")), CardDealt(1, 1, Card.parse("Kd"))], 0)
    (CardDealt(round=1, seat=0, card=Card('As')), CardDealt(round=1, seat=1, card=None))
    """
    out: list[Event] = []
    for e in events:
        if isinstance(e, CardDealt) and e.seat != seat:
            e = replace(e, card=None)
        elif isinstance(e, CardDrawn) and e.seat != seat:
            e = replace(e, card=None, total=None)
        elif isinstance(e, Held | Busted) and e.seat != seat:
            e = replace(e, total=None)
        out.append(e)
    return tuple(out)
