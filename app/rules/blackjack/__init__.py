"""A casino blackjack round: immutable state advanced by validated actions.

The round is one :class:`Round` value implementing the engine contract
(:mod:`app.rules.engine`): :meth:`Round.apply` takes an :class:`Action` and returns
``(next_round, events)``; an illegal action raises
:class:`~app.rules.errors.IllegalAction` (stable ``code``) and changes nothing.
:meth:`Round.legal_actions` says what may be done now (the UI enables its buttons
from it), from the same checks ``apply`` runs (:mod:`app.rules.blackjack.legal`); the
dealer plays automatically once every hand is finished. Everything that happens is
also recorded in :attr:`Round.events` (the round's log). :meth:`Round.act` is the
shorthand that returns only the next round.

The code is split by concern: actions (:mod:`~app.rules.blackjack.actions`), state and
queries (:mod:`~app.rules.blackjack.state`), legality (:mod:`~app.rules.blackjack.legal`),
the machine that runs an action (:mod:`~app.rules.blackjack.work`), settlement
(:mod:`~app.rules.blackjack.settle`), what a player sees
(:mod:`~app.rules.blackjack.view`) and the round dealt from a shoe on one phone
(:mod:`~app.rules.blackjack.deal`).

>>> from app.rules.table_rules import TableRules
>>> r = Round.new(TableRules(), {"ann": 100})
>>> r = r.act("bet", "ann", 1, 10)
>>> r, events = r.apply(Action.deal())
>>> r.phase, [a.to_json() for a in r.legal_actions()]    # the first card, to box 1
(<Phase.DEALING: 'dealing'>, [{'action': 'card', 'box': 1, 'hand': 1}])
>>> for card in "As 9d Kh 7c".split():
...     r, events = r.apply(r.legal_actions()[0].action(card))
>>> r.phase, r.net("ann")                  # A+K against 9 7: paid at 3:2
(<Phase.SETTLED: 'settled'>, Fraction(15, 1))

The round holds no shoe: cards come in as actions, as in Oczko. When it needs one its
phase is ``dealing``, :attr:`Round.need` says where the card goes (a box and hand, or
the dealer) and the one legal action is the table's ``card`` (no player); whoever holds
the cards supplies it: on one phone :class:`app.rules.blackjack.deal.ShoeRound` draws
from a :class:`~app.rules.shoe.Shoe`, at a networked table every phone opens the next
card of the SRA shoe.

Boxes are numbered 1..``rules.boxes``; the hands of a box 1, 2, ... in play order
(a split inserts the new hand right after the one split). The deal goes box by box:
a card to each box, the dealer's up card, a second card to each box, then under
``peek`` the dealer's hole card (under ``enhc`` the dealer's second card comes after
the players). A hand made by a split gets its second card when it comes into play.

Driving a round (UI, bots, strategy tools; :class:`~app.rules.blackjack.deal.ShoeRound`
supplies the cards from a shoe after each action)::

    r = ShoeRound.new(rules, shoe, {"ann": 1000, "bob": 1000})   # or a Session's new_round()
    r = r.act("bet", "ann", 1, 10)            # owner of box 1
    r = r.act("bet", "bob", 1, 10)            # behind on box 1 (rules.betting_behind)
    r = r.act("deal")
    while not r.settled:
        r.phase               # betting / insurance / play / double_follow / settled
        r.legal_actions()     # LegalAction(kind, player, box, hand, min_amount, max_amount)
        r.waiting_for()       # whose decision it is
        r.current             # the Hand in play: cards, total, soft, stakes
        r, events = r.apply(chosen_legal_action.action(amount))
    r.results()               # {player: net}, exact Fractions

Money and results are exact :class:`~fractions.Fraction`. Views render
:func:`~app.rules.blackjack.view.view_for` (the hole card stays hidden until the dealer
turns it); refusals carry a code from :data:`ERROR_CODES`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from app.cards import Card
from app.rules.blackjack import events as ev
from app.rules.blackjack.actions import ERROR_CODES, PLAY_KINDS, Action, ActionKind, LegalAction
from app.rules.blackjack.legal import Legal
from app.rules.blackjack.state import (
    CardNeed,
    Hand,
    HandStatus,
    InsuranceBet,
    Phase,
    SideBet,
    Stake,
    is_pair,
)
from app.rules.blackjack.view import full_view, view_for
from app.rules.blackjack.work import Work
from app.rules.engine import Event
from app.rules.errors import IllegalAction
from app.rules.money import ZERO, Money, MoneyError, to_money
from app.rules.table_rules import TableRules


@dataclass(frozen=True)
class Round(Legal):
    """One round of casino blackjack (immutable; see the module doc)."""

    rules: TableRules
    bankrolls: Mapping[str, Money] | None = None
    phase: Phase = Phase.BETTING
    hands: tuple[Hand, ...] = ()
    dealer: tuple[Card, ...] = ()
    hole_revealed: bool = False
    insurance: tuple[InsuranceBet, ...] = ()
    side_bets: tuple[SideBet, ...] = ()
    #: (player, box) insurance decisions still awaited.
    pending: tuple[tuple[str, int], ...] = ()
    #: Bettors behind who have not yet said whether they follow the owner's double.
    follow_pending: tuple[str, ...] = ()
    #: Index in ``hands`` of the hand in play.
    turn: int | None = None
    #: The card the round waits for (phase ``dealing``; see the module doc).
    need: CardNeed | None = None
    events: tuple[Event, ...] = field(default=(), repr=False)

    @classmethod
    def new(
        cls,
        rules: TableRules,
        bankrolls: Mapping[str, Any] | None = None,
        *,
        shuffled: bool = False,
    ) -> Round:
        """A round in its betting phase. ``bankrolls`` maps each player to the chips he
        has (None: unlimited, e.g. for simulations). ``shuffled``: the shoe was shuffled
        for this round (its cut card had come out): the round's first event says so."""
        if not isinstance(rules, TableRules):
            raise TypeError("rules must be a TableRules")
        rolls: Mapping[str, Money] | None = None
        if bankrolls is not None:
            checked: dict[str, Money] = {}
            for p, v in bankrolls.items():
                if not isinstance(p, str) or not p:
                    raise ValueError(f"player names are non-empty text, not {p!r}")
                m = to_money(v, f"chips of {p}")
                if m < 0:
                    raise ValueError(f"{p} cannot have {m} chips")
                checked[p] = m
            rolls = MappingProxyType(checked)
        events: tuple[Event, ...] = (ev.Shuffled("cut_card"),) if shuffled else ()
        return cls(rules, rolls, events=events)

    def apply(self, action: Action) -> tuple[Round, tuple[Event, ...]]:
        """The round after ``action`` and the events it caused; raises IllegalAction
        (and changes nothing)."""
        return self.apply_with(action, None)

    def apply_with(
        self, action: Action, supply: Callable[[CardNeed], tuple[Card, bool]] | None
    ) -> tuple[Round, tuple[Event, ...]]:
        """``apply(action)``, then (with ``supply``) each card-carrying action the round
        waits for, with the card ``supply(need)`` gives (and whether its source shuffled
        first): the same as applying :meth:`Action.deal_card` one by one, in one working
        copy (the drivers' shortcut, :mod:`app.rules.blackjack.deal`). Whatever
        ``supply`` raises leaves the round unchanged."""
        if not isinstance(action, Action):
            raise IllegalAction("bad_action", f"not an Action: {action!r}")
        w = Work(self)
        w.do(action)
        while supply is not None and w.need is not None:
            card, shuffled = supply(w.need)
            w.do(Action.deal_card(card, shuffled))
        after = Round(
            w.rules,
            w.bankrolls,
            w.phase,
            tuple(w.hands),
            tuple(w.dealer),
            w.hole_revealed,
            tuple(w.insurance),
            tuple(w.side_bets),
            tuple(w.pending),
            tuple(w.follow_pending),
            w.turn,
            w.need,
            tuple(w.events),
        )
        return after, after.events[len(self.events) :]

    def act(
        self,
        kind: str | ActionKind,
        player: str | None = None,
        box: int | None = None,
        amount: Any = None,
    ) -> Round:
        """Shorthand for ``apply(Action.make(...))``: ``r.act("hit", "ann")``."""
        try:
            action = Action.make(kind, player, box, amount)
        except MoneyError as exc:
            raise IllegalAction("bad_amount", str(exc)) from None
        return self.apply(action)[0]

    @property
    def over(self) -> bool:
        """The engine contract's name for :attr:`settled`."""
        return self.phase is Phase.SETTLED

    @property
    def settled(self) -> bool:
        """The round is over and every bet is settled."""
        return self.phase is Phase.SETTLED

    def house_result(self) -> Money:
        """The house's net result: minus the sum of the bettors' results."""
        return -sum(self.results().values(), ZERO)

    def table_cards(self) -> tuple[Card, ...]:
        """Every card on the table (player hands and dealer)."""
        return tuple(c for h in self.hands for c in h.cards) + tuple(self.dealer)

    def dealer_total(self) -> int:
        """The dealer's total as the players see it (see :func:`view_for`)."""
        return view_for(self, None).dealer_total

    def public_events(self, start: int = 0) -> list[dict[str, Any]]:
        """Events from index ``start`` as JSON, as a player sees them (:func:`view_for`:
        the face-down hole card is ``"card": null`` until it is turned)."""
        return [e.to_json() for e in view_for(self, None).events[start:]]

    def to_json(self, reveal: bool = False) -> dict[str, Any]:
        """A JSON snapshot for views and replays: :func:`view_for` (the face-down hole
        card shows as ``"??"``), or with ``reveal`` everything (:func:`full_view`)."""
        return (full_view(self) if reveal else view_for(self, None)).to_json()


__all__ = [
    "ERROR_CODES",
    "PLAY_KINDS",
    "Action",
    "ActionKind",
    "CardNeed",
    "Hand",
    "HandStatus",
    "InsuranceBet",
    "LegalAction",
    "Phase",
    "Round",
    "SideBet",
    "Stake",
    "is_pair",
    "view_for",
]
