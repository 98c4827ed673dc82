"""Networked tables in one test process: host and guests over real TCP links
(127.0.0.1), stepped by the test. Shared by the lobby, match and SRA table tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from app.bluetooth.tcp import TcpTransport
from app.table.messages import Options
from app.table.table import GuestTable, HostTable, simple_bot

#: player ids by seat (the host is seat 0)
IDS = [c * 32 for c in "abcdef0123"]


def pump(*sides: Any, until: Callable[[], bool], timeout: float, wait: float = 0.002) -> None:
    """Step every side until ``until()`` holds (bounded in real time)."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "timed out"
        for side in sides:
            side.step(wait)


Settle = Callable[[Sequence[Any], Callable[[], bool]], None]  # (sides, until)


def guest(host: HostTable, seat: int, clock: Any, factory: Any, bot: Any = simple_bot):
    """The player of ``seat`` joins ``host`` (again, with a fresh phone, if he was there)."""
    return GuestTable.join(
        TcpTransport(),
        host.address,
        player_id=IDS[seat],
        name=f"P{seat}",
        lang="de",
        clock=clock,
        dealer_factory=factory,
        bot=bot,
    )


def open_table(
    guests: int,
    *,
    factory: Any,
    options: Options,
    clock: Any,
    settle: Settle,
    bot: Any = simple_bot,
) -> tuple[HostTable, list[GuestTable]]:
    """A host and ``guests`` guests seated, ready and the match begun (``factory``:
    every phone's dealer; ``settle(sides, until)`` steps the sides until ``until()``)."""
    host = HostTable(
        TcpTransport().listen(),
        player_id=IDS[0],
        name="Host",
        lang="pl",
        clock=clock,
        dealer_factory=factory,
        options=options,
        bot=bot,
    )
    players = [guest(host, i, clock, factory, bot) for i in range(1, guests + 1)]
    sides = [host, *players]
    settle(sides, lambda: all(p.seat is not None for p in players))
    for p in players:
        p.set_ready()
    settle(sides, lambda: host.seating.can_start())  # (seating is replaced on change)
    host.begin()
    return host, players
