"""House edge and basic-strategy chart of a table's rules (computed, never typed in).

The edge is exact for *composition-dependent optimal play of each initial hand*: every
two-card hand against every up card is played as well as possible knowing its own
cards (and, for splits, how many pair cards have gone; later split hands draw from the
shoe the earlier ones really left).  The Wizard of Odds "Appendix 9" tables use the same
definition except for splits (see docs/strategy.md).  The chart shown to players is the
*total-dependent* summary of that play: for each total the action with the best
probability-weighted EV over the hands making it.

>>> from types import SimpleNamespace
>>> r = house_edge(SimpleNamespace(decks=6))
>>> round(100 * r.house_edge, 2)
0.4
>>> r.chart.action("hard", 11, 6)
'D'
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.native import handeval
from app.strategy.rules import VALUE_NAMES, analysis_rules, describe, infinite_counts, shoe_counts

ACTIONS: tuple[str, ...] = ("stand", "hit", "double", "split", "surrender")
#: Column order of the chart: up cards 2-9, ten, ace (value indexes).
CHART_UPS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
STRATEGY_KIND = (
    "composition-dependent optimal play of each initial hand; split hands play on their "
    "own cards and the number of pair cards split, each drawing from the shoe the "
    "earlier hands left"
)


def _pairs() -> list[tuple[int, int]]:
    return [(a, b) for a in range(10) for b in range(a, 10)]


PAIRS: tuple[tuple[int, int], ...] = tuple(_pairs())


def _hand_total(a: int, b: int) -> tuple[int, bool]:
    hard = a + b + 2
    soft = (a == 0 or b == 0) and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


@dataclass(frozen=True)
class Chart:
    """Basic-strategy chart: codes per (kind, total or pair, up card value index).

    Codes: ``S`` stand, ``H`` hit, ``D`` double else hit, ``Ds`` double else stand,
    ``P`` split, ``R`` surrender else hit, ``Rs`` surrender else stand.
    Kinds: ``hard`` (totals 5-21), ``soft`` (13-21), ``pair`` (value index 0-9).
    """

    cells: dict[tuple[str, int, int], str]
    #: (up, soft, total) -> hit a hand of three or more cards
    multi_hit: dict[tuple[int, bool, int], bool]

    def action(self, kind: str, key: int, up: int) -> str:
        """The code for ``kind`` (hard/soft/pair) ``key`` against up card index ``up``."""
        return self.cells[(kind, key, up)]

    def rows(self) -> list[tuple[str, list[str]]]:
        """Printable rows: (label, codes for up cards 2..9, T, A)."""
        out = []
        for t in range(5, 22):
            out.append((f"hard {t}", [self.cells[("hard", t, u)] for u in CHART_UPS]))
        for t in range(13, 22):
            out.append((f"soft {t}", [self.cells[("soft", t, u)] for u in CHART_UPS]))
        for p in range(10):
            n = VALUE_NAMES[p]
            out.append((f"pair {n},{n}", [self.cells[("pair", p, u)] for u in CHART_UPS]))
        return out

    def text(self) -> str:
        """The chart as a fixed-width table."""
        head = "          " + " ".join(f"{VALUE_NAMES[u]:>3}" for u in CHART_UPS)
        lines = [head]
        lines += [
            f"{label:<10}" + " ".join(f"{c:>3}" for c in codes) for label, codes in self.rows()
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class EdgeReport:
    """Result of :func:`house_edge` (all figures per initial unit bet)."""

    rules: str
    decks: int | None
    ev: float
    house_edge: float
    strategy: str
    natural_ev: float
    dealer_blackjack_ev: float
    p_natural: float
    insurance_house_edge: float
    insurance_formula: float
    dealer_busts_probability: float
    dealer_busts_house_edge: float
    seconds: float
    chart: Chart = field(repr=False)
    #: per (up index, initial hand index) the EVs of the five actions (NaN = illegal)
    evs: tuple[tuple[float, ...], ...] = field(repr=False)
    probs: tuple[float, ...] = field(repr=False)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary (chart as rows)."""
        return {
            "rules": self.rules,
            "decks": self.decks,
            "ev": self.ev,
            "house_edge": self.house_edge,
            "house_edge_percent": 100 * self.house_edge,
            "strategy": self.strategy,
            "natural_ev": self.natural_ev,
            "dealer_blackjack_ev": self.dealer_blackjack_ev,
            "p_natural": self.p_natural,
            "insurance": {
                "house_edge": self.insurance_house_edge,
                "formula_(4D-1)/(52D-1)": self.insurance_formula,
            },
            "dealer_busts": {
                "probability": self.dealer_busts_probability,
                "house_edge_at_5_to_2": self.dealer_busts_house_edge,
            },
            "seconds": self.seconds,
            "chart": {label: codes for label, codes in self.chart.rows()},
            "chart_columns": [VALUE_NAMES[u] for u in CHART_UPS],
        }


def _argbest(evs: tuple[float, ...], allowed: tuple[int, ...]) -> int:
    best, arg = -math.inf, 0
    for a in allowed:
        v = evs[a]
        if not math.isnan(v) and v > best:
            best, arg = v, a
    return arg


def _code(evs: tuple[float, ...]) -> str:
    a = _argbest(evs, (0, 1, 2, 3, 4))
    fallback = "s" if _argbest(evs, (0, 1)) == 0 else ""
    if a == 2:
        return "D" + fallback
    if a == 4:
        return "R" + fallback
    return "SHDPR"[a]


