"""What one phone may show: a player's view of an Oczko match, decided here only.

:func:`view_for` is the one place that hides what a player may not see. During a
round a player sees his own cards and total, and of everybody else only the number of
cards and the status (playing, held, bust, Persian 21): never their cards or totals
until the showdown. Finished rounds (``last_round``) are shown in full. The events of
an action are projected the same way (:func:`view_events`: others' dealt and drawn
cards and their totals hidden). The presenters, the history and the table render
these views and hide nothing themselves.

>>> from app.cards import Card
>>> from app.rules.oczko import Match
>>> m, _ = Match.new(2)
>>> m, events = m.deal(Card.parse("As"))
>>> v = view_for(m, 1, events)
>>> v.seats[0].cards, [e.to_json()["card"] for e in v.events]
((None,), [None])
>>> view_for(m, 0, events).seats[0].cards
(Card('As'),)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from app.cards import Card
from app.rules.engine import Event, kinds_of
from app.rules.oczko.events import Busted, CardDealt, CardDrawn, Held
from app.rules.oczko.match import Match, RoundResult
from app.rules.oczko.round import Phase, Status


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
    #: the events passed to :func:`view_for`, as this viewer may see them
    events: tuple[Event, ...] = ()

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
            **({"events": [e.to_json(names) for e in self.events]} if self.events else {}),
        }


def view_events(events: Iterable[Event], seat: int | None) -> tuple[Event, ...]:
    """The events as the phone of ``seat`` may see them (None: a spectator).

    Other players' dealt and drawn cards and their totals are hidden; everything
    else (turns, holds, busts, reveals, results) is public.

    >>> from app.cards import Card
    >>> view_events([CardDealt(1, 0, Card.parse("As")), CardDealt(1, 1, Card.parse("Kd"))], 0)
    (CardDealt(round=1, seat=0, card=Card('As')), CardDealt(round=1, seat=1, card=None))
    """
    out: list[Event] = []
    for e in events:
        if isinstance(e, CardDealt) and e.seat != seat:
            e = replace(e, card=None)
        elif isinstance(e, CardDrawn) and e.seat != seat:
            e = replace(e, card=None, total=None)
        elif isinstance(e, Held | Busted) and e.seat != seat:
            e = replace(e, total=None)
        out.append(e)
    return tuple(out)


#: The events as the phone of ``seat`` may see them (None: a spectator): the name the
#: history and the tables use for :func:`view_events`.
redact = view_events


def view_for(m: Match, viewer: int | None, events: Iterable[Event] = ()) -> MatchView:
    """``m`` (and the ``events`` that led to it) as seen by seat ``viewer`` (None: a
    spectator, who sees no hidden card)."""
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
        legal=frozenset() if viewer is None else kinds_of(m.legal_actions(viewer)),
        last_round=m.history[-1] if m.history else None,
        rounds=m.options.rounds,
        played=m.played,
        winner=m.winner,
        end_reason=m.end_reason,
        events=view_events(events, viewer),
    )


#: The former name of :func:`view_for` (the practice and network controllers call it).
view = view_for
