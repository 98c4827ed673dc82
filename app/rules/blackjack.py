"""A casino blackjack round: immutable state advanced by validated actions.

The round is one :class:`Round` value. :meth:`Round.apply` takes an :class:`Action`
and returns the next round; an illegal action raises
:class:`~app.rules.errors.IllegalAction` (stable ``code``) and changes nothing.
:meth:`Round.legal_actions` says what may be done now (the UI enables its buttons
from it); the dealer plays automatically once every hand is finished.
Everything that happens is recorded in :attr:`Round.events`.

>>> from app.rules.table_rules import TableRules
>>> from app.rules.shoe import Shoe
>>> r = Round.new(TableRules(), Shoe.scripted("As 9d Kh 7c"), {"ann": 100})
>>> r = r.apply(Action.bet("ann", 1, 10)).apply(Action.deal())
>>> r.phase, r.net("ann")                  # A+K against 9 7: paid at 3:2
(<Phase.SETTLED: 'settled'>, Fraction(15, 1))

Boxes are numbered 1..``rules.boxes``; the hands of a box 1, 2, ... in play order
(a split inserts the new hand right after the one split). The deal goes box by box:
a card to each box, the dealer's up card, a second card to each box, then under
``peek`` the dealer's hole card (under ``enhc`` the dealer's second card comes after
the players). A hand made by a split gets its second card when it comes into play.

Driving a round (UI, bots, strategy tools)::

    r = Round.new(rules, shoe, {"ann": 1000, "bob": 1000})   # or a Session's new_round()
    r = r.act("bet", "ann", 1, 10)            # owner of box 1
    r = r.act("bet", "bob", 1, 10)            # behind on box 1 (rules.betting_behind)
    r = r.act("deal")
    while not r.settled:
        r.phase               # betting / insurance / play / double_follow / settled
        r.legal_actions()     # LegalAction(kind, player, box, hand, min_amount, max_amount)
        r.waiting_for()       # whose decision it is
        r.current             # the Hand in play: cards, total, soft, stakes
        r = r.apply(chosen_legal_action.action(amount))
    r.results()               # {player: net}, exact Fractions

Money and results are exact :class:`~fractions.Fraction`. Views render
:meth:`Round.to_json` and :meth:`Round.public_events` (the hole card stays hidden
until the dealer turns it); refusals carry a code from :data:`ERROR_CODES`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from app.cards import Card, Rank, codes
from app.native.handeval import bj_total, is_triple_seven
from app.rules import blackjack_events as ev
from app.rules.blackjack_settle import (
    Outcome,
    compare,
    dealer_busts_returned,
    insurance_returned,
    returned,
)
from app.rules.errors import IllegalAction
from app.rules.money import ZERO, Money, MoneyError, money_json, to_money
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules

#: Every ``IllegalAction.code`` the round raises (the UI translates these).
ERROR_CODES: tuple[str, ...] = (
    "bad_action", "unknown_action", "wrong_phase", "player_required", "unknown_player",
    "bad_amount", "bad_box", "insufficient_chips", "no_bets", "bet_below_limit",
    "bet_above_limit", "already_bet", "box_taken", "side_bet_not_offered",
    "side_bet_needs_bet", "no_insurance_decision", "insurance_above_half", "no_blackjack",
    "not_your_turn", "cannot_hit", "cannot_stand", "cannot_double", "cannot_split",
    "cannot_surrender", "no_double_decision",
)  # fmt: skip


class Phase(enum.StrEnum):
    """Where the round is."""

    BETTING = "betting"  # bets and side bets, then "deal"
    INSURANCE = "insurance"  # dealer shows an ace: every bettor decides
    PLAY = "play"  # the box owners play their hands in order
    DOUBLE_FOLLOW = "double_follow"  # an owner doubled: bettors behind decide to follow
    SETTLED = "settled"  # dealer played, every bet settled


class HandStatus(enum.StrEnum):
    """A hand's play state."""

    BETTING = "betting"  # no cards yet
    WAITING = "waiting"  # split hand waiting for its second card
    PLAYING = "playing"
    STOOD = "stood"  # stood, doubled, or reached 21
    BUST = "bust"
    BLACKJACK = "blackjack"  # a natural
    SURRENDERED = "surrendered"
    TRIPLE_SEVEN = "triple_seven"


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


#: Actions taken by the box owner on the hand in play.
PLAY_KINDS = frozenset(
    {ActionKind.HIT, ActionKind.STAND, ActionKind.DOUBLE, ActionKind.SPLIT, ActionKind.SURRENDER}
)