def _chart(evs: list[float], probs: list[float], multi: list[float]) -> Chart:
    cells: dict[tuple[str, int, int], str] = {}
    for up in range(10):
        agg: dict[tuple[bool, int], list[float]] = {}
        for i, (a, b) in enumerate(PAIRS):
            e = tuple(evs[(up * 55 + i) * 5 : (up * 55 + i) * 5 + 5])
            p = probs[up * 55 + i]
            if a == b:
                cells[("pair", a, up)] = _code(e) if p > 0 else "-"
            t, soft = _hand_total(a, b)
            if t == 21 and soft and a != b:
                continue  # a natural: no decision
            key = (soft, t)
            if a == b and any(a2 != b2 and _hand_total(a2, b2) == (t, soft) for a2, b2 in PAIRS):
                continue  # totals made by other hands: the pair row covers the pair
            e_nosplit = tuple(math.nan if k == 3 else v for k, v in enumerate(e))
            acc = agg.setdefault(key, [0.0] * 6)
            if p > 0:
                acc[5] += p
                for k in range(5):
                    v = e_nosplit[k]
                    acc[k] = math.nan if math.isnan(v) or math.isnan(acc[k]) else acc[k] + p * v
        for (soft, t), acc in agg.items():
            e = tuple(acc[:5]) if acc[5] > 0 else (math.nan,) * 5
            cells[("soft" if soft else "hard", t, up)] = _code(e) if acc[5] > 0 else "-"
        for t in range(5, 22):
            cells.setdefault(("hard", t, up), "S" if t >= 17 else "H")
        for t in range(13, 22):
            cells.setdefault(("soft", t, up), "S" if t >= 19 else "H")
    multi_hit: dict[tuple[int, bool, int], bool] = {}
    for up in range(10):
        for soft in (False, True):
            for t in range(4, 22):
                w, st, hit = multi[
                    ((up * 2 + soft) * 32 + t) * 3 : ((up * 2 + soft) * 32 + t) * 3 + 3
                ]
                if w > 0:
                    multi_hit[(up, soft, t)] = hit > st and t < 21
                else:
                    multi_hit[(up, soft, t)] = t < (18 if soft else 17)
    # hard 21 (two cards) is never a decision: stand
    for up in range(10):
        cells[("hard", 21, up)] = "S"
    return Chart(cells, multi_hit)


def default_threads() -> int:
    """Worker threads for the analysis: the machine's cores (at most 10 up cards)."""
    return max(1, min(10, os.cpu_count() or 1))


def side_bets(rules: object, *, infinite: bool = False) -> tuple[float, float, float, float]:
    """(insurance house edge, (4D-1)/(52D-1), P(dealer busts), dealer-busts house edge).

    Insurance is the blind bet (placed whatever the player's cards; by exchangeability
    the average over the player's cards equals this).  The dealer-busts bet pays 5:2
    and the dealer always plays his hand out, so only the full shoe matters.
    """
    decks = int(getattr(rules, "decks", 6))
    h17 = bool(getattr(rules, "dealer_hits_soft_17", False))
    shoe = infinite_counts() if infinite else shoe_counts(decks)
    n = sum(shoe)
    less_ace = list(shoe)
    if not infinite:
        less_ace[0] -= 1
    p_bj = handeval.dealer_probs(0, less_ace, h17, False, infinite)[6]
    ins_edge = -(2 * p_bj - (1 - p_bj))
    formula = 1 / 13 if infinite else (4 * decks - 1) / (52 * decks - 1)
    p_bust = 0.0
    for up in range(10):
        comp = list(shoe)
        if not infinite:
            comp[up] -= 1
        p_bust += shoe[up] / n * handeval.dealer_probs(up, comp, h17, False, infinite)[5]
    bust_pays = float(Fraction(getattr(rules, "DEALER_BUSTS_PAYS", Fraction(5, 2))))
    return ins_edge, formula, p_bust, 1 - (1 + bust_pays) * p_bust


def house_edge(rules: object, *, infinite: bool = False, threads: int | None = None) -> EdgeReport:
    """Exact house edge of ``rules`` (any object with the ``TableRules`` field names)."""
    t = analysis_rules(rules, infinite=infinite)
    decks = None if infinite else int(getattr(rules, "decks", 6))
    shoe: list[float] | list[int] = infinite_counts() if decks is None else shoe_counts(decks)
    t0 = time.perf_counter()
    ev, evs, probs, multi, parts = handeval.game_ev(
        t, shoe, default_threads() if threads is None else threads
    )
    seconds = time.perf_counter() - t0
    ins, formula, p_bust, bust_edge = side_bets(rules, infinite=infinite)
    return EdgeReport(
        rules=describe(rules, infinite=infinite),
        decks=decks,
        ev=ev,
        house_edge=-ev,
        strategy=STRATEGY_KIND,
        natural_ev=parts[0],
        dealer_blackjack_ev=parts[1],
        p_natural=parts[3],
        insurance_house_edge=ins,
        insurance_formula=formula,
        dealer_busts_probability=p_bust,
        dealer_busts_house_edge=bust_edge,
        seconds=seconds,
        chart=_chart(evs, probs, multi),
        evs=tuple(tuple(evs[i * 5 : i * 5 + 5]) for i in range(550)),
        probs=tuple(probs),
    )
