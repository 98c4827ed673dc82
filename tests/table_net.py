"""Networked tables in one test process: host and guests over real TCP links
(127.0.0.1), stepped by the test. Shared by the lobby, match and SRA table tests."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.tcp import TcpTransport, parse_address
from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.lobby import HostLobby
from app.table.messages import Options
from app.table.oczko.guest import GuestTable, HostTable, simple_bot

#: player ids by seat (the host is seat 0)
IDS = [c * 32 for c in "abcdef0123"]


#: Real seconds after which a wait on the table counts as hung. A guard against a test
#: that would never end, not a speed target: every wait here is for an event (a frame
#: in, a state reached), and a loaded machine only makes it come later.
HANG = 300.0


def pump(
    *sides: Any, until: Callable[[], bool], timeout: float = HANG, wait: float = 0.002
) -> None:
    """Step every side until ``until()`` holds (``timeout``: a hang guard, see HANG)."""
    deadline = time.monotonic() + max(timeout, HANG)
    while not until():
        assert time.monotonic() < deadline, "hung: the awaited event never came"
        for side in sides:
            side.step(wait)


def _links(side: Any) -> list[Any]:
    lobby = getattr(side, "lobby", None)
    side = lobby if isinstance(lobby, HostLobby) else side  # (a host holds its lobby)
    if hasattr(side, "_peers"):
        return [p.link for p in side._peers.values()]
    return [side.link]


def in_flight(sides: Sequence[Any]) -> int:
    """Frames sent on a link between two of ``sides`` that its other end has not yet
    put in its inbox (links are paired by their ends' socket addresses). A link to
    one of ``sides``' listeners that the host has not taken in yet (not accepted, or
    its ``Opened`` not yet handled) counts as one more, with all it sent: its join is
    on its way however long the host's accepting thread takes."""
    ends = {}
    for side in sides:
        for link in _links(side):
            pair = None if link.closed else _ends(link)
            if pair is not None:
                ends[pair] = link
    listening = {a for a in map(_listening, sides) if a is not None}
    total = 0
    for (mine, theirs), link in ends.items():
        peer = ends.get((theirs, mine))
        if peer is not None:
            total += max(0, link.frames_sent - peer.frames_received)
        elif theirs[:2] in listening:
            total += 1 + link.frames_sent
    return total


def _listening(side: Any) -> tuple[str, int] | None:
    """The (host, port) a host side listens on (None: not a host, or it stopped)."""
    lobby = getattr(side, "lobby", None)
    side = lobby if isinstance(lobby, HostLobby) else side
    listener = getattr(side, "listener", None)
    if listener is None or getattr(listener, "closed", False):
        return None
    try:
        return parse_address(str(getattr(listener, "address", "")))
    except TransportError:  # (not a TCP listener: nothing to pair with)
        return None


def _ends(link: Any) -> tuple[Any, Any] | None:
    stream = link._stream
    while hasattr(stream, "_inner"):  # (a fault-injecting wrapper)
        stream = stream._inner
    try:
        return stream._sock.getsockname(), stream._sock.getpeername()
    except OSError:  # closing meanwhile
        return None


def quiet(sides: Sequence[Any], watch: Sequence[Any] = ()) -> bool:
    """Nothing is happening: no frame in flight, every inbox empty, no dealer work left.
    Only then may a test move the fake clock on (else a slow machine would see time
    pass in the middle of a protocol step that takes no time on the table's clock).
    ``watch``: sides the test does not step (a frozen or scripted phone) whose frames
    still count while in flight; their own inboxes and work do not."""
    if in_flight([*sides, *watch]):
        return False
    for side in sides:
        if not side.inbox.empty():
            return False
        phone = getattr(side, "phone", None)
        if phone is not None and not side.closed and phone.dealer.has_work():
            return False
    return True


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
    players: list[GuestTable] = []
    for i in range(1, guests + 1):
        # One at a time: seats go by the order the host hears the joins in, and the
        # tests address players by seat.
        players.append(guest(host, i, clock, factory, bot))
        settle([host, *players], lambda: players[-1].seat is not None)
    sides = [host, *players]
    assert [p.seat for p in players] == list(range(1, guests + 1))
    for p in players:
        p.set_ready()
    settle(sides, lambda: host.seating.can_start())  # (seating is replaced on change)
    host.begin()
    return host, players


def open_dealer_table(
    guests: int = 2, *, seed: int = 0, rounds: int = 2, bot: Any = simple_bot
) -> tuple[HostTable, list[GuestTable], FakeClock]:
    """:func:`open_table` with the open test dealer on every phone (one random source
    from ``seed``), ``rounds`` rounds of 30 s turns on a fake clock: (host, guests, clock)."""
    clock = FakeClock()
    rng = random.Random(seed)
    host, players = open_table(
        guests,
        factory=lambda seat, n: OpenDealer(seat, rng=rng),
        options=Options(rounds=rounds, turn_time=30),
        clock=clock,
        settle=lambda sides, until: pump(*sides, until=until),
        bot=bot,
    )
    return host, players, clock