@dataclass(frozen=True)
class Action:
    """One action. ``box`` for bets and insurance decisions, ``amount`` for bets and
    insurance; play actions need only the acting ``player``."""

    kind: ActionKind
    player: str | None = None
    box: int | None = None
    amount: Money | None = None

    def __post_init__(self) -> None:
        # Why: a plain code ("insure") compares equal to its ActionKind but fails the
        # identity checks of the dispatch, so Action("insure", ...) was silently taken
        # as a refusal and Action("hit", ...) crashed; accept the code or refuse it.
        if not isinstance(self.kind, ActionKind):
            try:
                object.__setattr__(self, "kind", ActionKind(self.kind))
            except ValueError:
                raise IllegalAction(
                    "unknown_action",
                    f"unknown action {self.kind!r}; actions are {[a.value for a in ActionKind]}",
                    action=str(self.kind),
                ) from None

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
        try:
            k = ActionKind(kind)
        except ValueError:
            raise IllegalAction(
                "unknown_action",
                f"unknown action {kind!r}; actions are {[a.value for a in ActionKind]}",
                action=str(kind),
            ) from None
        return cls(k, player, box, None if amount is None else to_money(amount))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (only the fields that are set)."""
        out: dict[str, Any] = {"action": self.kind.value}
        if self.player is not None:
            out["player"] = self.player
        if self.box is not None:
            out["box"] = self.box
        if self.amount is not None:
            out["amount"] = money_json(self.amount)
        return out


@dataclass(frozen=True)
class LegalAction:
    """An action allowed now. Where an amount is needed (bets, insurance) it lies in
    [min_amount, max_amount]; a ``min_amount`` of None means any positive amount."""

    kind: ActionKind
    player: str | None = None
    box: int | None = None
    hand: int | None = None
    min_amount: Money | None = None
    max_amount: Money | None = None

    def action(self, amount: Any = None) -> Action:
        """The :class:`Action` for this choice (give ``amount`` where one is needed)."""
        return Action(
            self.kind, self.player, self.box, None if amount is None else to_money(amount)
        )

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


@dataclass(frozen=True)
class Stake:
    """One bettor's money on one hand."""

    player: str
    #: The stake before doubling (the bet, or the matching stake of a split).
    amount: Money
    #: True for the bet placed before the deal; False for a stake added by a split.
    original: bool = True
    #: Extra stake from doubling.
    doubled: Money = ZERO
    outcome: Outcome | None = None
    #: Chips given back when settled (stake included).
    returned: Money = ZERO

    @property
    def total(self) -> Money:
        """Everything staked on the hand."""
        return self.amount + self.doubled

    @property
    def settled(self) -> bool:
        """Whether this stake has been paid or taken."""
        return self.outcome is not None


