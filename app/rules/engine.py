"""The one contract both rules engines (blackjack and Oczko) implement.

A game state is an immutable value. ``state.apply(action)`` returns ``(new_state,
events)`` or raises :class:`~app.rules.errors.IllegalAction` (a stable ``code``) and
changes nothing; ``state.legal_actions(player)`` lists what may be done now as
:class:`LegalAction` values, computed by the same checks ``apply`` runs (one source of
legality, in the spirit of pokerkit's ``can_``/``verify_``); ``state.over`` says the game
is finished. No engine holds a card it was not given: a card comes in as the value of
a table action (no player): Oczko's deal and draw, blackjack's ``card``; a state that
waits for one lists exactly that action, and whoever holds the cards (a shoe on this
phone, the SRA deck or shoe across phones) supplies it. Every event derives from
:class:`Event` and has one :meth:`Event.to_json`; :func:`decode_event` reads it back.
What a player may see is decided in exactly one place per game, its
``view_for(state, player)`` (:mod:`app.rules.blackjack.view`, :mod:`app.rules.oczko.views`):
presenters, the history and replays render that view and never hide anything themselves.

Driving any engine through the contract (the bots, the tests and the replay all do):

>>> from app.cards import Card
>>> from app.rules.blackjack import Round
>>> from app.rules.table_rules import TableRules
>>> state = Round.new(TableRules(), {"ann": 100})
>>> bet = next(a for a in state.legal_actions("ann") if a.kind.value == "bet")
>>> bet.min_amount, bet.max_amount        # the amount range the table allows
(Fraction(10, 1), Fraction(100, 1))
>>> state, events = state.apply(bet.action(10))
>>> [e.to_json() for e in events]
[{'event': 'bet', 'player': 'ann', 'box': 1, 'amount': 10, 'behind': False}]
>>> deal, = [a for a in state.legal_actions() if a.player is None]
>>> state, events = state.apply(deal.action())

Cards come in as actions (the engines never shuffle or hold a deck): a round that
waits for one lists the table's card action (no player), which carries the card:

>>> [(a.kind.value, a.player, a.box) for a in state.legal_actions()]
[('card', None, 1)]
>>> for text in ["As", "9d", "Kh", "7c"]:
...     state, events = state.apply(state.legal_actions()[0].action(Card.parse(text)))
>>> state.over, [e.kind for e in events][-1]
(True, 'round_settled')
>>> from app.rules.blackjack.events import EVENTS
>>> decode_event(events[-1].to_json(), EVENTS) == events[-1]
True

An illegal action raises its code and leaves the state as it was:

>>> from app.rules.errors import IllegalAction
>>> try:
...     state.apply(bet.action(10))
... except IllegalAction as exc:
...     print(exc.code)
wrong_phase

The same loop drives Oczko; a card (the deck is an input, the engine never shuffles)
is the value of a deal or a draw:

>>> from app.rules.oczko import Match, OczkoOptions
>>> m, _ = Match.new(2, OczkoOptions(rounds=1))
>>> [(a.kind.value, a.player) for a in m.legal_actions()][:2]
[('deal', None), ('new_deck', None)]
>>> for text in ["Qs", "Kh", "7s", "9h"]:
...     m, _ = m.apply(m.legal_actions()[0].action(Card.parse(text)))
>>> sorted(a.kind.value for a in m.legal_actions(0))
['disconnect', 'draw', 'hold', 'timeout']
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from app.cards import Card
from app.rules.money import Money, money_json, to_money


class ActionKind(Protocol):
    """What a game's action-kind enum offers (a ``StrEnum`` whose values are the stable
    JSON codes, with a method that builds the game's action for a legal choice)."""

    @property
    def value(self) -> str:
        """The stable code."""
        ...

    def action_for(self, legal: Any, value: Any = None) -> Any:
        """The game's action for ``legal`` carrying ``value``."""
        ...


K = TypeVar("K", bound=ActionKind)
P = TypeVar("P")
A_contra = TypeVar("A_contra", contravariant=True)
E_co = TypeVar("E_co", covariant=True)


