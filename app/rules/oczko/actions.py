"""The actions of an Oczko match: kinds (an enum whose values are the wire codes) and
action values, as sent over the table, stored in scenario files and replayed.

>>> from app.cards import Card
>>> Action("draw", 1, (Card.parse("7h"),)).to_json()
{'action': 'draw', 'seat': 1, 'cards': ['7h']}
>>> Action.from_json({"action": "hold", "seat": 0}).kind is ActionKind.HOLD
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.cards import Card
from app.rules.engine import Engine, Event, LegalAction
from app.rules.errors import IllegalAction

#: the match an action applies to (``oczko_match.Match``, which imports this module:
#: named here through the engine contract, so the two never import each other)
M = TypeVar("M", bound="Engine[Action, Event]")

#: Every ``IllegalAction.code`` the Oczko engine raises (the UI translates these).
ERROR_CODES: tuple[str, ...] = (
    "already_decided", "bad_action", "bad_card", "bad_message", "cannot_draw", "claim_due",
    "duplicate_card", "false_claim", "hidden_card", "illegal_action", "inconsistent_hand",
    "match_over", "not_in_round", "not_your_turn", "nothing_to_reveal", "player_gone",
    "unknown_seat", "wrong_phase",
)  # fmt: skip


class ActionKind(enum.StrEnum):
    """Every action of a match. Values are the stable codes of the JSON form (frames,
    scenario files, replays); a kind compares equal to its code."""

    DEAL = "deal"
    CLOSE_DEAL = "close_deal"
    NEW_DECK = "new_deck"
    DRAW = "draw"
    HOLD = "hold"
    TIMEOUT = "timeout"
    BUST = "bust"
    DISCONNECT = "disconnect"
    REJOIN = "rejoin"
    REVEAL = "reveal"
    FORFEIT = "forfeit"

    def action_for(self, legal: LegalAction[ActionKind, int], value: Any = None) -> Action:
        """The :class:`Action` of ``legal``: ``value`` is the card of a deal or draw (None:
        hidden on this phone) or the cards of a reveal."""
        if self in CARD_ACTIONS:
            cards: tuple[Card | None, ...] = (value,)
        elif value is None:
            cards = ()
        else:
            cards = tuple(value) if isinstance(value, Iterable) else (value,)
        return Action(self, legal.player, cards)


#: Action kinds that name a seat.
SEAT_ACTIONS: tuple[ActionKind, ...] = (
    ActionKind.DRAW, ActionKind.HOLD, ActionKind.TIMEOUT, ActionKind.BUST,
    ActionKind.DISCONNECT, ActionKind.REJOIN, ActionKind.REVEAL, ActionKind.FORFEIT,
)  # fmt: skip
#: Action kinds of the table itself.
TABLE_ACTIONS: tuple[ActionKind, ...] = (
    ActionKind.DEAL, ActionKind.CLOSE_DEAL, ActionKind.NEW_DECK,
)  # fmt: skip
#: Action kinds that carry exactly one card (None when it is hidden on this phone).
CARD_ACTIONS = frozenset({ActionKind.DEAL, ActionKind.DRAW})


@dataclass(frozen=True, slots=True)
class Action:
    """One action as a value: ``kind`` one of :data:`SEAT_ACTIONS` or :data:`TABLE_ACTIONS`
    (its code is accepted too); ``seat`` for a seat's action; ``cards`` the card of a deal
    or draw (``(None,)`` when hidden) or the cards of a reveal. An unknown kind is
    IllegalAction ``bad_action``."""

    kind: ActionKind
    seat: int | None = None
    cards: tuple[Card | None, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.kind, ActionKind):
            return
        if not isinstance(self.kind, str) or self.kind not in ActionKind.__members__.values():
            raise IllegalAction(
                "bad_action", f"unknown action {self.kind!r}", action=repr(self.kind)
            )
        object.__setattr__(self, "kind", ActionKind(self.kind))

    def check_shape(self) -> None:
        """IllegalAction ``bad_action`` unless the value has what its kind needs."""
        k, cs = self.kind, self.cards
        if k in CARD_ACTIONS and len(cs) != 1:
            raise IllegalAction("bad_action", f"{k} carries exactly one card (or null)")
        if k in SEAT_ACTIONS and self.seat is None:
            raise IllegalAction("bad_action", f"{k} needs a seat")
        if k in TABLE_ACTIONS and self.seat is not None:
            raise IllegalAction("bad_action", f"{k} is the table's action, not a seat's")
        if k is ActionKind.REVEAL and any(c is None for c in cs):
            raise IllegalAction("bad_action", "a reveal shows every card")

    def apply(self, m: M) -> tuple[M, tuple[Event, ...]]:
        """Apply this action to match ``m`` (same as ``m.apply(self)``)."""
        return m.apply(self)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (omits empty fields)."""
        out: dict[str, Any] = {"action": self.kind.value}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.cards:
            out["cards"] = [None if c is None else str(c) for c in self.cards]
        return out

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Parse :meth:`to_json` output; IllegalAction ``bad_action`` on malformed data."""
        if not isinstance(data, dict) or not isinstance(data.get("action"), str):
            raise IllegalAction("bad_action", f"not an action: {data!r}")
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise IllegalAction("bad_action", f"seat must be an integer, not {seat!r}")
        raw = data.get("cards", [])
        if not isinstance(raw, list):
            raise IllegalAction("bad_action", "cards must be a list")
        try:
            cards = tuple(None if c is None else Card.parse(c) for c in raw)
        except ValueError as exc:
            raise IllegalAction("bad_card", str(exc)) from exc
        return cls(data["action"], seat, cards)


__all__ = ["CARD_ACTIONS", "ERROR_CODES", "SEAT_ACTIONS", "TABLE_ACTIONS", "Action", "ActionKind"]
