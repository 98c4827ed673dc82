"""pytest-benchmark cases for the SRA shuffle + deal, each next to a named peer.

Run: ``pytest bench/test_bench_shuffle.py --benchmark-only``. Peers in the same run:
one full-size 2048-bit modexp through ``app.native.sra`` (the unit the protocol is
measured in) and the same round with the whole deck locked (the naive "lock all 52"
that the lock-only-what-is-needed rule avoids). The casino shoe likewise: a 6-deck
shoe's first deal beside the same shoe with every position locked up front.
"""

from __future__ import annotations

import secrets

import pytest
import shuffle as shuffle_bench  # bench/shuffle.py

from app.protocol.group import FFDHE2048
from app.protocol.harness import LocalTable
from app.protocol.seat import RoundSpec
from app.table.casino.sra_shoe import LOCK_MARGIN

G = FFDHE2048


def _table(n: int) -> LocalTable:
    t = LocalTable(n, G, seed=7)
    t.setup()
    for s in t.seats:
        s.identity.precompute(16)
    return t


def _round(t: LocalTable, lock_ahead: int) -> None:
    order = tuple(range(len(t.seats)))
    t.start(RoundSpec(1, order, lock_ahead=lock_ahead))
    t.reveal([(j, order[j % len(order)]) for j in range(2 * len(order))], order)
    assert all(len(s.hand(1)) == 2 for s in t.seats)


def test_bench_modexp_unit(benchmark):
    """Peer: one full-size modexp."""
    b = secrets.randbelow(G.p - 3) + 2
    e = secrets.randbelow(G.q - 1) + 1
    benchmark(G.ctx.pow, b, e)


@pytest.mark.parametrize("n", [2, 3])
def test_bench_shuffle_and_deal(benchmark, n):
    """Shuffle + initial deal, locking only the deal plus a spare card per seat."""
    benchmark.pedantic(_round, setup=lambda: ((_table(n), 0), {}), rounds=1, iterations=1)


def test_bench_shuffle_and_deal_lock_all_peer(benchmark):
    """Peer: the same 2-seat round locking the whole deck."""
    benchmark.pedantic(_round, setup=lambda: ((_table(2), 52), {}), rounds=1, iterations=1)


def _shoe(t: LocalTable, decks: int, margin: int) -> None:
    order = tuple(range(len(t.seats)))
    t.start(RoundSpec.shoe(1, order, decks, margin))
    first = range(2 * len(order) + 1)  # two cards per phone's box, one for the dealer
    for s in t.seats:
        t.post(s.seat, s.open_public(1, first))
    t.run()
    assert all(len(s.public(1)) == len(first) for s in t.seats)


def test_bench_shoe_first_deal(benchmark):
    """A 6-deck shoe among 2 phones until its first deal is open, the margin locked."""
    benchmark.pedantic(
        _shoe, setup=lambda: ((_table(2), 6, LOCK_MARGIN), {}), rounds=1, iterations=1
    )


def test_bench_shoe_first_deal_lock_all_peer(benchmark):
    """Peer: the same shoe with all 312 positions locked up front."""
    benchmark.pedantic(_shoe, setup=lambda: ((_table(2), 6, 312), {}), rounds=1, iterations=1)


@pytest.mark.parametrize(("n", "decks"), [(2, 1), (3, 2)])
def test_shoe_report_within_first_principles_bounds(n, decks):
    """Referee for the shoe report's critical path (no shared code: counted from the
    protocol's definition): at least the n-1 sequential shuffle passes of every card
    plus the first deal's opening, at most the naive count plus its signature checks;
    from a shoe shuffled in the background, at least the opening of each card."""
    row = shuffle_bench.shoe_report(n, decks, seed=1, check_weight=0.0)
    size, cards = 52 * decks, 2 * n + 1
    assert (n - 1) * size + cards <= row["critical_path_modexps"] <= row["critical_path_naive"]
    assert cards <= row["critical_path_modexps_background"] < (n - 1) * size
    assert row["positions_locked"] == LOCK_MARGIN
