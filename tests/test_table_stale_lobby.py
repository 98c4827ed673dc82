"""A guest that dies in the lobby (issue 16): over real TCP loopback, with real guest
processes (``blu21 table --join``) killed or frozen, never the host's code patched.

* killed (``SIGKILL``: the kernel closes its socket): the host drops him at once;
* frozen (``SIGSTOP``: the socket stays open, nothing comes, as when Bluetooth goes
  quiet): "Start" drops him after three missed heartbeats and starts with the others,
  or says why it cannot start; the heartbeat alone drops him after the silence limit.

The host runs on a fake clock; every wait is on an event from the links (a notice, a
heartbeat answered), bounded by a hang guard in real time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest

from app.bluetooth.ids import new_player_id
from app.bluetooth.tcp import TcpTransport
from app.spawn import blu21_command
from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.errors import TableError
from app.table.lobby import PING_EVERY, GuestLobby
from app.table.messages import Options
from app.table.oczko.guest import HostTable, simple_bot

HANG = 120.0  # seconds: a guard against a hang, not a speed target


def pump(host: HostTable, until: Callable[[], bool], *guests: GuestLobby) -> None:
    deadline = time.monotonic() + HANG
    while not until():
        assert time.monotonic() < deadline, "hung: the awaited event never came"
        host.step(0.01)
        for guest in guests:
            guest.step(0.0)


def left(host: HostTable, name: str) -> list[str]:
    """The reasons given when ``name`` left the table."""
    return [
        n.details["reason"]
        for n in host.notices
        if n.code == "player_left" and n.details.get("name") == name
    ]


Table = tuple[HostTable, FakeClock, Callable[[str], "subprocess.Popen[str]"]]


@pytest.fixture
def table() -> Iterator[Table]:
    clock = FakeClock()
    host = HostTable(
        TcpTransport().listen(),
        player_id=new_player_id(),
        name="Host",
        lang="en",
        clock=clock,
        dealer_factory=lambda seat, players: OpenDealer(seat),
        options=Options(rounds=1, turn_time=30, secret=False),
        bot=simple_bot,
    )
    children: list[subprocess.Popen[str]] = []

    def guest(name: str) -> subprocess.Popen[str]:
        argv = ["table", "--join", host.address, "--name", name, "--dealer", "open", "--bot"]
        child = subprocess.Popen(
            blu21_command(*argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        children.append(child)
        return child

    try:
        yield host, clock, guest
    finally:
        host.close()
        for child in children:
            if child.poll() is None:
                os.kill(child.pid, signal.SIGCONT)
                child.kill()
            child.wait(timeout=HANG)


def seated_and_ready(host: HostTable, names: set[str]) -> bool:
    sitters = host.seating.sitters[1:]
    return {s.name for s in sitters} == names and all(s.ready for s in sitters)


def test_start_drops_a_killed_and_a_frozen_guest_and_plays_with_the_others(table: Table) -> None:
    host, clock, guest = table
    killed, frozen, alive = guest("Killed"), guest("Frozen"), guest("Alive")
    pump(host, lambda: seated_and_ready(host, {"Killed", "Frozen", "Alive"}))
    killed.kill()  # its socket is closed by the kernel: the host sees the link end
    pump(host, lambda: bool(left(host, "Killed")))
    names = [s.name for s in host.seating.sitters]
    assert sorted(names) == ["Alive", "Frozen", "Host"]  # (seated in the order they came)
    os.kill(frozen.pid, signal.SIGSTOP)  # the link stays open; not a word comes
    clock.advance(host.lobby.stale_after)
    frozen_seat = names.index("Frozen")
    # the live guest answers the next heartbeat; the frozen one cannot
    pump(host, lambda: host.lobby.silent_seats() == [frozen_seat])
    assert host.seating.can_start()  # (he still looks ready and connected)
    host.begin()
    assert left(host, "Frozen") == ["silent"]
    assert [s.name for s in host.seating.sitters] == ["Host", "Alive"]
    started = [n for n in host.notices if n.code == "match_started"]
    assert started and started[-1].details["players"] == 2
    assert host.stage == "setup" and host.phone is not None
    # the match with the players present is really played
    pump(host, lambda: host.stage == "over" or host.closed)
    assert host.stage == "over" and host.phone.match.over
    assert alive.poll() is None or alive.returncode == 0


def test_start_says_why_not_when_nobody_else_is_left(table: Table) -> None:
    host, clock, guest = table
    frozen = guest("Frozen")
    pump(host, lambda: seated_and_ready(host, {"Frozen"}))
    os.kill(frozen.pid, signal.SIGSTOP)
    clock.advance(host.lobby.stale_after)
    pump(host, lambda: host.lobby.silent_seats() == [1])
    with pytest.raises(TableError) as err:
        host.begin()
    assert err.value.code == "too_few_players"
    assert left(host, "Frozen") == ["silent"] and host.stage == "lobby" and host.phone is None
    assert len(host.seating.sitters) == 1 and not host.seating.started


def test_the_heartbeat_alone_drops_a_frozen_guest(table: Table) -> None:
    host, clock, guest = table
    frozen = guest("Frozen")
    pump(host, lambda: seated_and_ready(host, {"Frozen"}))
    os.kill(frozen.pid, signal.SIGSTOP)
    # heartbeat after heartbeat on the fake clock, until the silence limit has passed
    while not left(host, "Frozen"):
        assert clock.now() < 1000.0 + 10 * host.silence_limit, "never dropped"
        clock.advance(PING_EVERY)
        host.step(0.0)
    assert left(host, "Frozen") == ["silent"] and len(host.seating.sitters) == 1


def test_start_names_a_guest_who_is_not_ready(table: Table) -> None:
    host, _clock, _guest = table
    slow = GuestLobby.connect(
        TcpTransport(),
        host.address,
        player_id=new_player_id(),
        name="Slow",
        lang="de",
        clock=FakeClock(),
    )
    try:
        pump(host, lambda: len(host.seating.sitters) == 2, slow)
        with pytest.raises(TableError) as err:
            host.begin()
        assert err.value.code == "player_not_ready" and err.value.details["name"] == "Slow"
        assert host.phone is None and not host.seating.started
        slow.set_ready()
        pump(host, lambda: host.seating.can_start(), slow)
        host.begin()
        assert host.seating.started
    finally:
        slow.leave()
