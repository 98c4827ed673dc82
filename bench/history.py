"""Benchmark of the hand history (app/history/store.py) beside a named peer: the same
rounds appended as JSON lines to a plain file.

    python bench/history.py [--json] [--rounds 10000]

* store_ms: time to store one round in a database already holding ``--rounds`` rounds
  (at the limit, so each store also prunes the oldest); target <= 5 ms.
* list_ms: open the database and read the history screen's data (the count and the
  newest 50 rounds without their detail).
* stats_ms: both games' statistics over all stored rounds; target <= 200 ms.
* bytes_per_1000: the database file's size per 1,000 rounds (after a checkpoint).
* peer: the same for a JSON-lines file (append one line and flush; read and parse every
  line for the list and the statistics; its size).

The rounds are real: a practice Oczko match and a blackjack session are played and
recorded, and their records repeated (with new numbers and times) up to ``--rounds``.
Times are medians of several runs (wall clock, seconds shown in milliseconds).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics as st
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.history.live import Recorder
from app.history.model import RoundRecord
from app.history.stats import statistics
from app.history.store import HistoryStore, open_store


def sample_rounds(tmp: Path) -> list[RoundRecord]:
    """Records of real rounds: one practice Oczko match and one blackjack session."""
    import app.history.live as live
    from app.views.sample_play import play_blackjack, play_practice

    rec = Recorder()
    rec.configure(tmp)
    live.RECORDER = rec
    play_practice(["Me", "Ada", "Bruno", "Cyra"], rounds=7, seed=1)
    play_blackjack("Me", ["B1", "B2"], rounds=20, seed=2)
    rounds = rec.store.rounds(newest_first=False)
    rec.configure(None)
    return rounds


def make(samples: list[RoundRecord], n: int) -> list[RoundRecord]:
    """``n`` records cycling through ``samples`` (ids cleared, numbers and times new)."""
    out = []
    for i in range(n):
        r = samples[i % len(samples)]
        out.append(
            dataclasses.replace(r, id=None, number=i, started=1e9 + i * 60, ended=1e9 + i * 60 + 30)
        )
    return out


def _median_ms(fn: Callable[[], object], runs: int) -> dict[str, float]:
    """Median wall time and median CPU time of this process (on a shared, loaded
    machine the wall clock also counts the time other processes held the core or the
    disk), in milliseconds."""
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"wall": round(st.median(wall) * 1000, 3), "cpu": round(st.median(cpu) * 1000, 3)}


def bench_store(rounds: list[RoundRecord], tmp: Path) -> dict:
    store = open_store(tmp / "db")
    store.set_limit(len(rounds))
    store.add_many(rounds)  # the set-up in one transaction; the timed part stores one by one
    extra = make(rounds[:50], 50)
    it = iter(extra * 10)
    store_ms = _median_ms(lambda: store.add(next(it)), 200)
    store.close()  # a checkpoint: the WAL folded into the file
    path = store.path
    size = path.stat().st_size

    def open_list():
        with HistoryStore(path) as s:
            s.count()
            s.rounds(limit=50, detail=False)

    with HistoryStore(path) as s:
        stats_ms = _median_ms(s.stats, 5)
        assert s.count() == len(rounds)
    return {
        "store_ms": store_ms,
        "list_ms": _median_ms(open_list, 5),
        "stats_ms": stats_ms,
        "bytes_per_1000": round(size * 1000 / len(rounds)),
    }


def bench_jsonl(rounds: list[RoundRecord], tmp: Path) -> dict:
    path = tmp / "history.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for r in rounds:
            fh.write(json.dumps(r.to_json(), separators=(",", ":")) + "\n")
    extra = iter(make(rounds[:50], 50) * 10)

    def append():
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(next(extra).to_json(), separators=(",", ":")) + "\n")
            fh.flush()

    store_ms = _median_ms(append, 200)
    size = path.stat().st_size

    def load():
        with path.open(encoding="utf-8") as fh:
            return [RoundRecord.from_json(json.loads(line)) for line in fh]

    def open_list():
        all_ = load()
        return len(all_), all_[-50:]

    return {
        "store_ms": store_ms,
        "list_ms": _median_ms(open_list, 3),
        "stats_ms": _median_ms(lambda: statistics(load()), 3),
        "bytes_per_1000": round(size * 1000 / (len(rounds) + 200)),
        "note": "append + flush per round; the list and the statistics parse every line",
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--rounds", type=int, default=10_000)
    ns = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="history-bench-") as d:
        tmp = Path(d)
        samples = sample_rounds(tmp / "samples")
        rounds = make(samples, ns.rounds)
        result = {
            "rounds": ns.rounds,
            "sample_rounds": len(samples),
            "sqlite": bench_store(rounds, tmp),
            "peer_jsonl": bench_jsonl(rounds, tmp),
            "targets": {"store_ms": 5.0, "stats_ms": 200.0},
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
        }
    s, j = result["sqlite"], result["peer_jsonl"]
    result["within_targets"] = {
        clock: s["store_ms"][clock] <= 5.0 and s["stats_ms"][clock] <= 200.0
        for clock in ("wall", "cpu")
    }
    if ns.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"{ns.rounds} rounds ({len(samples)} real rounds repeated)")
        for key in ("store_ms", "list_ms", "stats_ms", "bytes_per_1000"):
            print(f"  {key:<15} sqlite {s[key]!s:>36}   json lines {j[key]!s:>36}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
