"""An Oczko match as one immutable state advanced by validated actions.

See :mod:`app.rules.oczko` for the overview and the design of hidden cards.

Leaving and coming back: :meth:`Match.disconnect` takes a seat out (bust in the round in
play unless decided); :meth:`Match.rejoin` brings him back with his points, but only
*between rounds*, i.e. once the next round has started and before its first card is
dealt. The waiting round is then called again as if he had never left: he is active
again (for the lead, the early end and a tie for first) and

- in a regular round he plays it; if his points now settle the match (nobody can catch
  him up any more) the match ends at once, reason ``decided``;
- before a tiebreak the tie for first is looked at again among the active players: a
  rejoiner tied for first plays the tiebreak, one below only watches, and one alone on
  top wins the match (reason ``rounds``, or ``tiebreak`` after earlier tiebreaks).

A match that has ended stays ended: rejoining after its end (early end included) is
illegal, code ``match_over``. Other illegal rejoins: ``unknown_seat``, ``illegal_action``
(the seat never left) and ``wrong_phase`` (a card of the round was dealt already).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.cards import Card
from app.rules.engine import LegalAction
from app.rules.errors import IllegalAction
from app.rules.oczko import round as rnd
from app.rules.oczko.actions import SEAT_ACTIONS, TABLE_ACTIONS, Action, ActionKind
from app.rules.oczko.events import (
    Disconnected,
    Event,
    MatchEnded,
    Rejoined,
    RoundEnded,
    RoundStarted,
)
from app.rules.oczko.round import Hand, Phase, Round

Events = tuple[Event, ...]

MIN_PLAYERS = 2
MAX_PLAYERS = 7
MAX_ROUNDS = 99
VOID = "void"  # the end reason of a round that does not count (see Match.void_round)


@dataclass(frozen=True, slots=True)
class OczkoOptions:
    """Table options: ``rounds`` per match (default 5, 1-99).

    (The engine keeps no clock: the decision time limit is the table's business; when it
    runs out the table sends :meth:`Match.timeout`.)
    """

    rounds: int = 5

    def __post_init__(self) -> None:
        r = self.rounds
        if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= MAX_ROUNDS:
            raise ValueError(f"rounds must be an integer 1-{MAX_ROUNDS}, not {r!r}")

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"rounds": self.rounds}


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: its number, winner (None: no point), reason and final hands."""

    number: int
    tiebreak: bool
    winner: int | None
    reason: str
    hands: tuple[Hand, ...]

    def to_json(self, names: Sequence[str] | None = None) -> dict[str, Any]:
        """JSON-ready form; seats become names when ``names`` is given."""

        def who(s: int | None) -> Any:
            return s if s is None or names is None else names[s]

        return {
            "round": self.number,
            "tiebreak": self.tiebreak,
            "winner": who(self.winner),
            "reason": self.reason,
            "hands": [
                {
                    "player": who(h.seat),
                    "cards": [None if c is None else str(c) for c in h.cards],
                    "total": h.total,
                    "status": str(h.status),
                    "how": h.reason,
                    **({"left": True} if h.dropped else {}),
                }
                for h in self.hands
            ],
        }


def decided_leader(points: tuple[int, ...], active: Iterable[int], remaining: int) -> int | None:
    """The active seat that has won for sure, or None.

    It is decided when one active player leads and no other active player could reach
    (equal) his points even by winning all ``remaining`` rounds.

    >>> decided_leader((0, 3, 1), [0, 1, 2], 1)
    1
    >>> decided_leader((0, 3, 2), [0, 1, 2], 1) is None
    True
    """
    act = sorted(active)
    if not act:
        return None
    leader = max(act, key=lambda s: points[s])
    if all(points[s] + remaining < points[leader] for s in act if s != leader):
        return leader
    return None


