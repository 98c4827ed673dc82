"""A casino table bot: what a seat that plays itself asks for next (``--bot``, demos).

:func:`casino_bot` looks at the phone's own copy of the table and returns the next
intent ``(act, box, amount)`` of its player, or None when it has nothing to do. It
sits at one free box, bets on it, bets behind the first other box it may (when the
table allows betting behind), places the dealer-busts bet where offered, says its
bets are in, and plays a simple fixed strategy (hit to 17, soft to 18; double 10-11;
split aces and eights; even money; insurance every third round; follows a double on
odd rounds), so a bot session meets every kind of decision of the table.
"""

from __future__ import annotations

from fractions import Fraction

from app.cards import Rank
from app.rules.blackjack.actions import ActionKind
from app.rules.blackjack.state import Phase
from app.rules.money import ZERO, Money
from app.table.casino.phone import CasinoPhone

Intent = tuple[str, int, Money]


def casino_bot(phone: CasinoPhone) -> Intent | None:
    """The bot's next intent at ``phone`` (its player: ``phone.me``), None for none."""
    me, r = phone.me, phone.round
    if phone.waiting or phone.fault is not None or not phone.players[me].present:
        return None
    mine = [b for b, p in phone.boxes.items() if p == me]
    if r is None or r.phase is Phase.SETTLED:
        return None
    if r.phase is Phase.BETTING:
        return _bet(phone, mine)
    legal = r.legal_actions(me)
    if not legal:
        return None
    kinds = {a.kind: a for a in legal}
    if ActionKind.EVEN_MONEY in kinds:
        a = kinds[ActionKind.EVEN_MONEY]
        return a.kind.value, a.box or 0, ZERO
    if ActionKind.INSURE in kinds and phone.round_no % 3 == 0:
        a = kinds[ActionKind.INSURE]
        return a.kind.value, a.box or 0, a.max_amount or ZERO
    if ActionKind.DECLINE_INSURANCE in kinds:
        return "decline_insurance", kinds[ActionKind.DECLINE_INSURANCE].box or 0, ZERO
    if ActionKind.FOLLOW_DOUBLE in kinds:
        follow = phone.round_no % 2 == 1
        return ("follow_double" if follow else "decline_double"), 0, ZERO
    h = r.current
    if h is None:
        return None
    total, soft = h.total, h.soft
    if ActionKind.SPLIT in kinds and h.cards[0].rank in (Rank.ACE, Rank.EIGHT):
        return "split", 0, ZERO
    if ActionKind.DOUBLE in kinds and not soft and total in (10, 11):
        return "double", 0, ZERO
    if ActionKind.HIT in kinds and (total < 17 or (soft and total < 18)):
        return "hit", 0, ZERO
    return "stand", 0, ZERO


def _bet(phone: CasinoPhone, mine: list[int]) -> Intent | None:
    me, r, rules = phone.me, phone.round, phone.rules
    assert r is not None
    if me in phone.done:
        return None
    if not mine:
        free = [b for b in range(1, rules.boxes + 1) if b not in phone.boxes and not r.box_hands(b)]
        if free:
            return "take_box", free[0], ZERO
    chips = r.available(me)
    unit = Fraction(rules.min_bet)
    for box in mine:
        if r.box_owner(box) is None and chips is not None and chips >= 2 * unit:
            return "bet", box, min(2 * unit, Fraction(rules.max_bet))
    if rules.betting_behind and chips is not None and chips >= 2 * unit:
        for box, owner in sorted(phone.boxes.items()):
            if owner == me or r.box_owner(box) != owner:
                continue
            if any(h.stake_of(me) for h in r.box_hands(box)):
                continue
            if r.box_total(box) + unit <= rules.max_bet:
                return "bet", box, unit
            break
    if (
        rules.dealer_busts_bet
        and me in r.players()
        and not any(b.player == me for b in r.side_bets)
        and chips is not None
        and chips >= unit
    ):
        return "side_bet", 0, unit
    return "done", 0, ZERO