def _json_value(v: Any) -> Any:
    if isinstance(v, enum.Enum):
        return v.value
    if isinstance(v, Fraction):
        return money_json(v)
    if isinstance(v, Card):
        return str(v)
    if isinstance(v, tuple | list):
        return [_json_value(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    return v


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event of every game: a frozen record with a stable ``kind``.

    :meth:`to_json` gives ``{"event": kind, field: value, ...}`` (cards as text, money as
    in :mod:`app.rules.money`). A game whose events name seats lists those fields in the
    class variables below; with ``names`` a seat becomes a player name (and ``"seat"``
    becomes ``"player"``).
    """

    kind: ClassVar[str] = "event"
    #: fields holding one seat number
    seat_fields: ClassVar[frozenset[str]] = frozenset()
    #: fields holding a tuple of seat numbers
    seats_fields: ClassVar[frozenset[str]] = frozenset()
    #: fields holding a tuple indexed by seat (rendered as ``{seat: value}``)
    per_seat_fields: ClassVar[frozenset[str]] = frozenset()
    #: fields holding ``((seat, value), ...)`` pairs (rendered as ``{seat: value}``)
    pair_fields: ClassVar[frozenset[str]] = frozenset()

    def to_json(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON-ready dict; with ``names``, seats become names."""

        def who(seat: Any) -> Any:
            return seat if seat is None or names is None else names[seat]

        out: dict[str, Any] = {"event": self.kind}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "seat" and f.name in self.seat_fields and names is not None:
                out["player"] = names[v]
            elif f.name in self.seat_fields:
                out[f.name] = who(v)
            elif f.name in self.seats_fields:
                out[f.name] = [who(s) for s in v]
            elif f.name in self.per_seat_fields:
                out[f.name] = {str(who(s)): _json_value(x) for s, x in enumerate(v)}
            elif f.name in self.pair_fields:
                out[f.name] = {str(who(s)): _json_value(x) for s, x in v}
            else:
                out[f.name] = _json_value(v)
        return out


def event_registry(*classes: type[Event]) -> dict[str, type[Event]]:
    """``{kind: class}`` for :func:`decode_event`; refuses two classes with one kind."""
    out: dict[str, type[Event]] = {}
    for c in classes:
        if c.kind in out:
            raise ValueError(f"two events have the kind {c.kind!r}")
        out[c.kind] = c
    return out


def _decode(hint: Any, v: Any) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if v is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _decode(inner[0], v)
    if hint is Card:
        return Card.parse(v)
    if hint is Fraction:
        return to_money(v)
    if origin is tuple:
        if not isinstance(v, list):
            raise ValueError(f"a list expected, not {v!r}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], x) for x in v)
        return tuple(_decode(a, x) for a, x in zip(args, v, strict=True))
    if origin is dict:
        if not isinstance(v, dict):
            raise ValueError(f"an object expected, not {v!r}")
        return {_decode(args[0], k): _decode(args[1], x) for k, x in v.items()}
    if hint in (int, str, bool) and type(v) is not hint:
        raise ValueError(f"{hint.__name__} expected, not {v!r}")
    return v


def decode_event(data: Any, registry: Mapping[str, type[Event]]) -> Event:
    """The event that :meth:`Event.to_json` (without names) wrote; ValueError if malformed.

    >>> from app.rules.oczko.events import EVENTS, RoundEnded
    >>> e = RoundEnded(1, False, 0, "showdown", ((0, 20), (1, None)), ((0, "held"),), (1, 0))
    >>> decode_event(e.to_json(), EVENTS) == e
    True
    """
    if not isinstance(data, Mapping) or data.get("event") not in registry:
        raise ValueError(f"not an event of this game: {data!r}")
    cls = registry[data["event"]]
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            raise ValueError(f"{cls.kind} lacks {f.name!r}")
        v = data[f.name]
        hint = hints[f.name]
        if f.name in cls.per_seat_fields:
            if not isinstance(v, dict):
                raise ValueError(f"{f.name} must be an object")
            item = typing.get_args(hint)[0]
            values[f.name] = tuple(_decode(item, v[str(s)]) for s in range(len(v)))
        elif f.name in cls.pair_fields:
            if not isinstance(v, dict):
                raise ValueError(f"{f.name} must be an object")
            item = typing.get_args(typing.get_args(hint)[0])[1]
            values[f.name] = tuple((int(s), _decode(item, x)) for s, x in v.items())
        else:
            values[f.name] = _decode(hint, v)
    return cls(**values)


@dataclass(frozen=True)
class LegalAction(Generic[K, P]):
    """One action allowed now, the same shape in every game.

    ``kind`` is the game's action-kind enum (its values are the stable JSON codes);
    ``player`` who acts (a blackjack player's name, an Oczko seat; None: the table or the
    dealer); ``box`` and ``hand`` where (blackjack); an action that needs an amount takes
    one in ``[min_amount, max_amount]`` (``min_amount`` None: any positive amount).
    :meth:`action` builds the action for this choice.
    """

    kind: K
    player: P | None = None
    box: int | None = None
    hand: int | None = None
    min_amount: Money | None = None
    max_amount: Money | None = None

    def action(self, value: Any = None) -> Any:
        """The game's action for this choice; ``value`` is what the action carries
        (a blackjack amount, an Oczko card or cards)."""
        return self.kind.action_for(self, value)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        out: dict[str, Any] = {"action": self.kind.value}
        for name in ("player", "box", "hand"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.min_amount is not None:
            out["min"] = money_json(self.min_amount)
        if self.max_amount is not None:
            out["max"] = money_json(self.max_amount)
        return out


def kinds_of(legal: Sequence[LegalAction[Any, Any]]) -> frozenset[str]:
    """The action codes among ``legal`` (what a screen enables its buttons from)."""
    return frozenset(a.kind.value for a in legal)


class Engine(Protocol[A_contra, E_co]):
    """What every game state offers (``Round`` for blackjack, ``Match`` for Oczko)."""

    @property
    def over(self) -> bool:
        """The game is finished: no action is legal any more."""
        ...

    def apply(self, action: A_contra) -> tuple[Self, tuple[E_co, ...]]:
        """The next state and the events ``action`` caused; IllegalAction otherwise."""
        ...

    def legal_actions(self, player: Any = None) -> tuple[LegalAction[Any, Any], ...]:
        """Every action allowed now (only ``player``'s when given)."""
        ...


__all__ = [
    "ActionKind",
    "Engine",
    "Event",
    "LegalAction",
    "decode_event",
    "event_registry",
    "kinds_of",
]
