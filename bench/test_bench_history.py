"""pytest-benchmark cases: the history store with 10,000 rounds beside the JSON-lines peer
(the same rounds as bench/history.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from history import make, sample_rounds  # bench/history.py

from app.history.model import RoundRecord
from app.history.stats import statistics
from app.history.store import open_store

N = 10_000


@pytest.fixture(scope="module")
def rounds(tmp_path_factory) -> list[RoundRecord]:
    return make(sample_rounds(tmp_path_factory.mktemp("samples")), N)


@pytest.fixture(scope="module")
def store(rounds, tmp_path_factory):
    s = open_store(tmp_path_factory.mktemp("db"))
    s.set_limit(N)
    s.add_many(rounds)
    yield s
    s.close()


@pytest.fixture(scope="module")
def jsonl(rounds, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("jsonl") / "history.jsonl"
    path.write_text("".join(json.dumps(r.to_json()) + "\n" for r in rounds), encoding="utf-8")
    return path


def test_bench_store_one_round(benchmark, store, rounds) -> None:
    it = iter(rounds * 2)
    benchmark(lambda: store.add(next(it)))
    assert store.count() == N  # pruned as it went


def test_bench_statistics_sqlite(benchmark, store) -> None:
    assert benchmark(store.stats)["blackjack"]["rounds"] > 0


def test_bench_statistics_jsonl_peer(benchmark, jsonl) -> None:
    def load_and_count():
        with jsonl.open(encoding="utf-8") as fh:
            return statistics(RoundRecord.from_json(json.loads(line)) for line in fh)

    benchmark.pedantic(load_and_count, rounds=1, iterations=1)
