"""The actions of a blackjack round: kinds, action values, refusal codes.

Every action is an :class:`Action` value with an :class:`ActionKind` (its value is the
stable code used in JSON, scenario files and the history). The round lists what is
allowed now as :class:`app.rules.engine.LegalAction` values; ``legal.action(amount)``
builds the action (for the table's :attr:`ActionKind.CARD`, ``legal.action(card)``).

Cards come in as actions, as in Oczko: the round holds no shoe. When it needs a card
(the deal, a hit, a double, a split hand's second card, the dealer's cards) its phase is
``dealing`` and its one legal action is the table action ``card`` (no player) naming
the box and hand, or the dealer (box None), that takes it; ``Action.deal_card(c)`` carries
the card. Whoever holds the cards (a :class:`~app.rules.shoe.Shoe` on this phone, the
SRA shoe across phones) supplies them (:mod:`app.rules.blackjack.deal`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from app.cards import Card
from app.rules.engine import LegalAction
from app.rules.errors import IllegalAction
from app.rules.money import Money, money_json, to_money

#: Every ``IllegalAction.code`` the round raises (the UI translates these).
ERROR_CODES: tuple[str, ...] = (
    "bad_action", "unknown_action", "wrong_phase", "player_required", "unknown_player",
    "bad_amount", "bad_box", "insufficient_chips", "no_bets", "bet_below_limit",
    "bet_above_limit", "already_bet", "box_taken", "side_bet_not_offered",
    "side_bet_needs_bet", "no_insurance_decision", "insurance_above_half", "no_blackjack",
    "not_your_turn", "cannot_hit", "cannot_stand", "cannot_double", "cannot_split",
    "cannot_surrender", "no_double_decision", "wrong_box", "bad_card",
)  # fmt: skip


class ActionKind(enum.StrEnum):
    """Every action of the round. Values are the stable codes used in JSON."""

    BET = "bet"
    SIDE_BET = "side_bet"
    DEAL = "deal"
    INSURE = "insure"
    DECLINE_INSURANCE = "decline_insurance"
    EVEN_MONEY = "even_money"
    HIT = "hit"
    STAND = "stand"
    DOUBLE = "double"
    SPLIT = "split"
    SURRENDER = "surrender"
    FOLLOW_DOUBLE = "follow_double"
    DECLINE_DOUBLE = "decline_double"
    #: The table's card for the box and hand (or the dealer) the round waits for.
    CARD = "card"

    def action_for(self, legal: LegalAction[ActionKind, str], value: Any = None) -> Action:
        """The :class:`Action` of ``legal``: ``value`` is the amount where one is
        needed, the card (a :class:`~app.cards.Card` or its text) for :attr:`CARD`."""
        if self is ActionKind.CARD:  # (anything but a card is refused: ``bad_card``)
            card = Card.parse(value) if isinstance(value, str) else value
            return Action(self, card=card if isinstance(card, Card) else None)
        return Action(self, legal.player, legal.box, None if value is None else to_money(value))


#: Actions taken by the box owner on the hand in play.
PLAY_KINDS = frozenset(
    {ActionKind.HIT, ActionKind.STAND, ActionKind.DOUBLE, ActionKind.SPLIT, ActionKind.SURRENDER}
)


def _kind(kind: object) -> ActionKind:
    if isinstance(kind, ActionKind):
        return kind
    if isinstance(kind, str) and kind in ActionKind.__members__.values():
        return ActionKind(kind)
    raise IllegalAction(
        "unknown_action",
        f"unknown action {kind!r}; actions are {[a.value for a in ActionKind]}",
        action=str(kind),
    )


@dataclass(frozen=True)
class Action:
    """One action. ``box`` for bets and insurance decisions, ``amount`` for bets and
    insurance; play actions need only the acting ``player``. The table's ``card``
    action carries ``card``; ``shuffled`` says the card source had to shuffle its
    discards into a new shoe first (it ran empty mid-round)."""

    kind: ActionKind
    player: str | None = None
    box: int | None = None
    amount: Money | None = None
    card: Card | None = None
    shuffled: bool = False

    def __post_init__(self) -> None:
        # Why: a plain code ("insure") compares equal to its ActionKind but fails the
        # identity checks of the dispatch, so Action("insure", ...) was silently taken
        # as a refusal and Action("hit", ...) crashed; accept the code or refuse it.
        if not isinstance(self.kind, ActionKind):
            object.__setattr__(self, "kind", _kind(self.kind))

    @classmethod
    def bet(cls, player: str, box: int, amount: Any) -> Action:
        """Bet ``amount`` on ``box`` (as its owner, or behind if it has one)."""
        return cls(ActionKind.BET, player, box, to_money(amount))

    @classmethod
    def side_bet(cls, player: str, amount: Any) -> Action:
        """The dealer-busts side bet."""
        return cls(ActionKind.SIDE_BET, player, None, to_money(amount))

    @classmethod
    def deal(cls) -> Action:
        """Close the bets and deal."""
        return cls(ActionKind.DEAL)

    @classmethod
    def deal_card(cls, card: Card | str, shuffled: bool = False) -> Action:
        """The table's next card (``card`` as a Card or its text, e.g. ``"As"``)."""
        return cls(ActionKind.CARD, card=card if isinstance(card, Card) else Card.parse(card),
                   shuffled=shuffled)  # fmt: skip

    @classmethod
    def insure(cls, player: str, box: int, amount: Any) -> Action:
        """Insurance of ``amount`` (at most half the stake) for the stake on ``box``."""
        return cls(ActionKind.INSURE, player, box, to_money(amount))

    @classmethod
    def make(
        cls,
        kind: str | ActionKind,
        player: str | None = None,
        box: int | None = None,
        amount: Any = None,
    ) -> Action:
        """Any action from its code, e.g. ``Action.make("hit", "ann")``."""
        return cls(_kind(kind), player, box, None if amount is None else to_money(amount))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (only the fields that are set)."""
        out: dict[str, Any] = {"action": self.kind.value}
        if self.player is not None:
            out["player"] = self.player
        if self.box is not None:
            out["box"] = self.box
        if self.amount is not None:
            out["amount"] = money_json(self.amount)
        if self.card is not None:
            out["card"] = str(self.card)
        if self.shuffled:
            out["shuffled"] = True
        return out


__all__ = ["ERROR_CODES", "PLAY_KINDS", "Action", "ActionKind", "LegalAction"]
