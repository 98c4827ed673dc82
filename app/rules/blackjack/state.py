"""The state of a blackjack round: phases, hands, stakes, and the queries on them.

:class:`Reads` holds the queries shared by the frozen :class:`app.rules.blackjack.Round`
and the working copy an action runs in (:mod:`app.rules.blackjack.work`): money on the
table, boxes, the hand in play. What is allowed is :mod:`app.rules.blackjack.legal`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.cards import Card, codes
from app.native.handeval import bj_total
from app.rules.blackjack.settle import Outcome
from app.rules.engine import Event
from app.rules.money import ZERO, Money, money_json
from app.rules.table_rules import TableRules


class Phase(enum.StrEnum):
    """Where the round is."""

    BETTING = "betting"  # bets and side bets, then "deal"
    INSURANCE = "insurance"  # dealer shows an ace: every bettor decides
    PLAY = "play"  # the box owners play their hands in order
    DOUBLE_FOLLOW = "double_follow"  # an owner doubled: bettors behind decide to follow
    SETTLED = "settled"  # dealer played, every bet settled
    DEALING = "dealing"  # the round waits for a card (``Round.need`` says where it goes)


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
        return int(bj_total(codes(self.cards))[0])

    @property
    def soft(self) -> bool:
        """An ace counts 11 in :attr:`total`."""
        return bool(bj_total(codes(self.cards))[1])

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


class CardStep(enum.StrEnum):
    """What the round does with the card it waits for."""

    DEAL = "deal"  # the initial deal (``CardNeed.dealt`` cards are out)
    HAND = "hand"  # a hit, a double, a split hand's card: then play on
    DEALER_SECOND = "dealer_second"  # the dealer's second card under ENHC
    DEALER = "dealer"  # the dealer draws to 17


@dataclass(frozen=True)
class CardNeed:
    """The card the round waits for: to hand ``hand`` of box ``box``, or (``box``
    None) to the dealer, ``face_down`` for the peek hole card. ``step`` and ``dealt``
    are the engine's bookkeeping (how to go on once the card is in)."""

    box: int | None
    hand: int | None
    step: CardStep
    face_down: bool = False
    dealt: int = 0


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


def card_value(card: Card) -> int:
    """A card's blackjack value with the ace as 1 (10 for tens and faces)."""
    return min(int(card.rank), 10)


def is_pair(a: Card, b: Card, split_by: str) -> bool:
    """Whether two cards may be split: same rank, or (``split_by="value"``) same value."""
    return a.rank == b.rank if split_by == "rank" else card_value(a) == card_value(b)


class Reads:
    """Queries shared by the frozen round and its working copy (the fields they both
    hold are named here, so that the view and the machine read either)."""

    rules: TableRules
    bankrolls: Mapping[str, Money] | None
    phase: Phase
    hands: Sequence[Hand]
    dealer: Sequence[Card]
    hole_revealed: bool
    insurance: Sequence[InsuranceBet]
    side_bets: Sequence[SideBet]
    pending: Sequence[tuple[str, int]]
    follow_pending: Sequence[str]
    turn: int | None
    #: The card the round waits for (phase ``dealing``), else None.
    need: CardNeed | None
    events: Sequence[Event]

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

    def results(self) -> dict[str, Money]:
        """Each bettor's net result (final once the round is settled)."""
        return {p: self.net(p) for p in self.players()}

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


__all__ = [
    "CardNeed",
    "CardStep",
    "Hand",
    "HandStatus",
    "InsuranceBet",
    "Phase",
    "Reads",
    "SideBet",
    "Stake",
    "card_value",
    "is_pair",
]
