"""What a blackjack round allows: the one source of legality.

:meth:`Legal.verify` checks an action and raises :class:`~app.rules.errors.IllegalAction`
with a stable code; :meth:`Legal.legal_actions` lists the allowed actions from the same
checks (the bet and insurance limits come from :meth:`Legal.bet_room`,
:meth:`Legal.side_bet_room` and :meth:`Legal.insurance_room`, which ``verify`` also
uses), so the buttons a screen enables and what the round accepts never disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from app.cards import Card
from app.rules.blackjack.actions import PLAY_KINDS, Action, ActionKind, LegalAction
from app.rules.blackjack.state import Hand, HandStatus, Phase, Reads, is_pair
from app.rules.errors import IllegalAction
from app.rules.money import Money, money_json

BjLegal = LegalAction[ActionKind, str]


class Legal(Reads):
    """Legality of the round's actions (mixed into the round and its working copy)."""

    # -- the hand in play ----------------------------------------------------------------

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
            (self.rules.late_surrender or self.rules.enhc_late_surrender)
            and not h.from_split
            and len(h.cards) == 2
            and not h.doubled
        )

    def play_kinds(self, h: Hand) -> tuple[ActionKind, ...]:
        """The owner's choices on hand ``h`` now, in button order."""
        out = []
        if not (h.split_aces and not self.rules.hit_split_aces):
            out.append(ActionKind.HIT)
        out.append(ActionKind.STAND)
        if self._can_double(h):
            out.append(ActionKind.DOUBLE)
        if self._can_split(h):
            out.append(ActionKind.SPLIT)
        if self._can_surrender(h):
            out.append(ActionKind.SURRENDER)
        return tuple(out)

    # -- limits shared by verify and legal_actions -----------------------------------------

    def _max_bet(self, player: str | None, room: Money) -> Money:
        a = None if player is None else self.available(player)
        return room if a is None else min(room, a)

    def bet_room(self, player: str | None, box: int) -> Money:
        """How much more ``box`` takes from ``player`` (its owner or a bettor behind);
        IllegalAction ``already_bet`` / ``box_taken`` when he may not bet there at all.
        (``player`` None: anybody, for a table without bankrolls.)"""
        r = self.rules
        owner = self.box_owner(box)
        if owner is not None:
            if player is not None and any(h.stake_of(player) for h in self.box_hands(box)):
                raise IllegalAction(
                    "already_bet", f"{player} already bets on box {box}", player=player, box=box
                )
            if not r.betting_behind:
                raise IllegalAction("box_taken", f"box {box} belongs to {owner}", box=box)
        return r.max_bet - self.box_total(box)

    def side_bet_room(self, player: str) -> Money:
        """The most ``player`` may put on the dealer-busts bet (IllegalAction when none)."""
        if not self.rules.dealer_busts_bet:
            raise IllegalAction("side_bet_not_offered", "this table has no dealer-busts bet")
        if player not in self.players():
            raise IllegalAction(
                "side_bet_needs_bet", f"{player} must bet on a box first", player=player
            )
        if any(b.player == player for b in self.side_bets):
            raise IllegalAction(
                "already_bet", f"{player} already has a dealer-busts bet", player=player
            )
        return Fraction(self.rules.max_bet)

    def insurance_room(self, player: str, box: int) -> tuple[Hand, Money]:
        """The first hand of ``box`` and the most ``player`` may insure on it (half his
        stake); IllegalAction ``no_insurance_decision`` when none is awaited from him."""
        if (player, box) not in self.pending:
            raise IllegalAction(
                "no_insurance_decision",
                f"no insurance decision is awaited from {player} on box {box}",
                player=player,
                box=box,
            )
        h = self.box_hands(box)[0]
        stake = h.stake_of(player)
        assert stake is not None
        return h, stake.amount / 2

    # -- checks of an action's shape -------------------------------------------------------

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

    # -- verify: the one check apply runs --------------------------------------------------

    def verify(self, a: Action) -> None:
        """Raise IllegalAction (stable code) unless ``a`` is allowed now."""
        k = a.kind
        r = self.rules
        if k is ActionKind.BET:
            self._need_phase(a, Phase.BETTING)
            p, box, amount = self._need_player(a), self._need_box(a), self._need_amount(a)
            if amount < r.min_bet:
                raise IllegalAction(
                    "bet_below_limit", f"the smallest bet is {r.min_bet}", min=r.min_bet
                )
            room = self.bet_room(p, box)
            if amount > room:
                raise IllegalAction(
                    "bet_above_limit",
                    f"box {box} takes at most {money_json(room)} more (limit {r.max_bet} per box)",
                    box=box,
                    max=money_json(room),
                )
            self._need_afford(p, amount)
        elif k is ActionKind.SIDE_BET:
            self._need_phase(a, Phase.BETTING)
            p, amount = self._need_player(a), self._need_amount(a)
            room = self.side_bet_room(p)
            if amount < r.min_bet:
                raise IllegalAction(
                    "bet_below_limit", f"the smallest bet is {r.min_bet}", min=r.min_bet
                )
            if amount > room:
                raise IllegalAction(
                    "bet_above_limit", f"the side bet limit is {r.max_bet}", max=r.max_bet
                )
            self._need_afford(p, amount)
        elif k is ActionKind.DEAL:
            self._need_phase(a, Phase.BETTING)
            if not self.hands:
                raise IllegalAction("no_bets", "nobody has bet yet")
        elif k in (ActionKind.INSURE, ActionKind.DECLINE_INSURANCE, ActionKind.EVEN_MONEY):
            self._need_phase(a, Phase.INSURANCE)
            p, box = self._need_player(a), self._need_box(a)
            h, half = self.insurance_room(p, box)
            if k is ActionKind.INSURE:
                amount = self._need_amount(a)
                if amount > half:
                    raise IllegalAction(
                        "insurance_above_half",
                        f"insurance is at most half the stake ({money_json(half)})",
                        max=money_json(half),
                    )
                self._need_afford(p, amount)
            elif k is ActionKind.EVEN_MONEY and h.status is not HandStatus.BLACKJACK:
                raise IllegalAction("no_blackjack", "even money is only for a blackjack", box=box)
        elif k in (ActionKind.FOLLOW_DOUBLE, ActionKind.DECLINE_DOUBLE):
            self._need_phase(a, Phase.DOUBLE_FOLLOW)
            p = self._need_player(a)
            self._need_hand_box(a)
            if p not in self.follow_pending:
                raise IllegalAction(
                    "no_double_decision", f"no double decision is awaited from {p}", player=p
                )
        elif k is ActionKind.CARD:
            self._need_phase(a, Phase.DEALING)
            if not isinstance(a.card, Card):
                raise IllegalAction("bad_card", f"the table's card is missing: {a.card!r}")
        elif k in PLAY_KINDS:
            self._need_phase(a, Phase.PLAY)
            p = self._need_player(a)
            h = self._need_hand_box(a)
            if p != h.owner:
                raise IllegalAction(
                    "not_your_turn",
                    f"box {h.box} hand {h.number} is {h.owner}'s to play",
                    player=p,
                    turn=h.owner,
                )
            allowed = self.play_kinds(h)
            if k not in allowed:
                names = sorted(x.value for x in allowed)
                raise IllegalAction(
                    f"cannot_{k.value}",
                    f"{k.value} is not allowed on this hand now (allowed: {', '.join(names)})",
                    action=k.value,
                    allowed=names,
                )
        else:  # pragma: no cover - ActionKind is closed
            raise IllegalAction("unknown_action", f"unknown action {k!r}")

    def _need_hand_box(self, action: Action) -> Hand:
        """The hand in play; IllegalAction ``wrong_box`` when ``action`` names another
        box (a decision is for the hand in play, whatever box it says)."""
        h = self._in_play()
        if action.box is not None and action.box != h.box:
            raise IllegalAction(
                "wrong_box", f"box {action.box} is not in play (box {h.box} is)", box=action.box
            )
        return h

    def _in_play(self) -> Hand:
        h = self.current
        assert h is not None  # PLAY and DOUBLE_FOLLOW always have a hand in play
        return h

    # -- legal_actions: the same limits, listed ----------------------------------------------

    def _bets(self) -> Iterable[BjLegal]:
        lo = Fraction(self.rules.min_bet)
        people: Iterable[str | None] = self.bankrolls if self.bankrolls is not None else [None]
        for p in people:
            for box in range(1, self.rules.boxes + 1):
                try:
                    room = self.bet_room(p, box)
                except IllegalAction:
                    continue
                hi = self._max_bet(p, room)
                if hi >= lo:
                    yield LegalAction(ActionKind.BET, p, box, None, lo, hi)
        for q in self.players():
            try:
                hi = self._max_bet(q, self.side_bet_room(q))
            except IllegalAction:
                continue
            if hi >= lo:
                yield LegalAction(ActionKind.SIDE_BET, q, None, None, lo, hi)
        if self.hands:
            yield LegalAction(ActionKind.DEAL)

    def _insurance(self) -> Iterable[BjLegal]:
        for p, box in self.pending:
            h, half = self.insurance_room(p, box)
            if h.status is HandStatus.BLACKJACK:
                yield LegalAction(ActionKind.EVEN_MONEY, p, box, h.number)
            hi = self._max_bet(p, half)
            if hi > 0:
                yield LegalAction(ActionKind.INSURE, p, box, h.number, None, hi)
            yield LegalAction(ActionKind.DECLINE_INSURANCE, p, box, h.number)

    def legal_actions(self, player: str | None = None) -> tuple[BjLegal, ...]:
        """Every action allowed now (only ``player``'s when given); empty once settled.
        While the round waits for a card (phase ``dealing``) the one action is the
        table's ``card`` (no player) for the box and hand (box None: the dealer)."""
        out: Iterable[BjLegal] = ()
        if self.phase is Phase.BETTING:
            out = self._bets()
        elif self.phase is Phase.INSURANCE:
            out = self._insurance()
        elif self.phase is Phase.DOUBLE_FOLLOW:
            h = self._in_play()
            out = (
                LegalAction(kind, p, h.box, h.number)
                for p in self.follow_pending
                for kind in (ActionKind.FOLLOW_DOUBLE, ActionKind.DECLINE_DOUBLE)
            )
        elif self.phase is Phase.PLAY:
            h = self._in_play()
            out = (LegalAction(k, h.owner, h.box, h.number) for k in self.play_kinds(h))
        elif self.phase is Phase.DEALING:
            need = self.need
            assert need is not None  # the phase of a round that waits for a card
            out = (LegalAction(ActionKind.CARD, None, need.box, need.hand),)
        return tuple(a for a in out if player is None or a.player == player)

    def waiting_for(self) -> tuple[str, ...]:
        """Players whose decision the round waits for now."""
        seen: dict[str, None] = {}
        for a in self.legal_actions():
            if a.player is not None:
                seen.setdefault(a.player)
        return tuple(seen)


__all__ = ["BjLegal", "Legal"]
