"""Statistics over stored rounds: pure functions (no I/O).

Two steps: a :class:`Tally` per game (counts and sums, per-session figures and the
per-round series the charts need), then the figures shown (:func:`oczko_stats`,
:func:`blackjack_stats`). :func:`tally` counts a list of records in Python; the store
counts the same with SQL over its columns (:meth:`app.history.store.HistoryStore.stats`),
so 10,000 rounds are summed without building 10,000 objects. Both feed the same
formatting, and the tests check that both equal a plain recomputation.

Rounds are taken in the order they were played (the store's order, oldest first).

>>> from app.history.model import Facts, RoundRecord
>>> r = RoundRecord("blackjack", "casino", "s", 1, 0.0, 1.0, "Ann", "won", "1000", "1015",
...                 Facts(hands=1, wins=1, blackjacks=1))
>>> s = statistics([r])["blackjack"]
>>> s["hands"], s["wins"], s["net"], s["biggest_win"]
(1, 1, 15, 15)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.history.model import RoundRecord
from app.rules.money import money_json, to_money

#: How many sessions the rounds-won chart shows (the newest).
CHART_SESSIONS = 20
#: At most this many points in the score-over-time line (evenly thinned).
CHART_POINTS = 200
#: The facts summed over rounds.
SUMMED = (
    "hands", "wins", "pushes", "losses", "blackjacks", "doubles_won", "splits_won",
    "decisions", "mistakes", "ev_lost", "persian", "bust",
)  # fmt: skip


@dataclass(frozen=True)
class SessionTally:
    """One session (a match, a blackjack session) of one game."""

    session: str
    started: float  # of its first round
    rounds: int
    won: int
    decisions: int
    mistakes: int
    ev_lost: float


@dataclass(frozen=True)
class Tally:
    """What the statistics of one game are computed from.

    ``series``: per round in order, 1/0 (won) for Oczko, the net chips for blackjack.
    ``holds``/``hold_sum``: rounds with a held total and their sum; ``matches``/
    ``match_wins``: rounds that ended a match (and won it)."""

    rounds: int = 0
    won: int = 0
    sums: Mapping[str, int | float] = field(default_factory=dict)
    matches: int = 0
    match_wins: int = 0
    holds: int = 0
    hold_sum: int = 0
    sessions: tuple[SessionTally, ...] = ()
    series: tuple[int | Fraction, ...] = ()


def amount(text: str) -> int | Fraction:
    """A stored amount; whole chips (nearly all) without building a Fraction."""
    try:
        return int(text)
    except ValueError:
        return to_money(text)


def tally(records: Iterable[RoundRecord], game: str) -> Tally:
    """Count ``game``'s rounds among ``records`` (in the order given)."""
    rs = [r for r in records if r.game == game]
    sums: dict[str, int | float] = dict.fromkeys(SUMMED, 0)
    sessions: dict[str, list[Any]] = {}
    series: list[int | Fraction] = []
    matches = match_wins = holds = hold_sum = 0
    for r in rs:
        f = r.facts
        for k in SUMMED:
            sums[k] += getattr(f, k)
        matches += f.match_end is not None
        match_wins += f.match_end == "won"
        if f.held_total is not None:
            holds, hold_sum = holds + 1, hold_sum + f.held_total
        won = r.result == "won"
        s = sessions.setdefault(r.session, [r.session, r.started, 0, 0, 0, 0, 0.0])
        s[2], s[3], s[4], s[5], s[6] = (
            s[2] + 1, s[3] + won, s[4] + f.decisions, s[5] + f.mistakes, s[6] + f.ev_lost,
        )  # fmt: skip
        series.append(
            int(won) if game == "oczko" else amount(r.score_after) - amount(r.score_before)
        )
    return Tally(
        rounds=len(rs),
        won=sum(r.result == "won" for r in rs),
        sums=sums,
        matches=matches,
        match_wins=match_wins,
        holds=holds,
        hold_sum=hold_sum,
        sessions=tuple(SessionTally(*s) for s in sessions.values()),
        series=tuple(series),
    )


def thin(values: Sequence[Any], limit: int = CHART_POINTS) -> list[Any]:
    """At most ``limit`` values, evenly spread, the first and the last always kept.

    >>> thin(list(range(10)), 4)
    [0, 3, 6, 9]
    """
    n = len(values)
    if n <= limit:
        return list(values)
    if limit < 2:
        return [values[-1]]
    return [values[round(i * (n - 1) / (limit - 1))] for i in range(limit)]


def _running(values: Iterable[int | Fraction]) -> list[int | Fraction]:
    total: int | Fraction = 0
    out = []
    for v in values:
        total += v
        out.append(total)
    return out


def _won_chart(t: Tally) -> list[tuple[int, int]]:
    return [(s.won, s.rounds) for s in t.sessions[-CHART_SESSIONS:]]


def oczko_stats(t: Tally) -> dict[str, Any]:
    """Oczko: matches, match wins, rounds, rounds won, Persian 21s, busts, average total
    when holding; charts: points over time and rounds won per match."""
    return {
        "game": "oczko",
        "matches": t.matches,
        "match_wins": t.match_wins,
        "rounds": t.rounds,
        "rounds_won": t.won,
        "persian21s": t.sums.get("persian", 0),
        "busts": t.sums.get("bust", 0),
        "holds": t.holds,
        "average_hold": round(t.hold_sum / t.holds, 2) if t.holds else None,
        "chart_score": thin(_running(t.series)),
        "chart_won": _won_chart(t),
    }


def blackjack_stats(t: Tally) -> dict[str, Any]:
    """Blackjack: hands, wins/pushes/losses, blackjacks, doubles and splits won, net
    chips, biggest win and loss (of a round), EV lost against best play per session;
    charts: net chips over time and rounds won per session."""
    nets = t.series
    wins = [n for n in nets if n > 0]
    losses = [n for n in nets if n < 0]
    s = t.sums
    return {
        "game": "blackjack",
        "rounds": t.rounds,
        "sessions": len(t.sessions),
        **{k: s.get(k, 0) for k in SUMMED[:7]},
        "net": money_json(Fraction(sum(nets, Fraction(0)))),
        "biggest_win": money_json(Fraction(max(wins))) if wins else None,
        "biggest_loss": money_json(Fraction(min(losses))) if losses else None,
        "decisions": s.get("decisions", 0),
        "mistakes": s.get("mistakes", 0),
        "ev_lost": round(s.get("ev_lost", 0.0), 4),
        "ev_lost_sessions": [
            {
                "session": x.session,
                "started": x.started,
                "decisions": x.decisions,
                "mistakes": x.mistakes,
                "ev_lost": round(x.ev_lost, 4),
            }
            for x in t.sessions
            if x.decisions
        ],
        "chart_score": [money_json(v) for v in thin(_running(nets))],
        "chart_won": _won_chart(t),
    }


def from_tallies(oczko: Tally, blackjack: Tally) -> dict[str, dict[str, Any]]:
    """Both games' statistics from their tallies."""
    return {"oczko": oczko_stats(oczko), "blackjack": blackjack_stats(blackjack)}


def statistics(records: Iterable[RoundRecord]) -> dict[str, dict[str, Any]]:
    """Both games' statistics over ``records``: ``{"oczko": ..., "blackjack": ...}``."""
    rs = list(records)
    return from_tallies(tally(rs, "oczko"), tally(rs, "blackjack"))