@dataclass(frozen=True, slots=True)
class Match:
    """The whole state of an Oczko match; every action returns ``(new_match, events)``.

    Seats are numbered 0 to ``players - 1`` clockwise. ``me`` is the seat of the phone
    running this engine (None: full information, every card known). ``points`` is
    indexed by seat; ``gone`` the seats that left; ``round`` the round in play (the
    last one once the match is over); ``played`` the regular rounds finished;
    ``tiebreaks`` the tiebreak rounds finished; ``history`` the finished rounds.
    """

    players: int
    options: OczkoOptions = field(default_factory=OczkoOptions)
    me: int | None = None
    points: tuple[int, ...] = ()
    gone: frozenset[int] = frozenset()
    round: Round | None = None
    played: int = 0
    tiebreaks: int = 0
    history: tuple[RoundResult, ...] = ()
    winner: int | None = None
    end_reason: str = ""

    # --- construction ----------------------------------------------------------------------

    @classmethod
    def new(
        cls, players: int, options: OczkoOptions | None = None, *, me: int | None = None
    ) -> tuple[Match, Events]:
        """A match for ``players`` seats (2-7); round 1 waits for its deal.

        ``me``: the seat of the phone that runs this engine and sees only its own cards
        (None: full information, for the scenarios, bots and tests).
        """
        if not isinstance(players, int) or isinstance(players, bool):
            raise ValueError(f"players must be an integer, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"Oczko is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}")
        if me is not None and (type(me) is not int or not 0 <= me < players):
            raise ValueError(f"me must be a seat 0-{players - 1} or None, not {me!r}")
        m = cls(players, options or OczkoOptions(), me, points=(0,) * players)
        return m._start_round(tuple(range(players)), tiebreak=False)

    # --- queries ---------------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """True once the match has a winner."""
        return self.winner is not None

    @property
    def active(self) -> tuple[int, ...]:
        """Seats still at the table."""
        return tuple(s for s in range(self.players) if s not in self.gone)

    @property
    def rounds_played(self) -> int:
        """Finished rounds, tiebreaks included."""
        return len(self.history)

    @property
    def phase(self) -> Phase:
        """Phase of the current round (OVER once the match is over)."""
        assert self.round is not None
        return Phase.OVER if self.over else self.round.phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn it is (to draw or hold), or None."""
        return None if self.over or self.round is None else self.round.to_act

    @property
    def to_deal(self) -> int | None:
        """The seat the next card of the deal goes to, or None when not dealing."""
        return None if self.over or self.round is None else self.round.to_deal

    @property
    def to_reveal(self) -> tuple[int, ...]:
        """Seats whose hidden hands the showdown waits for (only when cards are hidden)."""
        return () if self.over or self.round is None else self.round.to_reveal

    def claim_due(self, seat: int) -> str | None:
        """What this phone must announce for its own seat now (see :meth:`Round.claim_due`):
        ``"persian"``, ``"bust"``, ``"hold"`` or None."""
        return None if self.over or self.round is None else self.round.claim_due(seat)

    def legal_actions(self, player: int | None = None) -> tuple[OczkoLegal, ...]:
        """Every action allowed now (only seat ``player``'s when given), whatever card it
        carries: exactly what :meth:`verify` lets through.

        The table's own actions (deal, close_deal, new_deck) have no player. In full
        information ``bust`` is never needed (it happens by itself). On a phone, for
        another seat ``bust`` is a claim it cannot check yet; for its own seat the cards
        decide: over 21 only ``bust``, at 21 only ``hold`` (and ``timeout``, the table's).
        """
        out: list[OczkoLegal] = []
        if player is None:
            out += [LegalAction(k) for k in TABLE_ACTIONS if self._allows(k, None)]
        seats = range(self.players) if player is None else (player,)
        for s in seats:
            out += [LegalAction(k, s) for k in SEAT_ACTIONS if self._allows(k, s)]
        return tuple(out)

    def verify(self, kind: ActionKind, seat: int | None = None) -> None:
        """Raise IllegalAction (stable code) unless ``kind`` by or about ``seat`` is allowed
        now, whatever card it carries; :meth:`apply` runs this first."""
        if kind is ActionKind.REJOIN:
            self._check_open()
            if type(seat) is not int or not 0 <= seat < self.players:
                raise IllegalAction(
                    "unknown_seat", f"no seat {seat!r} at this table", seat=repr(seat)
                )
            if seat not in self.gone:
                raise IllegalAction(
                    "illegal_action", f"seat {seat} has not left the table", seat=seat
                )
            if not self.between_rounds:
                raise IllegalAction(
                    "wrong_phase", "a player can rejoin only before a round is dealt", seat=seat
                )
            return
        if kind in SEAT_ACTIONS:
            self._check_seat(seat, allow_gone=kind in (ActionKind.REVEAL, ActionKind.FORFEIT))
        else:
            self._check_open()
        r = self.round
        assert r is not None
        if kind is ActionKind.DISCONNECT and seat not in r.order:
            return  # watching this round (a tiebreak): he just leaves
        rnd.check(r, kind, seat)

    def _allows(self, kind: ActionKind, seat: int | None) -> bool:
        try:
            self.verify(kind, seat)
        except IllegalAction:
            return False
        return True

    # --- actions ---------------------------------------------------------------------------

    def deal(self, card: Card | None) -> tuple[Match, Events]:
        """The next card of the deal goes to :attr:`to_deal` (None: hidden on this phone)."""
        return self._do(ActionKind.DEAL, None, (card,))

    def close_deal(self) -> tuple[Match, Events]:
        """Every Persian 21 proof is in (only needed when hands are hidden)."""
        return self._do(ActionKind.CLOSE_DEAL, None, ())

    def draw(self, seat: int, card: Card | None) -> tuple[Match, Events]:
        """``seat`` draws ``card`` (None: hidden on this phone)."""
        return self._do(ActionKind.DRAW, seat, (card,))

    def hold(self, seat: int) -> tuple[Match, Events]:
        """``seat`` holds his total and ends his turn."""
        return self._do(ActionKind.HOLD, seat, ())

    def timeout(self, seat: int) -> tuple[Match, Events]:
        """``seat``'s decision time ran out: he holds."""
        return self._do(ActionKind.TIMEOUT, seat, ())

    def bust(self, seat: int) -> tuple[Match, Events]:
        """``seat`` announces he is bust (his cards are hidden on this phone)."""
        return self._do(ActionKind.BUST, seat, ())

    def reveal(self, seat: int, cards: Iterable[Card]) -> tuple[Match, Events]:
        """``seat``'s cards are opened (showdown, or proof of a Persian 21)."""
        return self._do(ActionKind.REVEAL, seat, tuple(cards))

    def forfeit(self, seat: int) -> tuple[Match, Events]:
        """``seat``'s hand cannot be opened at the showdown: it counts as bust."""
        return self._do(ActionKind.FORFEIT, seat, ())

    def new_deck(self) -> tuple[Match, Events]:
        """A fresh deck is used from now on in this round (after a dropout)."""
        return self._do(ActionKind.NEW_DECK, None, ())

    def disconnect(self, seat: int) -> tuple[Match, Events]:
        """``seat`` left the table: bust this round unless decided, gone for the match."""
        return self._do(ActionKind.DISCONNECT, seat, ())

    def rejoin(self, seat: int) -> tuple[Match, Events]:
        """``seat``, who left, comes back before the next round is dealt, keeping his points.

        The waiting round is called again with him active (see the module docstring).

        >>> m, _ = Match.new(3)
        >>> m, _ = m.disconnect(2)
        >>> m, ev = m.rejoin(2)
        >>> [e.kind for e in ev], m.round.order, m.active
        (['rejoined', 'round_started'], (0, 1, 2), (0, 1, 2))
        """
        return self._do(ActionKind.REJOIN, seat, ())

    def void_round(self) -> tuple[Match, Events]:
        """The round in play is void (its deck was proven unfair, or a player cheated in
        it): nobody scores it, it does not count as played, and it is played again
        (a tiebreak again as a tiebreak) among the players still at the table.

        >>> m, _ = Match.new(2)
        >>> m, ev = m.void_round()
        >>> [e.kind for e in ev], m.round.number, m.played, m.points
        (['round_ended', 'round_started'], 2, 0, (0, 0))
        """
        self._check_open()
        r = self.round
        assert r is not None
        m = replace(
            self,
            history=(*self.history, RoundResult(r.number, r.tiebreak, None, VOID, r.hands)),
        )
        ended = RoundEnded(
            r.number,
            r.tiebreak,
            None,
            VOID,
            tuple((h.seat, h.total) for h in r.hands),
            tuple((h.seat, str(h.status)) for h in r.hands),
            m.points,
        )
        return m._call_round((ended,), tiebreak=r.tiebreak)

    @property
    def next_round_order(self) -> tuple[int, ...]:
        """The order the next regular round will have (as :meth:`_start_round` makes it:
        one seat on, among the players still in). The table shuffles a deck ahead in it, so
        that its deal goes around like any deck's."""
        r = self.round
        return self._rotation(1 if r is None else r.number + 1, self.active)

    def _rotation(self, number: int, seats: Iterable[int]) -> tuple[int, ...]:
        """Round ``number``'s order among ``seats``: from seat ``number - 1`` on, around."""
        first = (number - 1) % self.players
        present = set(seats)
        return tuple(
            s for s in ((first + i) % self.players for i in range(self.players)) if s in present
        )

    @property
    def between_rounds(self) -> bool:
        """True while the round in play waits for its first card (a rejoin is possible)."""
        r = self.round
        return (
            not self.over
            and r is not None
            and r.phase is Phase.DEAL
            and r.deal_pos == 0
            and all(not h.cards for h in r.hands)
        )

    def snapshot(self) -> dict[str, Any]:
        """The public match state between rounds, JSON-ready, for a phone that comes back.

        Only what every phone knows: options, points, who is gone, the finished rounds'
        results (without cards) and the waiting round. :meth:`resume` rebuilds an engine
        from it. IllegalAction ``wrong_phase`` once a card of the round is dealt.

        >>> m, _ = Match.new(2)
        >>> Match.resume(m.snapshot(), me=1) == Match.new(2, me=1)[0]
        True
        """
        if not self.between_rounds:
            raise IllegalAction("wrong_phase", "a snapshot is taken only between rounds")
        assert self.round is not None
        return {
            "players": self.players,
            "options": self.options.to_json(),
            "points": list(self.points),
            "gone": sorted(self.gone),
            "played": self.played,
            "tiebreaks": self.tiebreaks,
            "history": [
                {"round": r.number, "tiebreak": r.tiebreak, "winner": r.winner, "reason": r.reason}
                for r in self.history
            ],
            "round": {
                "number": self.round.number,
                "tiebreak": self.round.tiebreak,
                "order": list(self.round.order),
            },
        }

    @classmethod
    def resume(cls, data: Any, *, me: int | None = None) -> Match:
        """An engine for seat ``me`` from a :meth:`snapshot` (IllegalAction ``bad_message``).

        The snapshot is checked for consistency: it must be exactly the state a match
        reaches between rounds, so that the rejoined phone's copy agrees with the others.
        """
        try:
            m = cls._from_snapshot(data, me)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, IllegalAction):
                raise
            raise IllegalAction("bad_message", f"not a match snapshot: {exc}") from exc
        if m.snapshot() != data:
            raise IllegalAction("bad_message", "the snapshot is not a state between rounds")
        return m

    @classmethod
    def _from_snapshot(cls, data: Any, me: int | None) -> Match:
        def ints(v: Any) -> list[int]:
            if not isinstance(v, list) or any(type(x) is not int for x in v):
                raise ValueError(f"a list of integers expected, not {v!r}")
            return v

        if not isinstance(data, dict):
            raise ValueError("a snapshot is an object")
        base, _ = cls.new(data["players"], OczkoOptions(**data["options"]), me=me)
        n = base.players
        points, gone, order = ints(data["points"]), ints(data["gone"]), ints(data["round"]["order"])
        if len(points) != n or any(p < 0 for p in points):
            raise ValueError("one point count per seat")
        if any(not 0 <= s < n for s in (*gone, *order)):
            raise ValueError("a seat out of range")
        hist = []
        for h in data["history"]:
            w = h["winner"]
            if w is not None and (type(w) is not int or not 0 <= w < n):
                raise ValueError(f"bad winner {w!r}")
            if type(h["round"]) is not int or not isinstance(h["reason"], str):
                raise ValueError("bad round result")
            hist.append(RoundResult(h["round"], bool(h["tiebreak"]), w, h["reason"], ()))
        played, tiebreaks = data["played"], data["tiebreaks"]
        if type(played) is not int or type(tiebreaks) is not int:
            raise ValueError("played and tiebreaks are integers")
        if [r.number for r in hist] != list(range(1, len(hist) + 1)):
            raise ValueError("the finished rounds are numbered 1, 2, ...")
        counted = [r for r in hist if r.reason != VOID]
        if (played, tiebreaks) != (
            len(counted) - sum(r.tiebreak for r in counted),
            sum(r.tiebreak for r in counted),
        ):
            raise ValueError("played and tiebreaks do not match the finished rounds")
        won = [sum(r.winner == s for r in hist) for s in range(n)]
        if won != points:
            raise ValueError("the points do not match the finished rounds")
        # Players who left since the round was called are still in its order (as bust).
        late = [s for s in order if s in gone]
        m = replace(
            base,
            points=tuple(points),
            gone=frozenset(gone) - frozenset(late),
            played=played,
            tiebreaks=tiebreaks,
            history=tuple(hist),
        )
        # Call the waiting round the way the engine does; it must give the same round.
        m, _ = m._call_round((), tiebreak=bool(data["round"]["tiebreak"]))
        for s in late:
            if m.over or s not in m.active:
                raise ValueError("not a state between rounds")
            m, _ = m.disconnect(s)
        if m.over:
            raise ValueError("this match is over")
        return m

    def apply(self, action: Action) -> tuple[Match, Events]:
        """The match after ``action`` (as sent over the table) and the events it caused;
        IllegalAction (stable code) and nothing changes if it is not allowed."""
        if not isinstance(action, Action):
            raise IllegalAction("bad_action", f"not an Action: {action!r}")
        action.check_shape()
        return self._do(action.kind, action.seat, action.cards)

    def _do(
        self, kind: ActionKind, seat: int | None, cards: tuple[Card | None, ...]
    ) -> tuple[Match, Events]:
        self.verify(kind, seat)
        return _RUN[kind](self, seat, cards)

    def _run_disconnect(self, seat: int) -> tuple[Match, Events]:
        assert self.round is not None
        m = replace(self, gone=self.gone | {seat})
        if seat in self.round.order:
            return m._after_round_op(*rnd.disconnect(self.round, seat))
        return m._after_round_op(self.round, (Disconnected(self.round.number, seat),))

    def _run_rejoin(self, seat: int) -> tuple[Match, Events]:
        assert self.round is not None
        back = Rejoined(self.round.number, seat)
        m = replace(self, gone=self.gone - {seat})
        return m._call_round((back,), tiebreak=self.round.tiebreak)

    # --- internals -------------------------------------------------------------------------

    def _check_seat(self, seat: object, allow_gone: bool = False) -> None:
        self._check_open()
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.players:
            raise IllegalAction("unknown_seat", f"no seat {seat!r} at this table", seat=repr(seat))
        if seat in self.gone and not allow_gone:
            raise IllegalAction("player_gone", f"seat {seat} has left the table", seat=seat)

    def _check_open(self) -> None:
        if self.over:
            raise IllegalAction("match_over", "the match is over")

    def _after_round_op(self, r: Round, events: Events) -> tuple[Match, Events]:
        m = replace(self, round=r)
        if r.phase is Phase.OVER:
            m, more = m._finish_round()
            return m, events + more
        # A dropout can settle the match in the middle of a round; at the showdown the
        # results are in and only wait to be opened, so the round is finished first.
        if r.phase is Phase.SHOWDOWN:
            return m, events
        if len(m.active) == 1:
            return m._end(m.active[0], "last_player", events)
        if not r.tiebreak:
            leader = decided_leader(m.points, m.active, m.options.rounds - m.played)
            if leader is not None:
                return m._end(leader, "decided", events)
        return m, events

    def _finish_round(self) -> tuple[Match, Events]:
        r = self.round
        assert r is not None and r.phase is Phase.OVER
        points = list(self.points)
        if r.winner is not None:
            points[r.winner] += 1
        m = replace(
            self,
            points=tuple(points),
            played=self.played + (not r.tiebreak),
            tiebreaks=self.tiebreaks + r.tiebreak,
            history=(
                *self.history,
                RoundResult(r.number, r.tiebreak, r.winner, r.end_reason, r.hands),
            ),
        )
        ended = RoundEnded(
            r.number,
            r.tiebreak,
            r.winner,
            r.end_reason,
            tuple((h.seat, h.total) for h in r.hands),
            tuple((h.seat, str(h.status)) for h in r.hands),
            m.points,
        )
        return m._next(ended)

    def _next(self, ended: Event) -> tuple[Match, Events]:
        """After a round: end the match or start the next (tiebreak) round."""
        return self._call_round((ended,), tiebreak=self.options.rounds <= self.played)

    def _call_round(self, events: Events, tiebreak: bool) -> tuple[Match, Events]:
        """End the match or start the next regular (or tiebreak) round, after ``events``."""
        active = self.active
        if len(active) == 1:
            return self._end(active[0], "last_player", events)
        if not tiebreak:
            remaining = self.options.rounds - self.played
            leader = decided_leader(self.points, active, remaining)
            if leader is not None:
                return self._end(leader, "decided", events)
            m, started = self._start_round(active, tiebreak=False)
            return m, (*events, *started)
        best = max(self.points[s] for s in active)
        top = tuple(s for s in active if self.points[s] == best)
        if len(top) == 1:
            return self._end(top[0], "tiebreak" if self.tiebreaks else "rounds", events)
        m, started = self._start_round(top, tiebreak=True)
        return m, (*events, *started)

    def _start_round(self, seats: tuple[int, ...], tiebreak: bool) -> tuple[Match, Events]:
        number = len(self.history) + 1
        order = self._rotation(number, seats)
        r = Round.start(number, tiebreak, order, self.me)
        return replace(self, round=r), (RoundStarted(number, tiebreak, order),)

    def _end(self, winner: int, reason: str, events: Events) -> tuple[Match, Events]:
        m = replace(self, winner=winner, end_reason=reason)
        return m, (*events, MatchEnded(winner, reason, m.points))


OczkoLegal = LegalAction[ActionKind, int]
_Run = Callable[[Match, Any, tuple[Card | None, ...]], tuple[Match, Events]]


def _on_round(op: Callable[[Round, Any, tuple[Card | None, ...]], tuple[Round, Events]]) -> _Run:
    """An action that the round in play runs (checked already by :meth:`Match.verify`)."""

    def run(m: Match, seat: Any, cards: tuple[Card | None, ...]) -> tuple[Match, Events]:
        assert m.round is not None
        return m._after_round_op(*op(m.round, seat, cards))

    return run


#: What each kind does once :meth:`Match.verify` let it through.
_RUN: dict[ActionKind, _Run] = {
    ActionKind.DEAL: _on_round(lambda r, s, cs: rnd.deal(r, cs[0])),
    ActionKind.CLOSE_DEAL: _on_round(lambda r, s, cs: rnd.close_deal(r)),
    ActionKind.NEW_DECK: _on_round(lambda r, s, cs: rnd.new_deck(r)),
    ActionKind.DRAW: _on_round(lambda r, s, cs: rnd.draw(r, s, cs[0])),
    ActionKind.HOLD: _on_round(lambda r, s, cs: rnd.hold(r, s)),
    ActionKind.TIMEOUT: _on_round(lambda r, s, cs: rnd.hold(r, s, "timeout")),
    ActionKind.BUST: _on_round(lambda r, s, cs: rnd.claim_bust(r, s)),
    ActionKind.REVEAL: _on_round(lambda r, s, cs: rnd.reveal(r, s, cs)),  # type: ignore[arg-type]
    ActionKind.FORFEIT: _on_round(lambda r, s, cs: rnd.forfeit(r, s)),
    ActionKind.DISCONNECT: lambda m, s, cs: m._run_disconnect(s),
    ActionKind.REJOIN: lambda m, s, cs: m._run_rejoin(s),
}
