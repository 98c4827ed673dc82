"""Benchmark of the blackjack analysis and simulator, each beside its plain-Python peer.

    python bench/strategy.py [--json] [--hands N]

* exact: seconds for the full 6-deck composition-dependent house edge in C (one thread
  and all cores); peer: the plain-Python reference (app.strategy.reference) and the C
  code on the *same smaller work unit* (a 24-card shoe), since the reference needs
  minutes for a real shoe.  (The reference C++ analyser of this kind, MGP's CA, takes
  about 0.5 s for the 6-deck game on one core here.)
* sim: hands per second per core of the C simulator; peer: a plain-Python loop
  playing the same strategy tables on fewer hands (no splits: labelled), scaled.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from types import SimpleNamespace

from app.native import handeval
from app.strategy import reference
from app.strategy.edge import house_edge
from app.strategy.rules import analysis_rules
from app.strategy.sim import simulate, strategy_tables

RULES = SimpleNamespace(decks=6)
SMALL_SHOE = [2] * 9 + [6]


def _best_of(fn, n: int = 3, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = clock()
        fn()
        best = min(best, clock() - t0)
    return best


# CPU time of this process: on a shared, loaded machine the wall clock of a
# single-threaded run also counts the time other processes held the core.
_cpu = time.process_time


def exact() -> dict:
    t = analysis_rules(RULES)
    shoe = [24] * 9 + [96]
    c1 = _best_of(lambda: handeval.game_ev(t, shoe, 1))
    c1_cpu = _best_of(lambda: handeval.game_ev(t, shoe, 1), clock=_cpu)
    cn = _best_of(lambda: handeval.game_ev(t, shoe, os.cpu_count() or 1))
    small_c = _best_of(lambda: handeval.game_ev(t, SMALL_SHOE, 1), clock=_cpu)
    small_py = _best_of(lambda: reference.game_ev(t, SMALL_SHOE), 1, clock=_cpu)
    return {
        "work": "6-deck S17 DAS CD house edge",
        "c_seconds_1_thread_wall": c1,
        "c_seconds_1_thread_cpu": c1_cpu,
        f"c_seconds_{os.cpu_count()}_threads": cn,
        "peer_mgp_ca_seconds_1_core_reported": 0.5,
        "small_unit": "24-card shoe, same rules, both implementations",
        "small_c_cpu_seconds": small_c,
        "small_python_reference_cpu_seconds": small_py,
        "python_over_c": small_py / small_c,
    }


def _py_sim(act2: bytes, multi: bytes, hands: int, seed: int) -> float:
    """Plain-Python peer: same tables, 6 decks, cut at 3/4, no splits (next preference)."""
    rng = random.Random(seed)
    shoe = [min(r, 9) for r in range(13) for _ in range(4)] * 6
    rng.shuffle(shoe)
    pos, total = 0, 0.0

    def tot(cards: list[int]) -> tuple[int, bool]:
        hard = sum(c + 1 for c in cards)
        soft = 0 in cards and hard + 10 <= 21
        return (hard + 10 if soft else hard), soft

    for _ in range(hands):
        if pos > 234:
            rng.shuffle(shoe)
            pos = 0
        p, up, d = [shoe[pos], shoe[pos + 2]], shoe[pos + 1], [shoe[pos + 1], shoe[pos + 3]]
        pos += 4
        if tot(d)[0] == 21:
            total += 0 if tot(p)[0] == 21 else -1
            continue
        if tot(p)[0] == 21:
            total += 1.5
            continue
        a, b = min(p), max(p)
        idx = a * 10 - a * (a - 1) // 2 + (b - a)
        acts = [
            x for x in act2[(up * 55 + idx) * 5 : (up * 55 + idx) * 5 + 5] if x not in (3, 4, 255)
        ]
        stake = 1
        if acts and acts[0] == 2:
            stake = 2
            p.append(shoe[pos])
            pos += 1
        elif acts and acts[0] == 1:
            while True:
                p.append(shoe[pos])
                pos += 1
                t, s = tot(p)
                if t >= 21 or not multi[(up * 2 + s) * 32 + t]:
                    break
        t, _ = tot(p)
        if t > 21:
            total -= stake
            continue
        dt, _ = tot(d)
        while dt < 17:
            d.append(shoe[pos])
            pos += 1
            dt, _ = tot(d)
        total += stake if dt > 21 or t > dt else (-stake if t < dt else 0)
    return total / hands


def sim(hands: int) -> dict:
    report = house_edge(RULES)
    c0 = _cpu()
    r1 = simulate(RULES, hands, threads=1, seed=1, report=report)
    r1_cpu = _cpu() - c0
    n = os.cpu_count() or 1
    rn = simulate(RULES, hands * n, threads=n, seed=2, report=report)
    act2, multi = strategy_tables(report)
    py_hands = 100_000
    t0 = time.perf_counter()
    c0 = _cpu()
    _py_sim(act2, multi, py_hands, 1)
    py_rate = py_hands / (time.perf_counter() - t0)
    py_rate_cpu = py_hands / (_cpu() - c0)
    return {
        "work": "6-deck S17 DAS rounds with the computed strategy, cut card at 3/4",
        "c_hands_per_second_1_thread_wall": r1.hands_per_second,
        "c_hands_per_second_1_thread_cpu": hands / r1_cpu,
        f"c_hands_per_second_{n}_threads": rn.hands_per_second,
        "c_hands_per_second_per_core": rn.hands_per_second / n,
        "python_peer": f"plain-Python loop, same tables, no splits, {py_hands} hands",
        "python_hands_per_second_wall": py_rate,
        "python_hands_per_second_cpu": py_rate_cpu,
        "c_over_python_cpu": (hands / r1_cpu) / py_rate_cpu,
        "target_per_core": 2e7,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--hands", type=int, default=5_000_000)
    args = p.parse_args(argv)
    out = {"exact": exact(), "sim": sim(args.hands)}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for section, values in out.items():
            print(section)
            for k, v in values.items():
                print(f"  {k:<40} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
