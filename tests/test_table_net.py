"""The networked tables' test helpers (tests/table_net.py): ``quiet`` lets a test move
the fake clock only while nothing is on its way, a guest's connection included."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import table_net

from app.bluetooth.tcp import TcpTransport
from app.table.clock import FakeClock
from app.table.lobby import GuestLobby, HostLobby


class GatedListener:
    """A TCP listener whose accept waits until :attr:`gate` opens: the host's accepting
    thread as late as a loaded machine may make it (the guest's connection is made by
    the system meanwhile, its join sent)."""

    def __init__(self) -> None:
        self._inner = TcpTransport().listen()
        self.address = self._inner.address
        self.gate = threading.Event()

    @property
    def closed(self) -> bool:
        return self._inner.closed

    def accept(self, timeout: float | None = None, inbox: Any = None) -> Any:
        self.gate.wait()
        return self._inner.accept(timeout, inbox)

    def close(self) -> None:
        self._inner.close()
        self.gate.set()  # (a waiting accept now sees the close)

    def thread_done(self) -> None:
        self._inner.thread_done()


@pytest.fixture
def gated() -> Any:
    clock = FakeClock()
    listener = GatedListener()
    host = HostLobby(listener, player_id="a" * 32, name="Host", lang="en", clock=clock)
    guest = GuestLobby.connect(
        TcpTransport(), host.address, player_id="b" * 32, name="Ann", lang="en", clock=clock
    )
    yield listener, host, guest
    guest.link.close(linger=0)
    host.close()
    host.wait_closed()


def test_a_connection_the_host_has_not_accepted_yet_is_in_flight(gated: Any) -> None:
    listener, host, guest = gated
    sides = [host, guest]
    for _ in range(20):  # (however often both step: the host has not taken it in)
        host.step(0.001)
        guest.step(0.001)
        assert table_net.in_flight(sides) >= 1
        assert not table_net.quiet(sides)
    assert guest.seat is None
    listener.gate.set()
    table_net.pump(host, guest, until=lambda: guest.seat is not None and table_net.quiet(sides))
    assert table_net.in_flight(sides) == 0


def test_a_guest_of_a_host_not_among_the_sides_does_not_hold_the_clock(gated: Any) -> None:
    """Only a listener of one of ``sides`` is waited for (a frozen host is ``watch``ed or
    not at all, as before)."""
    _, _, guest = gated
    guest.step(0.001)  # (its link's Opened)
    assert table_net.in_flight([guest]) == 0
    assert table_net.quiet([guest])


def test_a_closed_hosts_listener_is_not_waited_for(gated: Any) -> None:
    listener, host, guest = gated
    host.close()
    assert listener.closed
    table_net.pump(host, guest, until=lambda: guest.closed)  # (it saw the host go)
    assert table_net.quiet([host, guest])
