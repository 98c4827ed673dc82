"""Casino tables in one test process: the real host and guests over TCP loopback,
stepped by the test on a fake clock (shared by the casino table tests)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from app.bluetooth.tcp import TcpTransport
from app.protocol.group import unsafe_test_group
from app.rules.table_rules import TableRules
from app.table.casino.bot import casino_bot
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.open_shoe import OpenShoe
from app.table.clock import FakeClock
from tests.table_net import in_flight

#: the test group keeps signatures cheap; the protocol is the same as on ffdhe2048
GROUP = unsafe_test_group()
IDS = [c * 32 for c in "abcdef0123"]
#: real seconds after which a wait counts as hung (a guard, not a speed target)
HANG = float(os.environ.get("BLU21_CASINO_HANG", "240"))


def shoes(seed: int) -> Callable[[int, int], OpenShoe]:
    rng = random.Random(seed)
    return lambda seat, players: OpenShoe(seat, rng=random.Random(rng.random()))


def links(side: Any) -> list[Any]:
    if isinstance(side, CasinoHost):
        return [p.link for p in side.lobby._peers.values()]
    return [side.link]


def quiet(sides: Sequence[Any]) -> bool:
    """No frame in flight or waiting in an inbox, no link with unsent data, no phone
    with shoe work left: only then may the test move the fake clock (a slow machine must
    not see time pass while a frame is on its way or a phone computes)."""
    for side in sides:
        if side.closed:
            continue
        if not side.inbox.empty() or any(getattr(k, "buffered", 0) for k in links(side)):
            return False
        # a phone still computing its part of a shoe is busy, not idle: on a loaded
        # machine its steps take longer, and the table's clock must not run meanwhile
        if side.phone is not None and not side.over and side.phone.dealer.has_work():
            return False
    return not in_flight(sides)


def run(
    sides: Sequence[Any], until: Callable[[], bool], clock: FakeClock, tick: float = 0.5
) -> int:
    """Step every side until ``until()``; when nothing moves, the fake clock moves on by
    ``tick`` (so timers fire only when the table is idle). Returns the steps taken."""
    deadline = time.monotonic() + HANG
    steps = idle = 0
    while not until():
        assert time.monotonic() < deadline, "hung: the awaited state never came"
        for side in sides:
            if not side.closed or isinstance(side, CasinoHost):
                side.step(0.001)
        steps += 1
        if quiet(sides):
            idle += 1
            if idle >= 3:
                clock.advance(tick)
                idle = 0
        else:
            idle = 0
    return steps


def join(
    host: CasinoHost, cls: type[CasinoGuest], seat: int, clock: FakeClock, factory: Any
) -> Any:
    """The player of ``seat`` joins ``host`` on a phone of ``cls`` (a Polish one), his
    shoe dealer from ``factory`` (again, with a fresh phone, if he was there)."""
    return cls.join(
        TcpTransport(),
        host.address,
        player_id=IDS[seat],
        name=f"P{seat}",
        lang="pl",
        clock=clock,
        shoe_factory=factory,
        bot=casino_bot,
        group=GROUP,
    )


def open_table(
    n: int,
    rules: TableRules,
    *,
    clock: FakeClock,
    seed: int = 1,
    bot: Any = casino_bot,
    bots: dict[int, Any] | None = None,
    factory: Any = None,
    guest_cls: type[CasinoGuest] = CasinoGuest,
    host_cls: type[CasinoHost] = CasinoHost,
    start: bool = True,
) -> tuple[CasinoHost, list[CasinoGuest]]:
    """A host and ``n - 1`` guests over TCP loopback, keys in, the table begun."""
    factory = factory or shoes(seed)
    bots = bots or {}
    host = host_cls(
        TcpTransport().listen(),
        player_id=IDS[0],
        name="Host",
        lang="en",
        clock=clock,
        shoe_factory=factory,
        rules=rules,
        bet_time=10,
        turn_time=10,
        bot=bots.get(0, bot),
        group=GROUP,
    )
    guests = []
    for i in range(1, n):
        guests.append(
            guest_cls.join(
                TcpTransport(),
                host.address,
                player_id=IDS[i],
                name=f"P{i}",
                lang="de",
                clock=clock,
                shoe_factory=factory,
                bot=bots.get(i, bot),
                group=GROUP,
            )
        )
        # one at a time, so that seats follow the order of joining
        run([host, *guests], lambda i=i: len(host._keys) == i, clock)
    sitters = host.lobby.seating.sitters
    run([host, *guests], lambda: all(s.ready for s in sitters) and len(sitters) == n, clock)
    if start:
        host.start()
        run([host, *guests], lambda: all(g.phone is not None for g in guests), clock)
    return host, guests


def settled(sides: Sequence[Any], rnd: int) -> Callable[[], bool]:
    """Every phone still at the table has settled round ``rnd`` (or caught a fault)."""

    def check() -> bool:
        return all(
            s.phone is not None and (rnd in s.phone.records or s.phone.fault is not None)
            for s in sides
            if not s.over
        )

    return check


def digests(side: Any) -> list[str]:
    return [side.phone.records[r].digest for r in sorted(side.phone.records)]
