"""What one phone may show: a player's view of an Oczko match.

During a round a player sees his own cards and total, and of everybody else only the
number of cards and the status (playing, held, bust, Persian 21): never their cards
or totals until the showdown. Finished rounds (``last_round``) are shown in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.cards import Card
from app.rules.oczko_match import Match, RoundResult
from app.rules.oczko_round import Phase, Status


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the viewer sees it; ``cards`` has None for a face-down card."""

    seat: int
    in_round: bool
    cards: tuple[Card | None, ...]
    status: str | None
    total: int | None
    gone: bool
    points: int

    @property
    def count(self) -> int:
        """Number of cards in the hand."""
        return len(self.cards)

    def to_json(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "player": self.seat if names is None else names[self.seat],
            "in_round": self.in_round,
            "count": self.count,
            "cards": [None if c is None else str(c) for c in self.cards],
            "status": self.status,
            "total": self.total,
            "gone": self.gone,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class MatchView:
    """The match as the phone of ``viewer`` shows it (None: a spectator)."""

    viewer: int | None
    round: int
    tiebreak: bool
    phase: str
    to_act: int | None
    to_deal: int | None
    seats: tuple[SeatView, ...]
    legal: frozenset[str]
    last_round: RoundResult | None
    rounds: int
    played: int
    winner: int | None
    end_reason: str

    def to_json(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON-ready form; seats become names when ``names`` is given."""

        def who(s: int | None) -> Any:
            return s if s is None or names is None else names[s]

        return {
            "viewer": who(self.viewer),
            "round": self.round,
            "tiebreak": self.tiebreak,
            "phase": self.phase,
            "to_act": who(self.to_act),
            "to_deal": who(self.to_deal),
            "seats": [s.to_json(names) for s in self.seats],
            "legal": sorted(self.legal),
            "last_round": None if self.last_round is None else self.last_round.to_json(names),
            "rounds": self.rounds,
            "played": self.played,
            "winner": who(self.winner),
            "end_reason": self.end_reason,
        }


def view(m: Match, viewer: int | None) -> MatchView:
    """``m`` as seen by seat ``viewer`` (None: a spectator, who sees no hidden card)."""
    r = m.round
    assert r is not None
    # The showdown opens the hands; a Persian 21 is shown when it is proven.
    open_all = r.phase in (Phase.SHOWDOWN, Phase.OVER)
    seats: list[SeatView] = []
    for s in range(m.players):
        gone = s in m.gone
        if s not in r.order:
            seats.append(SeatView(s, False, (), None, None, gone, m.points[s]))
            continue
        h = r.hand(s)
        visible = open_all or s == viewer or h.status is Status.PERSIAN
        cards = h.cards if visible else (None,) * len(h.cards)
        seats.append(
            SeatView(s, True, cards, str(h.status), h.total if visible else None, gone, m.points[s])
        )
    return MatchView(
        viewer=viewer,
        round=r.number,
        tiebreak=r.tiebreak,
        phase=str(m.phase),
        to_act=m.to_act,
        to_deal=m.to_deal,
        seats=tuple(seats),
        legal=frozenset() if viewer is None else m.legal_actions(viewer),
        last_round=m.history[-1] if m.history else None,
        rounds=m.options.rounds,
        played=m.played,
        winner=m.winner,
        end_reason=m.end_reason,
    )