@dataclass(frozen=True)
class Hand:
    """A player hand on a box. ``stakes[0]`` belongs to the box owner."""

    box: int
    number: int
    stakes: tuple[Stake, ...]
    cards: tuple[Card, ...] = ()
    status: HandStatus = HandStatus.BETTING
    from_split: bool = False
    split_aces: bool = False
    doubled: bool = False

    @property
    def owner(self) -> str:
        """The box owner (who decides)."""
        return self.stakes[0].player

    @property
    def total(self) -> int:
        """Blackjack total (an ace counts 11 when that does not bust)."""
        return bj_total(codes(self.cards))[0]

    @property
    def soft(self) -> bool:
        """An ace counts 11 in :attr:`total`."""
        return bj_total(codes(self.cards))[1]

    @property
    def natural(self) -> bool:
        """A blackjack that pays: two cards of 21, not made by a split."""
        return len(self.cards) == 2 and not self.from_split and self.total == 21

    @property
    def live(self) -> bool:
        """Some stake on the hand is not settled yet."""
        return any(not s.settled for s in self.stakes)

    def stake_of(self, player: str) -> Stake | None:
        """``player``'s stake on this hand, if any."""
        return next((s for s in self.stakes if s.player == player), None)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready snapshot."""
        return {
            "box": self.box,
            "hand": self.number,
            "cards": [str(c) for c in self.cards],
            "total": self.total,
            "soft": self.soft,
            "status": self.status.value,
            "from_split": self.from_split,
            "doubled": self.doubled,
            "stakes": [
                {
                    "player": s.player,
                    "amount": money_json(s.amount),
                    "doubled": money_json(s.doubled),
                    "original": s.original,
                    "outcome": None if s.outcome is None else s.outcome.value,
                    "returned": money_json(s.returned),
                }
                for s in self.stakes
            ],
        }


@dataclass(frozen=True)
class InsuranceBet:
    """An insurance bet of ``player`` for his stake on ``box``."""

    player: str
    box: int
    amount: Money
    won: bool | None = None
    returned: Money = ZERO


@dataclass(frozen=True)
class SideBet:
    """A dealer-busts side bet."""

    player: str
    amount: Money
    won: bool | None = None
    returned: Money = ZERO


def _value(card: Card) -> int:
    return min(int(card.rank), 10)


def is_pair(a: Card, b: Card, split_by: str) -> bool:
    """Whether two cards may be split: same rank, or (``split_by="value"``) same value."""
    return a.rank == b.rank if split_by == "rank" else _value(a) == _value(b)


class _Reads:
    """Queries shared by the frozen :class:`Round` and its working copy."""

    rules: TableRules
    bankrolls: Mapping[str, Money] | None
    phase: Phase
    hands: Any
    dealer: Any
    insurance: Any
    side_bets: Any
    pending: Any
    follow_pending: Any
    turn: int | None

    def wagered(self, player: str) -> Money:
        """Everything ``player`` has put on the table this round."""
        total = sum((s.total for h in self.hands for s in h.stakes if s.player == player), ZERO)
        total += sum((i.amount for i in self.insurance if i.player == player), ZERO)
        return total + sum((b.amount for b in self.side_bets if b.player == player), ZERO)

    def paid_back(self, player: str) -> Money:
        """Chips handed back to ``player`` so far (stakes included)."""
        total = sum((s.returned for h in self.hands for s in h.stakes if s.player == player), ZERO)
        total += sum((i.returned for i in self.insurance if i.player == player), ZERO)
        return total + sum((b.returned for b in self.side_bets if b.player == player), ZERO)

    def available(self, player: str) -> Money | None:
        """Chips ``player`` may still stake now (None: unlimited, no bankrolls given)."""
        if self.bankrolls is None:
            return None
        return self.bankrolls[player] - self.wagered(player) + self.paid_back(player)

    def can_afford(self, player: str, amount: Money) -> bool:
        """Whether ``player`` can stake ``amount`` more."""
        a = self.available(player)
        return a is None or a >= amount

    def can_afford_any(self, player: str) -> bool:
        """Whether ``player`` has any chips left to stake."""
        a = self.available(player)
        return a is None or a > 0

    def net(self, player: str) -> Money:
        """``player``'s result so far (final once the round is settled)."""
        return self.paid_back(player) - self.wagered(player)

    def players(self) -> tuple[str, ...]:
        """Everyone with money on the table, in order of first bet."""
        seen: dict[str, None] = {}
        for h in self.hands:
            for s in h.stakes:
                seen.setdefault(s.player)
        for b in self.side_bets:
            seen.setdefault(b.player)
        return tuple(seen)

    def box_hands(self, box: int) -> list[Hand]:
        """The hands of ``box`` in play order."""
        return [h for h in self.hands if h.box == box]

    def box_owner(self, box: int) -> str | None:
        """The owner of ``box`` (None if nobody bet on it)."""
        hs = self.box_hands(box)
        return hs[0].owner if hs else None

    def box_total(self, box: int) -> Money:
        """All bets placed on ``box`` before the deal."""
        return sum((s.amount for h in self.box_hands(box) for s in h.stakes if s.original), ZERO)

    @property
    def current(self) -> Hand | None:
        """The hand in play (PLAY and DOUBLE_FOLLOW phases)."""
        return None if self.turn is None else self.hands[self.turn]

    @property
    def up_card(self) -> Card | None:
        """The dealer's face-up first card."""
        return self.dealer[0] if self.dealer else None

    def _can_double(self, h: Hand) -> bool:
        r = self.rules
        if len(h.cards) != 2 or h.doubled:
            return False
        if h.from_split and not r.double_after_split:
            return False
        if h.split_aces and not r.hit_split_aces:
            return False
        total, soft = h.total, h.soft
        if r.double_on == "9-11" and (soft or not 9 <= total <= 11):
            return False
        if r.double_on == "10-11" and (soft or not 10 <= total <= 11):
            return False
        return self.can_afford(h.owner, h.stakes[0].amount)

    def _can_split(self, h: Hand) -> bool:
        r = self.rules
        if len(h.cards) != 2 or h.doubled or not is_pair(h.cards[0], h.cards[1], r.split_by):
            return False
        if len(self.box_hands(h.box)) >= r.max_hands:
            return False
        if h.split_aces and not r.resplit_aces:
            return False
        return self.can_afford(h.owner, h.stakes[0].amount)

    def _can_surrender(self, h: Hand) -> bool:
        return (
            self.rules.late_surrender and not h.from_split and len(h.cards) == 2 and not h.doubled
        )

    def _max_bet(self, player: str, room: Money) -> Money:
        a = self.available(player)
        return room if a is None else min(room, a)

    def legal_actions(self) -> tuple[LegalAction, ...]:
        """Every action allowed now. Empty once the round is settled."""
        r = self.rules
        out: list[LegalAction] = []
        if self.phase is Phase.BETTING:
            people: Iterable[str | None] = self.bankrolls if self.bankrolls is not None else [None]
            lo = Fraction(r.min_bet)
            for p in people:
                for box in range(1, r.boxes + 1):
                    owner = self.box_owner(box)
                    if owner is None:
                        room = Fraction(r.max_bet)
                    elif (
                        r.betting_behind
                        and p != owner
                        and (p is None or not any(h.stake_of(p) for h in self.box_hands(box)))
                    ):
                        room = r.max_bet - self.box_total(box)
                    else:
                        continue
                    hi = room if p is None else self._max_bet(p, room)
                    if hi >= lo:
                        out.append(LegalAction(ActionKind.BET, p, box, None, lo, hi))
            if r.dealer_busts_bet:
                for p in self.players():
                    if not any(b.player == p for b in self.side_bets):
                        hi = self._max_bet(p, Fraction(r.max_bet))
                        if hi >= lo:
                            out.append(LegalAction(ActionKind.SIDE_BET, p, None, None, lo, hi))
            if self.hands:
                out.append(LegalAction(ActionKind.DEAL))
        elif self.phase is Phase.INSURANCE:
            for p, box in self.pending:
                h = self.box_hands(box)[0]
                stake = h.stake_of(p)
                assert stake is not None
                if h.status is HandStatus.BLACKJACK:
                    out.append(LegalAction(ActionKind.EVEN_MONEY, p, box, h.number))
                hi = self._max_bet(p, stake.amount / 2)
                if hi > 0:
                    out.append(LegalAction(ActionKind.INSURE, p, box, h.number, None, hi))
                out.append(LegalAction(ActionKind.DECLINE_INSURANCE, p, box, h.number))
        elif self.phase is Phase.DOUBLE_FOLLOW:
            h = self.current
            assert h is not None
            for p in self.follow_pending:
                out.append(LegalAction(ActionKind.FOLLOW_DOUBLE, p, h.box, h.number))
                out.append(LegalAction(ActionKind.DECLINE_DOUBLE, p, h.box, h.number))
        elif self.phase is Phase.PLAY:
            h = self.current
            assert h is not None
            p = h.owner

            def add(kind: ActionKind) -> None:
                out.append(LegalAction(kind, p, h.box, h.number))

            if not (h.split_aces and not r.hit_split_aces):
                add(ActionKind.HIT)
            add(ActionKind.STAND)
            if self._can_double(h):
                add(ActionKind.DOUBLE)
            if self._can_split(h):
                add(ActionKind.SPLIT)
            if self._can_surrender(h):
                add(ActionKind.SURRENDER)
        return tuple(out)

    def waiting_for(self) -> tuple[str, ...]:
        """Players whose decision the round waits for now."""
        seen: dict[str, None] = {}
        for a in self.legal_actions():
            if a.player is not None:
                seen.setdefault(a.player)
        return tuple(seen)


