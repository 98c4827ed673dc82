"""The machine that runs one blackjack action: deal, insurance, play, dealer, settle.

:class:`Work` is a mutable working copy of a :class:`app.rules.blackjack.Round`; the
round makes one per action, lets it run the action (checked first by
:meth:`~app.rules.blackjack.legal.Legal.verify`, so a refusal changes nothing) and
freezes the result. Everything that happens is appended to ``events``.

The machine draws no card: where it needs one it stops with ``need`` set (phase
``dealing``) and goes on where it stopped when the table's ``card`` action brings it
(:meth:`Work._card`): the initial deal card by card, a hand's card (then play goes on),
the dealer's second card under ENHC, the dealer's draws.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from app.cards import Card, Rank, codes
from app.native.handeval import bj_total, is_triple_seven
from app.rules.blackjack import events as ev
from app.rules.blackjack.actions import Action, ActionKind
from app.rules.blackjack.legal import Legal
from app.rules.blackjack.settle import (
    Outcome,
    compare,
    dealer_busts_returned,
    insurance_returned,
    returned,
)
from app.rules.blackjack.state import (
    CardNeed,
    CardStep,
    Hand,
    HandStatus,
    InsuranceBet,
    Phase,
    SideBet,
    Stake,
    card_value,
)
from app.rules.engine import Event
from app.rules.money import ZERO, Money

#: Hand states whose stakes may wait for the dealer's second card (see ``Work._held``).
_HELD = (HandStatus.BUST, HandStatus.SURRENDERED)


class Work(Legal):
    """A mutable working copy of a round: an action runs here (after
    :meth:`~app.rules.blackjack.legal.Legal.verify`); the round freezes the result."""

    def __init__(self, r: Legal) -> None:  # the frozen round, read field by field
        self.rules = r.rules
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
        self.need: CardNeed | None = r.need
        self.events: list[Event] = list(r.events)

    def do(self, a: Action) -> None:
        """Run ``a`` (IllegalAction, raised before anything changes, if not allowed)."""
        self.verify(a)
        k = a.kind
        if k is ActionKind.CARD:  # (the most frequent action: first)
            assert a.card is not None
            self._card(a.card, a.shuffled)
            return
        if isinstance(a.amount, int):  # verified positive: keep money exact
            a = replace(a, amount=Fraction(a.amount))
        if k is ActionKind.BET:
            self._bet(a)
        elif k is ActionKind.SIDE_BET:
            assert a.player is not None and a.amount is not None
            self.side_bets.append(SideBet(a.player, a.amount))
            self.events.append(ev.SideBetPlaced(a.player, a.amount))
        elif k is ActionKind.DEAL:
            self._deal()
        elif k in (ActionKind.INSURE, ActionKind.DECLINE_INSURANCE, ActionKind.EVEN_MONEY):
            self._insurance_decision(a)
        elif k in (ActionKind.FOLLOW_DOUBLE, ActionKind.DECLINE_DOUBLE):
            self._follow(a)
        else:
            self._play(a)

    # -- betting --------------------------------------------------------------------------

    def _bet(self, a: Action) -> None:
        p, box, amount = a.player, a.box, a.amount
        assert p is not None and box is not None and amount is not None
        owner = self.box_owner(box)
        stake = Stake(p, amount)
        if owner is None:
            self.hands.append(Hand(box, 1, (stake,)))
            self.hands.sort(key=lambda h: h.box)
        else:
            i = self.hands.index(self.box_hands(box)[0])
            self.hands[i] = replace(self.hands[i], stakes=(*self.hands[i].stakes, stake))
        self.events.append(ev.BetPlaced(p, box, amount, owner is not None))

    # -- dealing ---------------------------------------------------------------------------

    def _want(self, need: CardNeed) -> None:
        """Stop here until the table's card comes (:meth:`_card` goes on)."""
        self.need = need
        self.phase = Phase.DEALING

    def _want_hand(self, i: int) -> None:
        h = self.hands[i]
        self._want(CardNeed(h.box, h.number, CardStep.HAND))

    def _deal_target(self, k: int) -> CardNeed:
        """Card ``k`` of the initial deal: a card to each box, the dealer's up card, a
        second card to each box, then under ``peek`` the hole card."""
        n = len(self.hands)
        if k == n or k == 2 * n + 1:
            return CardNeed(None, None, CardStep.DEAL, face_down=k > n, dealt=k)
        h = self.hands[k if k < n else k - n - 1]
        return CardNeed(h.box, h.number, CardStep.DEAL, dealt=k)

    def _card(self, card: Card, shuffled: bool) -> None:
        """The table's card for :attr:`need`; the machine goes on where it stopped."""
        need = self.need
        assert need is not None  # verified: the phase is dealing
        self.need = None
        if shuffled:
            self.events.append(ev.Shuffled("shoe_empty"))
        if need.box is None:
            self.dealer.append(card)
            self.events.append(ev.DealerCard(card, need.face_down))
        else:
            i = 0
            while (self.hands[i].box, self.hands[i].number) != (need.box, need.hand):
                i += 1
            h = self.hands[i]
            self.hands[i] = replace(h, cards=(*h.cards, card))
            self.events.append(ev.PlayerCard(h.box, h.number, card))
        if need.step is CardStep.DEAL:
            total = 2 * len(self.hands) + 1 + (self.rules.hole_card == "peek")
            if need.dealt + 1 < total:
                self._want(self._deal_target(need.dealt + 1))
            else:
                self._after_deal()
        elif need.step is CardStep.HAND:
            self._after_card(i)
            self._advance()
        elif need.step is CardStep.DEALER_SECOND:
            self._dealer_second()
        else:
            self._dealer_draws()

    def _deal(self) -> None:
        self._want(self._deal_target(0))

    def _after_deal(self) -> None:
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
        p, box = a.player, a.box
        assert p is not None and box is not None
        i = self.hands.index(self.box_hands(box)[0])
        if a.kind is ActionKind.INSURE:
            assert a.amount is not None
            self.insurance.append(InsuranceBet(p, box, a.amount))
            self.events.append(ev.InsuranceTaken(p, box, a.amount))
        elif a.kind is ActionKind.EVEN_MONEY:
            self._settle_stake(i, p, Outcome.EVEN_MONEY)
        else:
            self.events.append(ev.InsuranceDeclined(p, box))
        self.pending.remove((p, box))
        if not self.pending:
            self._after_insurance()

    def _after_insurance(self) -> None:
        up = self.dealer[0]
        if self.rules.hole_card == "peek" and card_value(up) in (1, 10):
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
        if status is HandStatus.TRIPLE_SEVEN:
            self._settle_hand(i, Outcome.TRIPLE_SEVEN)  # paid at once, whatever the dealer has
        elif status in (HandStatus.BUST, HandStatus.SURRENDERED) and not self._held():
            self._settle_held(i)

    def _held(self) -> bool:
        """Busts and surrenders wait for the dealer's second card: ENHC with original
        bets only against an ace or a ten, where a dealer blackjack would take only the
        original stakes (so a bust's extra stakes come back, as at a peek table)."""
        r = self.rules
        return (
            r.hole_card == "enhc"
            and r.enhc_original_bets_only
            and bool(self.dealer)
            and card_value(self.dealer[0]) in (1, 10)
        )

    def _settle_held(self, i: int) -> None:
        """Settle a busted or surrendered hand when no dealer blackjack can change it."""
        bust = self.hands[i].status is HandStatus.BUST
        self._settle_hand(i, Outcome.BUST if bust else Outcome.SURRENDER)

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
        for i, h in enumerate(self.hands):
            if h.status is HandStatus.WAITING:  # a split hand's second card, then on
                self._want_hand(i)
                return
            if h.status is HandStatus.PLAYING:
                self.turn = i
                self.phase = Phase.PLAY
                return
        self.turn = None
        self._dealer_turn()

    def _play(self, a: Action) -> None:
        p, i = a.player, self.turn
        assert p is not None and i is not None
        h = self.hands[i]
        self.events.append(ev.PlayerActed(p, h.box, h.number, a.kind.value))
        if a.kind is ActionKind.HIT:
            self._want_hand(i)
            return
        if a.kind is ActionKind.STAND:
            self._end_hand(i, HandStatus.STOOD)
        elif a.kind is ActionKind.SURRENDER:
            self._end_hand(i, HandStatus.SURRENDERED)
        elif a.kind is ActionKind.DOUBLE:
            self._double(i)
            return
        elif a.kind is ActionKind.SPLIT:
            self._split(i)
            return
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
            self._want_hand(i)

    def _follow(self, a: Action) -> None:
        p = a.player
        assert p is not None
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
            self._want_hand(i)

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
        self._want_hand(i)

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
        held = any(h.live and h.status in _HELD for h in self.hands)
        if self.rules.hole_card == "enhc":
            bj_possible = card_value(up) in (1, 10)
            if compare_needed or side_live or ins_live or held or (naturals and bj_possible):
                self._want(CardNeed(None, None, CardStep.DEALER_SECOND))
                return
        else:
            self._reveal()
        self._dealer_draws()

    def _dealer_second(self) -> None:
        """The dealer's second card under ENHC is in: a blackjack ends the round, else
        insurance and the held busts and surrenders are settled."""
        if bj_total(codes(self.dealer))[0] == 21:
            self._dealer_blackjack()
            return
        self._settle_insurance(False)
        for i, h in enumerate(self.hands):
            if h.live and h.status in _HELD:
                self._settle_held(i)
        self._dealer_draws()

    def _dealer_draws(self) -> None:
        """The dealer draws to 17 (card by card, each the table's), then all settles."""
        live = [h for h in self.hands if h.live]
        compare_needed = any(h.status is HandStatus.STOOD for h in live)
        side_live = any(b.won is None for b in self.side_bets)
        # the dealer plays out for a live side bet too
        if (compare_needed or side_live) and self._dealer_should_hit():
            self._want(CardNeed(None, None, CardStep.DEALER))
            return
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
        ENHC with original bets only each bettor loses just his original stake on a box,
        see :meth:`_original_bets_only`)."""
        self.events.append(ev.DealerDone(tuple(self.dealer), 21, True, False))
        self._settle_insurance(True)
        obo = self.rules.hole_card == "enhc" and self.rules.enhc_original_bets_only
        for i, h in enumerate(self.hands):
            if h.status is HandStatus.PLAYING:  # never got to play (peek found the BJ)
                h = self.hands[i] = replace(h, status=HandStatus.STOOD)
            if h.live and h.natural:
                self._settle_hand(i, Outcome.PUSH)
            elif h.live and not obo:
                self._settle_hand(i, Outcome.LOSE)
        if obo:
            self._original_bets_only()
        self._settle_side_bets(False)
        self._finish()

    def _original_bets_only(self) -> None:
        """A dealer blackjack under ENHC original bets only: each bettor loses exactly his
        original stake on a box, from the stakes he still has in play there (held busts
        and surrenders included), the original stake first; the rest goes back. Stakes
        already settled whatever the dealer has (a triple seven, even money) stay as they
        are, so a box with nothing left in play loses nothing (seed 004)."""
        for box in sorted({h.box for h in self.hands}):
            hands = [i for i, h in enumerate(self.hands) if h.box == box]
            for player in dict.fromkeys(s.player for i in hands for s in self.hands[i].stakes):
                mine = [
                    (i, s)
                    for i in hands
                    if (s := self.hands[i].stake_of(player)) is not None and not s.settled
                ]
                budget = next(
                    s.amount
                    for i in hands
                    for s in self.hands[i].stakes
                    if s.player == player and s.original
                )
                for i, s in sorted(mine, key=lambda m: not m[1].original):
                    loss = min(budget, s.total)
                    budget -= loss
                    lost = self._lost_outcome(self.hands[i].status)
                    self._settle_stake(
                        i, player, lost if loss else Outcome.RETURNED, s.total - loss
                    )

    @staticmethod
    def _lost_outcome(status: HandStatus) -> Outcome:
        return Outcome.BUST if status is HandStatus.BUST else Outcome.LOSE

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
        self.need = None
        nets = {p: self.net(p) for p in self.players()}
        self.events.append(ev.RoundSettled(nets, -sum(nets.values(), ZERO)))


__all__ = ["Work"]
