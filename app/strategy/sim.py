"""Monte-Carlo simulation of a table: the computed strategy through a real shoe.

The strategy is the analysis' own: each initial hand is played by its
composition-dependent action ranking (falling back to the next legal action), hands
of three or more cards hit or stand by the chart's total-dependent rule.  The shoe
is reshuffled at the cut card (``penetration``); one box, one unit bet per round.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from app.native import handeval
from app.strategy.edge import EdgeReport, house_edge
from app.strategy.rules import analysis_rules

NO_ACTION = 255


@dataclass(frozen=True)
class SimReport:
    """Simulated result: the player's mean result per round and its standard error."""

    hands: int
    ev: float
    house_edge: float
    standard_error: float
    seconds: float
    hands_per_second: float
    threads: int
    insurance_house_edge: float
    dealer_busts_house_edge: float

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "hands": self.hands,
            "ev": self.ev,
            "house_edge": self.house_edge,
            "house_edge_percent": 100 * self.house_edge,
            "standard_error": self.standard_error,
            "standard_error_percent": 100 * self.standard_error,
            "seconds": self.seconds,
            "hands_per_second": self.hands_per_second,
            "threads": self.threads,
            "insurance_house_edge": self.insurance_house_edge,
            "dealer_busts_house_edge": self.dealer_busts_house_edge,
        }


def strategy_tables(report: EdgeReport) -> tuple[bytes, bytes]:
    """(act2, multi) C tables of the simulator from an analysis report."""
    act2 = bytearray([NO_ACTION] * 2750)
    for i, evs in enumerate(report.evs):
        legal = sorted(
            (a for a in range(5) if not math.isnan(evs[a])), key=lambda a: evs[a], reverse=True
        )
        for j, a in enumerate(legal):
            act2[i * 5 + j] = a
    multi = bytearray(640)
    for (up, soft, t), hit in report.chart.multi_hit.items():
        multi[(up * 2 + int(soft)) * 32 + t] = int(hit)
    return bytes(act2), bytes(multi)


#: Rounds per native call when the caller follows the progress: about a tenth of a
#: second on one core, so the progress moves and Ctrl-C is seen between two calls.
PROGRESS_CHUNK = 500_000

#: added to the seed for every further chunk (the golden ratio: the seeds spread out)
_CHUNK_SEED_STEP = 0x9E3779B97F4A7C15


def simulate(
    rules: object,
    hands: int,
    *,
    threads: int | None = None,
    seed: int = 1,
    report: EdgeReport | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimReport:
    """Simulate ``hands`` rounds of ``rules`` played with the computed strategy.

    With ``progress``, the rounds are played in chunks of :data:`PROGRESS_CHUNK`, each
    from its own seed (derived from ``seed``), and ``progress(done, hands)`` is called
    before the first and after every chunk; the result is as reproducible by seed as
    without, and the same as without for at most one chunk of rounds.
    """
    if not isinstance(hands, int) or hands < 1:
        raise ValueError(f"hands must be a positive whole number, not {hands!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0, not {seed!r}")
    threads = max(1, os.cpu_count() or 1) if threads is None else threads
    if not 1 <= threads <= 256:
        raise ValueError(f"threads must be 1-256, not {threads}")
    report = report or house_edge(rules)
    act2, multi = strategy_tables(report)
    decks = int(getattr(rules, "decks", 6))
    pen = float(Fraction(getattr(rules, "penetration", Fraction(3, 4))))
    pen = min(max(pen, 0.1), 0.95)
    table = analysis_rules(rules)
    sizes = [hands]
    if progress is not None:
        sizes = [PROGRESS_CHUNK] * (hands // PROGRESS_CHUNK)
        sizes += [hands % PROGRESS_CHUNK] if hands % PROGRESS_CHUNK else []
        progress(0, hands)
    r: dict[str, float] = {}
    done = 0
    for i, size in enumerate(sizes):
        chunk_seed = (seed + i * _CHUNK_SEED_STEP) & (2**64 - 1)
        part = handeval.simulate(table, decks, pen, act2, multi, size, chunk_seed, threads)
        r = {k: r.get(k, 0) + v for k, v in part.items()}
        done += size
        if progress is not None:
            progress(done, hands)
    n = r["hands"]
    mean = r["total"] / n
    var = max(r["total_sq"] / n - mean * mean, 0.0)
    n_ins = n / 13  # an insurance bet on every ace up card: 1/13 of the rounds on average
    return SimReport(
        hands=hands,
        ev=mean,
        house_edge=-mean,
        standard_error=math.sqrt(var / n),
        seconds=r["seconds"],
        hands_per_second=n / r["seconds"] if r["seconds"] > 0 else math.inf,
        threads=threads,
        insurance_house_edge=-r["insurance_total"] / n_ins,
        dealer_busts_house_edge=-r["bust_bet_total"] / n,
    )
