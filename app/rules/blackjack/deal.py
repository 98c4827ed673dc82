"""A blackjack round dealt from a shoe on this phone: the pure driver for local play.

The round (:class:`~app.rules.blackjack.Round`) holds no shoe: when it needs a card its
phase is ``dealing`` and its one legal action is the table's ``card``, which carries the
card. Whoever holds the cards supplies them. At a networked table every phone opens the
next card of the SRA shoe (:mod:`app.table.casino.phone`); on one phone (one-phone
blackjack, the bots, the scenarios, the session, the tests) :func:`deal` draws
them from a :class:`~app.rules.shoe.Shoe`, and :class:`ShoeRound` pairs a round with
its shoe so that it is driven like any engine: ``apply`` runs the action and then deals
the cards it asked for, in the order the round asks (the deal box by box, a hit, the
dealer's draws), which is the order the shoe has them.

>>> from app.rules.table_rules import TableRules
>>> t = ShoeRound.new(TableRules(), Shoe.scripted("As 9d Kh 7c"), {"ann": 100})
>>> t, events = t.act("bet", "ann", 1, 10).apply(Action.deal())
>>> [e.to_json()["event"] for e in events][:4]
['card', 'dealer_card', 'card', 'dealer_card']
>>> t.round.settled, t.round.net("ann"), t.shoe.remaining
(True, Fraction(15, 1), 0)

A shoe that runs empty mid-round shuffles the discards of earlier rounds into a new
one (:meth:`~app.rules.shoe.Shoe.draw_with_reshuffle`); the card action then says so
(``shuffled``) and the round records it. A scripted shoe that runs out raises
:class:`~app.rules.shoe.ShoeEmpty` (the round before the action is unchanged).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.cards import Card
from app.rules.blackjack import Round
from app.rules.blackjack.actions import Action, ActionKind
from app.rules.blackjack.legal import BjLegal
from app.rules.blackjack.state import CardNeed, Hand, InsuranceBet, Phase, SideBet
from app.rules.engine import Event
from app.rules.errors import IllegalAction
from app.rules.money import Money, MoneyError
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules


class _Draws:
    """The shoe as a card supply for :meth:`Round.apply_with` (it keeps the shoe after
    the cards it gave)."""

    def __init__(self, shoe: Shoe) -> None:
        self.shoe = shoe

    def __call__(self, need: CardNeed) -> tuple[Card, bool]:
        card, self.shoe, reshuffled = self.shoe.draw_with_reshuffle()
        return card, reshuffled


def deal(r: Round, action: Action, shoe: Shoe) -> tuple[Round, Shoe, tuple[Event, ...]]:
    """``action`` on ``r``, then the cards it waits for from ``shoe``, in the order the
    round asks: the round and the shoe after them and the events. IllegalAction (or
    :class:`~app.rules.shoe.ShoeEmpty` for a scripted shoe run out) changes nothing."""
    draws = _Draws(shoe)
    after, events = r.apply_with(action, draws)
    return after, draws.shoe, events


@dataclass(frozen=True)
class ShoeRound:
    """A round and the shoe it is dealt from (immutable): the engine contract with the
    cards supplied, so it never waits for one. The reads a driver needs are named
    here (``t.phase``, ``t.net(p)``, ...); anything else, and the JSON snapshots, from
    ``t.round``, the round itself."""

    round: Round
    shoe: Shoe

    @classmethod
    def new(
        cls, rules: TableRules, shoe: Shoe, bankrolls: Mapping[str, object] | None = None
    ) -> ShoeRound:
        """A round in its betting phase dealt from ``shoe``, reshuffled first when its
        cut card has come out (the round's first event then says so)."""
        shoe, shuffled = shoe.for_next_round()
        return cls(Round.new(rules, bankrolls, shuffled=shuffled), shoe)

    @property
    def over(self) -> bool:
        """The round is settled."""
        return self.round.over

    @property
    def settled(self) -> bool:
        """The round is settled."""
        return self.round.settled

    def legal_actions(self, player: str | None = None) -> tuple[BjLegal, ...]:
        """The round's legal actions (never the table's card: it is dealt at once)."""
        return self.round.legal_actions(player)

    def apply(self, action: Action) -> tuple[ShoeRound, tuple[Event, ...]]:
        """``action``, then the cards it asks for from the shoe, and all their events;
        IllegalAction (nothing changes) if the round refuses ``action``."""
        if isinstance(action, Action) and action.kind is ActionKind.CARD:
            raise IllegalAction("wrong_phase", "the shoe deals the cards here")
        r, shoe, events = deal(self.round, action, self.shoe)
        return ShoeRound(r, shoe), events

    def act(
        self,
        kind: str | ActionKind,
        player: str | None = None,
        box: int | None = None,
        amount: object = None,
    ) -> ShoeRound:
        """Shorthand for ``apply(Action.make(...))``: ``t.act("hit", "ann")``."""
        try:
            action = Action.make(kind, player, box, amount)
        except MoneyError as exc:
            raise IllegalAction("bad_amount", str(exc)) from None
        return self.apply(action)[0]

    # The round's reads a driver uses, typed (the round holds them; see blackjack_state.Reads).

    @property
    def rules(self) -> TableRules:
        """The table's rules."""
        return self.round.rules

    @property
    def phase(self) -> Phase:
        """Where the round stands."""
        return self.round.phase

    @property
    def bankrolls(self) -> Mapping[str, Money] | None:
        """Each player's chips at the start of the round (None: unlimited)."""
        return self.round.bankrolls

    @property
    def hands(self) -> tuple[Hand, ...]:
        """The players' hands in play order."""
        return self.round.hands

    @property
    def dealer(self) -> tuple[Card, ...]:
        """The dealer's cards (the hole card included: use a view to show them)."""
        return self.round.dealer

    @property
    def hole_revealed(self) -> bool:
        """The dealer's hole card has been turned."""
        return self.round.hole_revealed

    @property
    def insurance(self) -> tuple[InsuranceBet, ...]:
        """The insurance bets taken."""
        return self.round.insurance

    @property
    def side_bets(self) -> tuple[SideBet, ...]:
        """The side bets placed."""
        return self.round.side_bets

    @property
    def turn(self) -> int | None:
        """Index in :attr:`hands` of the hand in play."""
        return self.round.turn

    @property
    def current(self) -> Hand | None:
        """The hand in play."""
        return self.round.current

    @property
    def up_card(self) -> Card | None:
        """The dealer's face-up first card."""
        return self.round.up_card

    @property
    def events(self) -> tuple[Event, ...]:
        """Everything that happened in the round so far."""
        return self.round.events

    def net(self, player: str) -> Money:
        """``player``'s result so far (final once settled)."""
        return self.round.net(player)

    def results(self) -> dict[str, Money]:
        """Each bettor's net result."""
        return self.round.results()

    def house_result(self) -> Money:
        """The house's net result."""
        return self.round.house_result()

    def available(self, player: str) -> Money | None:
        """Chips ``player`` may still stake now (None: unlimited)."""
        return self.round.available(player)

    def box_hands(self, box: int) -> list[Hand]:
        """The hands of ``box`` in play order."""
        return self.round.box_hands(box)

    def dealer_total(self) -> int:
        """The dealer's total as the players see it."""
        return self.round.dealer_total()

    def table_cards(self) -> tuple[Card, ...]:
        """Every card on the table."""
        return self.round.table_cards()

    def waiting_for(self) -> tuple[str, ...]:
        """Players whose decision the round waits for now."""
        return self.round.waiting_for()


__all__ = ["ShoeRound", "deal"]