@dataclass(frozen=True)
class Round(_Reads):
    """One round of casino blackjack (immutable; see the module doc)."""

    rules: TableRules
    shoe: Shoe
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
    events: tuple[ev.Event, ...] = field(default=(), repr=False)

    @classmethod
    def new(
        cls,
        rules: TableRules,
        shoe: Shoe,
        bankrolls: Mapping[str, Any] | None = None,
    ) -> Round:
        """A round in its betting phase. ``bankrolls`` maps each player to the chips he
        has (None: unlimited, e.g. for simulations). The shoe is reshuffled first when
        its cut card has come out."""
        if not isinstance(rules, TableRules):
            raise TypeError("rules must be a TableRules")
        rolls = None
        if bankrolls is not None:
            rolls = {}
            for p, v in bankrolls.items():
                if not isinstance(p, str) or not p:
                    raise ValueError(f"player names are non-empty text, not {p!r}")
                m = to_money(v, f"chips of {p}")
                if m < 0:
                    raise ValueError(f"{p} cannot have {m} chips")
                rolls[p] = m
            rolls = MappingProxyType(rolls)
        shoe, shuffled = shoe.for_next_round()
        events: tuple[ev.Event, ...] = (ev.Shuffled("cut_card"),) if shuffled else ()
        return cls(rules, shoe, rolls, events=events)

    def apply(self, action: Action) -> Round:
        """The round after ``action``; raises IllegalAction (and changes nothing)."""
        if not isinstance(action, Action):
            raise IllegalAction("bad_action", f"not an Action: {action!r}")
        w = _Work(self)
        w.do(action)
        return w.freeze()

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
        return self.apply(action)

    @property
    def settled(self) -> bool:
        """The round is over and every bet is settled."""
        return self.phase is Phase.SETTLED

    def results(self) -> dict[str, Money]:
        """Each bettor's net result (final once :attr:`settled`)."""
        return {p: self.net(p) for p in self.players()}

    def house_result(self) -> Money:
        """The house's net result: minus the sum of the bettors' results."""
        return -sum(self.results().values(), ZERO)

    def table_cards(self) -> tuple[Card, ...]:
        """Every card on the table (player hands and dealer)."""
        return tuple(c for h in self.hands for c in h.cards) + tuple(self.dealer)

    def dealer_total(self) -> int:
        """The dealer's total as the players see it (up card only while the hole card is
        face down)."""
        shown = (
            self.dealer
            if (self.hole_revealed or self.rules.hole_card == "enhc")
            else self.dealer[:1]
        )
        return bj_total(codes(shown))[0] if shown else 0

    def public_events(self, start: int = 0) -> list[dict[str, Any]]:
        """Events from index ``start`` as JSON, with the face-down hole card hidden
        (``"card": null``) until it is revealed: what a player may see."""
        out = []
        for e in self.events[start:]:
            j = e.to_json()
            if isinstance(e, ev.DealerCard) and e.face_down and not self.hole_revealed:
                j["card"] = None
            out.append(j)
        return out

    def to_json(self, reveal: bool = False) -> dict[str, Any]:
        """A JSON snapshot for views and replays; the face-down hole card shows as
        ``"??"`` unless ``reveal``."""
        dealer = [str(c) for c in self.dealer]
        if (
            len(dealer) > 1
            and self.rules.hole_card == "peek"
            and not self.hole_revealed
            and not reveal
        ):
            dealer[1] = "??"
        return {
            "phase": self.phase.value,
            "dealer": {"cards": dealer, "total": self.dealer_total()},
            "hands": [h.to_json() for h in self.hands],
            "insurance": [
                {"player": i.player, "box": i.box, "amount": money_json(i.amount), "won": i.won}
                for i in self.insurance
            ],
            "side_bets": [
                {"player": b.player, "amount": money_json(b.amount), "won": b.won}
                for b in self.side_bets
            ],
            "legal_actions": [a.to_json() for a in self.legal_actions()],
            "net": {p: money_json(v) for p, v in self.results().items()},
        }


