"""What a player may see of a blackjack round: the one place that hides the hole card.

:func:`view_for` projects a :class:`app.rules.blackjack.Round` for one player: under the
peek rule the dealer's face-down card (and its event) stays hidden until the dealer
turns it, and the dealer's total counts only the cards shown. Every other card of the
table is dealt face up. The round's own ``to_json``, ``public_events`` and
``dealer_total``, the presenter (:mod:`app.views.blackjack.vm`) and the history all go through
it; :func:`full_view` is the omniscient snapshot for replays and tests.

>>> from app.rules.blackjack.deal import ShoeRound
>>> from app.rules.shoe import Shoe
>>> from app.rules.table_rules import TableRules
>>> t = ShoeRound.new(TableRules(), Shoe.scripted("9s Td 7h Ks"), {"ann": 100})
>>> r = t.act("bet", "ann", 1, 10).act("deal").round   # 9+7 against T and a hole card
>>> v = view_for(r, "ann")
>>> v.dealer, v.dealer_total, [a.kind.value for a in v.legal]
((Card('Td'), None), 10, ['hit', 'stand', 'double'])
>>> full_view(r).dealer
(Card('Td'), Card('Ks'))
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.cards import Card, codes
from app.native.handeval import bj_total, is_blackjack
from app.rules.blackjack import events as ev
from app.rules.blackjack.legal import BjLegal, Legal
from app.rules.blackjack.state import Hand, InsuranceBet, Phase, SideBet
from app.rules.engine import Event
from app.rules.money import Money, money_json

#: How a face-down card shows in :meth:`RoundView.to_json`.
FACE_DOWN = "??"


def hole_hidden(r: Legal) -> bool:
    """The dealer's second card is face down now (peek rule, not yet turned)."""
    return len(r.dealer) > 1 and r.rules.hole_card == "peek" and not r.hole_revealed


@dataclass(frozen=True)
class RoundView:
    """A round as ``viewer`` sees it (None: a spectator; ``legal`` is then everyone's).

    ``dealer`` has None for the face-down card; ``dealer_total``/``dealer_soft``/
    ``dealer_blackjack`` count only the cards shown; ``events`` are the round's events
    with the face-down card hidden.
    """

    viewer: str | None
    phase: Phase
    dealer: tuple[Card | None, ...]
    dealer_total: int
    dealer_soft: bool
    dealer_blackjack: bool
    hands: tuple[Hand, ...]
    insurance: tuple[InsuranceBet, ...]
    side_bets: tuple[SideBet, ...]
    legal: tuple[BjLegal, ...]
    events: tuple[Event, ...]
    net: dict[str, Money]
    #: Phase ``dealing``: the box and hand (None, None: the dealer) the card goes to.
    need: tuple[int | None, int | None] | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON snapshot for views and replays (a face-down card is ``"??"``)."""
        return {
            "phase": self.phase.value,
            "dealer": {
                "cards": [FACE_DOWN if c is None else str(c) for c in self.dealer],
                "total": self.dealer_total,
            },
            "hands": [h.to_json() for h in self.hands],
            "insurance": [
                {"player": i.player, "box": i.box, "amount": money_json(i.amount), "won": i.won}
                for i in self.insurance
            ],
            "side_bets": [
                {"player": b.player, "amount": money_json(b.amount), "won": b.won}
                for b in self.side_bets
            ],
            "legal_actions": [a.to_json() for a in self.legal],
            "net": {p: money_json(v) for p, v in self.net.items()},
        }


def _project(r: Legal, viewer: str | None, hide: bool) -> RoundView:
    hidden = hide and hole_hidden(r)
    dealer: tuple[Card | None, ...] = tuple(r.dealer)
    if hidden:
        dealer = (r.dealer[0], None, *r.dealer[2:])
    shown = [c for c in dealer if c is not None]
    total, soft = bj_total(codes(shown)) if shown else (0, False)
    events = tuple(
        replace(e, card=None) if hidden and isinstance(e, ev.DealerCard) and e.face_down else e
        for e in r.events
    )
    return RoundView(
        viewer=viewer,
        phase=r.phase,
        dealer=dealer,
        dealer_total=total,
        dealer_soft=soft,
        dealer_blackjack=len(shown) == 2 and is_blackjack(codes(shown)),
        hands=tuple(r.hands),
        insurance=tuple(r.insurance),
        side_bets=tuple(r.side_bets),
        legal=r.legal_actions(viewer),
        events=events,
        net=r.results(),
        need=None if r.need is None else (r.need.box, r.need.hand),
    )


def view_for(r: Legal, player: str | None) -> RoundView:
    """``r`` as ``player`` may see it (None: a spectator)."""
    return _project(r, player, hide=True)


def full_view(r: Legal) -> RoundView:
    """Everything, the hole card included (replays of a finished scenario, tests)."""
    return _project(r, None, hide=False)


__all__ = ["FACE_DOWN", "RoundView", "full_view", "hole_hidden", "view_for"]
