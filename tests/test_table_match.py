"""Whole matches over real TCP links (127.0.0.1), host and guests in one process, with
the open test dealer and bots: every phone ends with the same result."""

from __future__ import annotations

import random
import time

import pytest

from app.bluetooth.tcp import TcpTransport
from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.messages import Options
from app.table.table import GuestTable, HostTable, simple_bot

WAIT = 20.0
IDS = [c * 32 for c in "abcdef0123"]


def pump(*sides, until, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out"
        for side in sides:
            side.step(0.002)


def make_table(guests: int, *, seed: int = 0, rounds: int = 3, clock=None, bots=True):
    clock = clock or FakeClock()
    rng = random.Random(seed)
    host = HostTable(
        TcpTransport().listen(),
        player_id=IDS[0],
        name="Host",
        lang="pl",
        clock=clock,
        dealer_factory=lambda seat, n: OpenDealer(seat, rng=rng),
        options=Options(rounds=rounds, turn_time=30),
        bot=simple_bot if bots else None,
    )
    players = [
        GuestTable.join(
            TcpTransport(),
            host.address,
            player_id=IDS[i],
            name=f"P{i}",
            lang="de",
            clock=clock,
            dealer_factory=lambda seat, n: OpenDealer(seat),
            bot=simple_bot if bots else None,
        )
        for i in range(1, guests + 1)
    ]
    pump(host, *players, until=lambda: all(p.seat is not None for p in players))
    for p in players:
        p.set_ready()
    pump(host, *players, until=lambda: host.seating.can_start())
    host.begin()
    return host, players, clock


def finished(host, guests) -> bool:
    phones = [host.phone] + [g.phone for g in guests if not g.closed]
    return all(p is not None and p.match.over for p in phones)


@pytest.mark.parametrize("guests", [1, 2, 4, 6])
def test_bots_play_a_full_match_and_agree(guests: int) -> None:
    host, players, _ = make_table(guests, seed=guests)
    pump(host, *players, until=lambda: finished(host, players))
    results = {(p.phone.match.winner, p.phone.match.points) for p in [host, *players]}
    assert len(results) == 1, results
    assert host.phone.violation is None and all(p.phone.violation is None for p in players)
    assert "match_over" in [n.code for n in host.notices]
    assert host.phone.match.rounds_played >= 1
    host.close()