class _Work(_Reads):
    """A mutable working copy of a round: an action runs here; freeze() makes the result."""

    def __init__(self, r: Round) -> None:
        self.rules = r.rules
        self.shoe = r.shoe
        self.bankrolls = r.bankrolls
        self.phase = r.phase
        self.hands: list[Hand] = list(r.hands)
        self.dealer: list[Card] = list(r.dealer)
        self.hole_revealed = r.hole_revealed
        self.insurance: list[InsuranceBet] = list(r.insurance)
        self.side_bets: list[SideBet] = list(r.side_bets)
        self.pending: list[tuple[str, int]] = list(r.pending)
        self.follow_pending: list[str] = list(r.follow_pending)
        self.turn = r.turn
        self.events: list[ev.Event] = list(r.events)

    def freeze(self) -> Round:
        return Round(
            self.rules,
            self.shoe,
            self.bankrolls,
            self.phase,
            tuple(self.hands),
            tuple(self.dealer),
            self.hole_revealed,
            tuple(self.insurance),
            tuple(self.side_bets),
            tuple(self.pending),
            tuple(self.follow_pending),
            self.turn,
            tuple(self.events),
        )

    # -- validation helpers ------------------------------------------------------------

    def _need_phase(self, action: Action, *phases: Phase) -> None:
        if self.phase not in phases:
            raise IllegalAction(
                "wrong_phase",
                f"{action.kind.value} is not possible in the {self.phase.value} phase",
                action=action.kind.value,
                phase=self.phase.value,
            )

    def _need_player(self, action: Action) -> str:
        p = action.player
        if not isinstance(p, str) or not p:
            raise IllegalAction(
                "player_required", f"{action.kind.value} needs a player", action=action.kind.value
            )
        if self.bankrolls is not None and p not in self.bankrolls:
            raise IllegalAction("unknown_player", f"{p!r} is not at this table", player=p)
        return p

    def _need_amount(self, action: Action) -> Money:
        a = action.amount
        if isinstance(a, int) and not isinstance(a, bool):
            a = Fraction(a)
        if not isinstance(a, Fraction) or a <= 0:
            raise IllegalAction(
                "bad_amount",
                f"{action.kind.value} needs a positive amount, not {a!r}",
                action=action.kind.value,
            )
        return a

    def _need_afford(self, player: str, amount: Money) -> None:
        if not self.can_afford(player, amount):
            raise IllegalAction(
                "insufficient_chips",
                f"{player} has {self.available(player)} chips, needs {amount}",
                player=player,
                needed=money_json(amount),
            )

    def _need_box(self, action: Action) -> int:
        b = action.box
        if isinstance(b, bool) or not isinstance(b, int) or not 1 <= b <= self.rules.boxes:
            raise IllegalAction("bad_box", f"box must be 1-{self.rules.boxes}, not {b!r}", box=b)
        return b

    # -- dispatch -----------------------------------------------------------------------

    def do(self, a: Action) -> None:
        k = a.kind
        if k is ActionKind.BET:
            self._bet(a)
        elif k is ActionKind.SIDE_BET:
            self._side_bet(a)
        elif k is ActionKind.DEAL:
            self._need_phase(a, Phase.BETTING)
            if not self.hands:
                raise IllegalAction("no_bets", "nobody has bet yet")
            self._deal()
        elif k in (ActionKind.INSURE, ActionKind.DECLINE_INSURANCE, ActionKind.EVEN_MONEY):
            self._insurance_decision(a)
        elif k in (ActionKind.FOLLOW_DOUBLE, ActionKind.DECLINE_DOUBLE):
            self._follow(a)
        elif k in PLAY_KINDS:
            self._play(a)
        else:  # pragma: no cover - ActionKind is closed
            raise IllegalAction("unknown_action", f"unknown action {k!r}")

    # -- betting --------------------------------------------------------------------------

    def _bet(self, a: Action) -> None:
        self._need_phase(a, Phase.BETTING)
        p, box, amount = self._need_player(a), self._need_box(a), self._need_amount(a)
        r = self.rules
        if amount < r.min_bet:
            raise IllegalAction(
                "bet_below_limit", f"the smallest bet is {r.min_bet}", min=r.min_bet
            )
        owner = self.box_owner(box)
        if owner is not None:
            if any(h.stake_of(p) for h in self.box_hands(box)):
                raise IllegalAction(
                    "already_bet", f"{p} already bets on box {box}", player=p, box=box
                )
            if not r.betting_behind:
                raise IllegalAction("box_taken", f"box {box} belongs to {owner}", box=box)
        room = r.max_bet - self.box_total(box)
        if amount > room:
            raise IllegalAction(
                "bet_above_limit",
                f"box {box} takes at most {money_json(room)} more (limit {r.max_bet} per box)",
                box=box,
                max=money_json(room),
            )
        self._need_afford(p, amount)
        stake = Stake(p, amount)
        if owner is None:
            self.hands.append(Hand(box, 1, (stake,)))
            self.hands.sort(key=lambda h: h.box)
        else:
            i = self.hands.index(self.box_hands(box)[0])
            self.hands[i] = replace(self.hands[i], stakes=(*self.hands[i].stakes, stake))
        self.events.append(ev.BetPlaced(p, box, amount, owner is not None))

    def _side_bet(self, a: Action) -> None:
        self._need_phase(a, Phase.BETTING)
        p, amount = self._need_player(a), self._need_amount(a)
        r = self.rules
        if not r.dealer_busts_bet:
            raise IllegalAction("side_bet_not_offered", "this table has no dealer-busts bet")
        if p not in self.players():
            raise IllegalAction("side_bet_needs_bet", f"{p} must bet on a box first", player=p)
        if any(b.player == p for b in self.side_bets):
            raise IllegalAction("already_bet", f"{p} already has a dealer-busts bet", player=p)
        if amount < r.min_bet:
            raise IllegalAction(
                "bet_below_limit", f"the smallest bet is {r.min_bet}", min=r.min_bet
            )
        if amount > r.max_bet:
            raise IllegalAction(
                "bet_above_limit", f"the side bet limit is {r.max_bet}", max=r.max_bet
            )
        self._need_afford(p, amount)
        self.side_bets.append(SideBet(p, amount))
        self.events.append(ev.SideBetPlaced(p, amount))

    # -- dealing ---------------------------------------------------------------------------

    def _draw(self) -> Card:
        card, self.shoe, reshuffled = self.shoe.draw_with_reshuffle()
        if reshuffled:
            self.events.append(ev.Shuffled("shoe_empty"))
        return card

    def _give(self, i: int) -> None:
        h = self.hands[i]
        card = self._draw()
        self.hands[i] = replace(h, cards=(*h.cards, card))
        self.events.append(ev.PlayerCard(h.box, h.number, card))

    def _give_dealer(self, face_down: bool = False) -> None:
        card = self._draw()
        self.dealer.append(card)
        self.events.append(ev.DealerCard(card, face_down))

    def _deal(self) -> None:
        for i in range(len(self.hands)):
            self._give(i)
        self._give_dealer()
        for i in range(len(self.hands)):
            self._give(i)
        if self.rules.hole_card == "peek":
            self._give_dealer(face_down=True)
        for i, h in enumerate(self.hands):
            if h.natural:
                self._end_hand(i, HandStatus.BLACKJACK)
            else:
                self.hands[i] = replace(h, status=HandStatus.PLAYING)
        up = self.dealer[0]
        if self.rules.insurance and up.rank == Rank.ACE:
            self.pending = [
                (s.player, h.box)
                for h in self.hands
                for s in h.stakes
                if h.status is HandStatus.BLACKJACK or self.can_afford_any(s.player)
            ]
            if self.pending:
                self.phase = Phase.INSURANCE
                return
        self._after_insurance()

    # -- insurance, even money, peek ---------------------------------------------------------

    def _insurance_decision(self, a: Action) -> None:
        self._need_phase(a, Phase.INSURANCE)
        p, box = self._need_player(a), self._need_box(a)
        if (p, box) not in self.pending:
            raise IllegalAction(
                "no_insurance_decision",
                f"no insurance decision is awaited from {p} on box {box}",
                player=p,
                box=box,
            )
        i = self.hands.index(self.box_hands(box)[0])
        h = self.hands[i]
        stake = h.stake_of(p)
        assert stake is not None
        if a.kind is ActionKind.INSURE:
            amount = self._need_amount(a)
            if amount > stake.amount / 2:
                raise IllegalAction(
                    "insurance_above_half",
                    f"insurance is at most half the stake ({money_json(stake.amount / 2)})",
                    max=money_json(stake.amount / 2),
                )
            self._need_afford(p, amount)
            self.insurance.append(InsuranceBet(p, box, amount))
            self.events.append(ev.InsuranceTaken(p, box, amount))
        elif a.kind is ActionKind.EVEN_MONEY:
            if h.status is not HandStatus.BLACKJACK:
                raise IllegalAction("no_blackjack", "even money is only for a blackjack", box=box)
            self._settle_stake(i, p, Outcome.EVEN_MONEY)
        else:
            self.events.append(ev.InsuranceDeclined(p, box))
        self.pending.remove((p, box))
        if not self.pending:
            self._after_insurance()

    def _after_insurance(self) -> None:
        up = self.dealer[0]
        if self.rules.hole_card == "peek" and _value(up) in (1, 10):
            bj = bj_total(codes(self.dealer))[0] == 21
            self.events.append(ev.DealerPeeked(bj))
            if bj:
                self._reveal()
                self._dealer_blackjack()
                return
            self._settle_insurance(False)
        self.phase = Phase.PLAY
        self._advance()

    def _reveal(self) -> None:
        if self.rules.hole_card == "peek" and not self.hole_revealed:
            self.hole_revealed = True
            self.events.append(ev.HoleCardRevealed(self.dealer[1]))

    def _settle_insurance(self, dealer_blackjack: bool) -> None:
        for j, ins in enumerate(self.insurance):
            if ins.won is None:
                back = insurance_returned(ins.amount, dealer_blackjack, self.rules)
                self.insurance[j] = replace(ins, won=dealer_blackjack, returned=back)
                self.events.append(
                    ev.InsuranceSettled(
                        ins.player, ins.box, ins.amount, dealer_blackjack, back, back - ins.amount
                    )
                )

    # -- settling --------------------------------------------------------------------------

    def _settle_stake(
        self, i: int, player: str, outcome: Outcome, back: Money | None = None
    ) -> None:
        h = self.hands[i]
        stakes = list(h.stakes)
        for j, s in enumerate(stakes):
            if s.player == player and not s.settled:
                got = returned(outcome, s.total, self.rules) if back is None else back
                stakes[j] = replace(s, outcome=outcome, returned=got)
                self.hands[i] = h = replace(h, stakes=tuple(stakes))
                self.events.append(
                    ev.Settled(player, h.box, h.number, outcome.value, s.total, got, got - s.total)
                )
                return

    def _settle_hand(self, i: int, outcome: Outcome) -> None:
        for s in self.hands[i].stakes:
            if not s.settled:
                self._settle_stake(i, s.player, outcome)

    def _end_hand(self, i: int, status: HandStatus) -> None:
        h = self.hands[i] = replace(self.hands[i], status=status)
        self.events.append(ev.HandEnded(h.box, h.number, status.value, h.total))
        if status is HandStatus.BUST:
            self._settle_hand(i, Outcome.BUST)  # a bust loses at once
        elif status is HandStatus.TRIPLE_SEVEN:
            self._settle_hand(i, Outcome.TRIPLE_SEVEN)  # paid at once
        elif status is HandStatus.SURRENDERED:
            self._settle_hand(i, Outcome.SURRENDER)

    # -- play --------------------------------------------------------------------------------

    def _after_card(self, i: int) -> None:
        """Decide what a hand that just got a card does next."""
        h = self.hands[i]
        r = self.rules
        if r.triple_seven and is_triple_seven(codes(h.cards)):
            self._end_hand(i, HandStatus.TRIPLE_SEVEN)
        elif h.total > 21:
            self._end_hand(i, HandStatus.BUST)
        elif h.total == 21 or h.doubled:
            self._end_hand(i, HandStatus.STOOD)  # 21 stands by itself
        elif h.split_aces and not r.hit_split_aces and len(h.cards) >= 2:
            if self._can_split(h):
                self.hands[i] = replace(h, status=HandStatus.PLAYING)  # may resplit or stand
            else:
                self._end_hand(i, HandStatus.STOOD)  # one card on each split ace
        else:
            self.hands[i] = replace(h, status=HandStatus.PLAYING)

    def _advance(self) -> None:
        """Move to the next hand needing a decision, or let the dealer play."""
        i = 0
        while i < len(self.hands):
            if self.hands[i].status is HandStatus.WAITING:
                self._give(i)
                self._after_card(i)
            if self.hands[i].status is HandStatus.PLAYING:
                self.turn = i
                self.phase = Phase.PLAY
                return
            i += 1
        self.turn = None
        self._dealer_turn()

    def _play(self, a: Action) -> None:
        self._need_phase(a, Phase.PLAY)
        p = self._need_player(a)
        i = self.turn
        assert i is not None
        h = self.hands[i]
        if p != h.owner:
            raise IllegalAction(
                "not_your_turn",
                f"box {h.box} hand {h.number} is {h.owner}'s to play",
                player=p,
                turn=h.owner,
            )
        legal = {x.kind for x in self.legal_actions()}
        if a.kind not in legal:
            raise IllegalAction(
                f"cannot_{a.kind.value}",
                f"{a.kind.value} is not allowed on this hand now "
                f"(allowed: {', '.join(sorted(k.value for k in legal))})",
                action=a.kind.value,
                allowed=sorted(k.value for k in legal),
            )
        self.events.append(ev.PlayerActed(p, h.box, h.number, a.kind.value))
        if a.kind is ActionKind.HIT:
            self._give(i)
            self._after_card(i)
        elif a.kind is ActionKind.STAND:
            self._end_hand(i, HandStatus.STOOD)
        elif a.kind is ActionKind.SURRENDER:
            self._end_hand(i, HandStatus.SURRENDERED)
        elif a.kind is ActionKind.DOUBLE:
            self._double(i)
            if self.phase is Phase.DOUBLE_FOLLOW:
                return
        elif a.kind is ActionKind.SPLIT:
            self._split(i)
        if self.hands[i].status is not HandStatus.PLAYING:
            self._advance()

    def _double(self, i: int) -> None:
        h = self.hands[i]
        owner = h.stakes[0]
        stakes = (replace(owner, doubled=owner.amount), *h.stakes[1:])
        self.hands[i] = replace(h, stakes=stakes, doubled=True)
        self.events.append(ev.DoubleStake(owner.player, h.box, h.number, owner.amount, True))
        # Bettors behind may follow (each decides) only when they can pay.
        self.follow_pending = [
            s.player for s in h.stakes[1:] if not s.settled and self.can_afford(s.player, s.amount)
        ]
        for s in h.stakes[1:]:
            if s.player not in self.follow_pending and not s.settled:
                self.events.append(ev.DoubleStake(s.player, h.box, h.number, ZERO, False))
        if self.follow_pending:
            self.phase = Phase.DOUBLE_FOLLOW
        else:
            self._give(i)
            self._after_card(i)

    def _follow(self, a: Action) -> None:
        self._need_phase(a, Phase.DOUBLE_FOLLOW)
        p = self._need_player(a)
        if p not in self.follow_pending:
            raise IllegalAction(
                "no_double_decision", f"no double decision is awaited from {p}", player=p
            )
        i = self.turn
        assert i is not None
        h = self.hands[i]
        stakes = list(h.stakes)
        j = next(k for k, s in enumerate(stakes) if s.player == p)
        if a.kind is ActionKind.FOLLOW_DOUBLE:
            stakes[j] = replace(stakes[j], doubled=stakes[j].amount)
            self.hands[i] = replace(h, stakes=tuple(stakes))
            self.events.append(ev.DoubleStake(p, h.box, h.number, stakes[j].amount, True))
        else:
            self.events.append(ev.DoubleStake(p, h.box, h.number, ZERO, False))
        self.follow_pending.remove(p)
        if not self.follow_pending:
            self.phase = Phase.PLAY
            self._give(i)
            self._after_card(i)
            self._advance()

    def _split(self, i: int) -> None:
        h = self.hands[i]
        aces = h.cards[0].rank == Rank.ACE
        owner = h.stakes[0]
        new_stakes = [Stake(owner.player, owner.amount, original=False)]
        number = h.number + 1
        self.events.append(ev.SplitStake(owner.player, h.box, number, owner.amount, True))
        for s in h.stakes[1:]:
            if s.settled:
                continue
            ok = self.can_afford(s.player, s.amount)
            if ok:
                new_stakes.append(Stake(s.player, s.amount, original=False))
            self.events.append(ev.SplitStake(s.player, h.box, number, s.amount if ok else ZERO, ok))
        self.hands[i] = replace(h, cards=h.cards[:1], from_split=True, split_aces=aces)
        new = Hand(
            h.box,
            number,
            tuple(new_stakes),
            h.cards[1:],
            HandStatus.WAITING,
            from_split=True,
            split_aces=aces,
        )
        self.hands.insert(i + 1, new)
        for k in range(i + 2, len(self.hands)):  # renumber later hands of the box
            if self.hands[k].box == h.box:
                self.hands[k] = replace(self.hands[k], number=self.hands[k].number + 1)
        self._give(i)
        self._after_card(i)

    # -- the dealer ---------------------------------------------------------------------------

    def _dealer_should_hit(self) -> bool:
        total, soft = bj_total(codes(self.dealer))
        return total < 17 or (total == 17 and soft and self.rules.dealer_hits_soft_17)

    def _dealer_turn(self) -> None:
        live = [h for h in self.hands if h.live]
        compare_needed = any(h.status is HandStatus.STOOD for h in live)
        naturals = any(h.status is HandStatus.BLACKJACK for h in live)
        side_live = any(b.won is None for b in self.side_bets)
        ins_live = any(i.won is None for i in self.insurance)
        up = self.dealer[0]
        if self.rules.hole_card == "enhc":
            if compare_needed or side_live or ins_live or (naturals and _value(up) in (1, 10)):
                self._give_dealer()
                if bj_total(codes(self.dealer))[0] == 21:
                    self._dealer_blackjack()
                    return
                self._settle_insurance(False)
        else:
            self._reveal()
        if compare_needed or side_live:  # the dealer plays out for a live side bet too
            while self._dealer_should_hit():
                self._give_dealer()
        total = bj_total(codes(self.dealer))[0]
        self.events.append(ev.DealerDone(tuple(self.dealer), total, False, total > 21))
        for i, h in enumerate(self.hands):
            if h.live and h.status in (HandStatus.STOOD, HandStatus.BLACKJACK):
                outcome = compare(h.total, h.natural, total, False)
                self._settle_hand(i, outcome)
        self._settle_side_bets(total > 21)
        self._finish()

    def _dealer_blackjack(self) -> None:
        """The dealer has blackjack: insurance pays; naturals push; the rest loses (under
        ENHC with original-bets-only the extra stakes of doubles and splits go back)."""
        self.events.append(ev.DealerDone(tuple(self.dealer), 21, True, False))
        self._settle_insurance(True)
        obo = self.rules.hole_card == "enhc" and self.rules.enhc_original_bets_only
        for i, h in enumerate(self.hands):
            if h.status is HandStatus.PLAYING:  # never got to play (peek found the BJ)
                h = self.hands[i] = replace(h, status=HandStatus.STOOD)
            if not h.live:
                continue
            if h.natural:
                self._settle_hand(i, Outcome.PUSH)
                continue
            for s in h.stakes:
                if s.settled:
                    continue
                if not obo:
                    self._settle_stake(i, s.player, Outcome.LOSE)
                elif s.original:
                    self._settle_stake(i, s.player, Outcome.LOSE, back=s.doubled)
                else:
                    self._settle_stake(i, s.player, Outcome.RETURNED)
        self._settle_side_bets(False)
        self._finish()

    def _settle_side_bets(self, dealer_bust: bool) -> None:
        for j, b in enumerate(self.side_bets):
            if b.won is None:
                back = dealer_busts_returned(b.amount, dealer_bust, self.rules)
                self.side_bets[j] = replace(b, won=dealer_bust, returned=back)
                self.events.append(
                    ev.SideBetSettled(b.player, b.amount, dealer_bust, back, back - b.amount)
                )

    def _finish(self) -> None:
        self.phase = Phase.SETTLED
        self.turn = None
        self.pending = []
        self.follow_pending = []
        nets = {p: self.net(p) for p in self.players()}
        self.events.append(ev.RoundSettled(nets, -sum(nets.values(), ZERO)))


__all__ = [
    "ERROR_CODES",
    "PLAY_KINDS",
    "Action",
    "ActionKind",
    "Hand",
    "HandStatus",
    "InsuranceBet",
    "LegalAction",
    "Phase",
    "Round",
    "SideBet",
    "Stake",
    "is_pair",
]
