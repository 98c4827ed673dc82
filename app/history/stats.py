"""Statistics over stored rounds: pure functions of the records (no I/O).

Rounds are taken in the order they were played (the store's order, oldest first).
Only the records' fixed part is read (``detail`` may be None), so the store computes
the statistics of 10,000 rounds without decoding a single round's JSON.

>>> from app.history.model import Facts, RoundRecord
>>> r = RoundRecord("blackjack", "casino", "s", 1, 0.0, 1.0, "Ann", "won", "1000", "1015",
...                 Facts(hands=1, wins=1, blackjacks=1))
>>> s = blackjack_stats([r])
>>> s["hands"], s["wins"], s["net"], s["biggest_win"]
(1, 1, 15, 15)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from app.history.model import RoundRecord
from app.rules.money import money_json, to_money

#: How many sessions the rounds-won chart shows (the newest).
CHART_SESSIONS = 20
#: At most this many points in the score-over-time line (evenly thinned).
CHART_POINTS = 200


def _amount(text: str) -> int | Fraction:
    """A stored amount; whole chips (nearly all) without building a Fraction."""
    try:
        return int(text)
    except ValueError:
        return to_money(text)


def _net(r: RoundRecord) -> int | Fraction:
    return _amount(r.score_after) - _amount(r.score_before)


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


def _sessions(rounds: Sequence[RoundRecord]) -> list[dict[str, Any]]:
    """Per session (in order of first round): rounds played and won, EV lost."""
    by: dict[str, dict[str, Any]] = {}
    for r in rounds:
        s = by.setdefault(
            r.session,
            {
                "session": r.session,
                "started": r.started,
                "rounds": 0,
                "won": 0,
                "decisions": 0,
                "mistakes": 0,
                "ev_lost": 0.0,
            },
        )
        s["rounds"] += 1
        s["won"] += r.result == "won"
        s["decisions"] += r.facts.decisions
        s["mistakes"] += r.facts.mistakes
        s["ev_lost"] += r.facts.ev_lost
    return list(by.values())


def oczko_stats(rounds: Iterable[RoundRecord]) -> dict[str, Any]:
    """Oczko: matches, match wins, rounds, rounds won, Persian 21s, busts, average total
    when holding; charts: points over time and rounds won per match."""
    rs = [r for r in rounds if r.game == "oczko"]
    held = [r.facts.held_total for r in rs if r.facts.held_total is not None]
    won_so_far, line = 0, []
    for r in rs:
        won_so_far += r.result == "won"
        line.append(won_so_far)
    sessions = _sessions(rs)
    return {
        "game": "oczko",
        "matches": sum(r.facts.match_end is not None for r in rs),
        "match_wins": sum(r.facts.match_end == "won" for r in rs),
        "rounds": len(rs),
        "rounds_won": sum(r.result == "won" for r in rs),
        "persian21s": sum(r.facts.persian for r in rs),
        "busts": sum(r.facts.bust for r in rs),
        "holds": len(held),
        "average_hold": round(sum(held) / len(held), 2) if held else None,
        "chart_score": thin(line),
        "chart_won": [(s["won"], s["rounds"]) for s in sessions[-CHART_SESSIONS:]],
    }


def blackjack_stats(rounds: Iterable[RoundRecord]) -> dict[str, Any]:
    """Blackjack: hands, wins/pushes/losses, blackjacks, doubles and splits won, net
    chips, biggest win and loss (of a round), EV lost against best play per session;
    charts: net chips over time and rounds won per session."""
    rs = [r for r in rounds if r.game == "blackjack"]
    nets = [_net(r) for r in rs]
    total: int | Fraction = 0
    line = []
    for n in nets:
        total += n
        line.append(money_json(total))
    f = [r.facts for r in rs]
    wins = [n for n in nets if n > 0]
    losses = [n for n in nets if n < 0]
    sessions = _sessions(rs)
    return {
        "game": "blackjack",
        "rounds": len(rs),
        "sessions": len(sessions),
        "hands": sum(x.hands for x in f),
        "wins": sum(x.wins for x in f),
        "pushes": sum(x.pushes for x in f),
        "losses": sum(x.losses for x in f),
        "blackjacks": sum(x.blackjacks for x in f),
        "doubles_won": sum(x.doubles_won for x in f),
        "splits_won": sum(x.splits_won for x in f),
        "net": money_json(total),
        "biggest_win": money_json(max(wins)) if wins else None,
        "biggest_loss": money_json(min(losses)) if losses else None,
        "decisions": sum(x.decisions for x in f),
        "mistakes": sum(x.mistakes for x in f),
        "ev_lost": round(sum(x.ev_lost for x in f), 4),
        "ev_lost_sessions": [
            {
                "session": s["session"],
                "started": s["started"],
                "decisions": s["decisions"],
                "mistakes": s["mistakes"],
                "ev_lost": round(s["ev_lost"], 4),
            }
            for s in sessions
            if s["decisions"]
        ],
        "chart_score": thin(line),
        "chart_won": [(s["won"], s["rounds"]) for s in sessions[-CHART_SESSIONS:]],
    }


def statistics(rounds: Iterable[RoundRecord]) -> dict[str, dict[str, Any]]:
    """Both games' statistics: ``{"oczko": ..., "blackjack": ...}``."""
    rs = list(rounds)
    return {"oczko": oczko_stats(rs), "blackjack": blackjack_stats(rs)}
