"""The table service under the screens (app/table/service.py): host, join, find tables.

Most tests run the service over an in-memory transport (no sockets: byte pipes under the
real :class:`~app.bluetooth.link.StreamLink`) and a fake Bluetooth phone; one plays a
whole match over real TCP loopback, as the desktop app does.
"""

from __future__ import annotations

import itertools
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest
from table_net import pump

from app.bluetooth.android import MAJOR_PHONE, Device
from app.bluetooth.errors import TransportError
from app.bluetooth.link import ListenerBase, StreamLink
from app.bluetooth.tcp import TcpTransport
from app.table.errors import TableError
from app.table.oczko.guest import GuestTable, HostTable
from app.table.readiness import Situation
from app.table.service import (
    FoundTable,
    TableService,
    default_dealer,
    platform_service,
    tcp_service,
)
from app.views.table.bridge import direct, never

# -- an in-memory transport --------------------------------------------------------------


class _Pipe:
    """One direction of a byte stream."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.closed = False
        self.cond = threading.Condition()


class _End:
    """One end of an in-memory stream (the :class:`ByteStream` interface)."""

    def __init__(self, inbound: _Pipe, outbound: _Pipe) -> None:
        self._in, self._out = inbound, outbound

    def read(self, max_bytes: int) -> bytes:
        with self._in.cond:
            while not self._in.data and not self._in.closed:
                self._in.cond.wait()
            chunk = bytes(self._in.data[:max_bytes])
            del self._in.data[:max_bytes]
            return chunk

    def write(self, data: bytes) -> None:
        with self._out.cond:
            if self._out.closed:
                raise OSError("closed")
            self._out.data += data
            self._out.cond.notify_all()

    def close(self) -> None:
        for pipe in (self._in, self._out):
            with pipe.cond:
                pipe.closed = True
                pipe.cond.notify_all()

    def thread_done(self) -> None:
        pass


class _Listener(ListenerBase):
    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.waiting: queue.Queue[_End | None] = queue.Queue()

    def accept(self, timeout: float | None = None, inbox: Any = None) -> StreamLink:
        end = self.waiting.get(timeout=timeout)
        if end is None or self.closed:
            raise TransportError("closed", "listener closed")
        return StreamLink(end, f"mem:guest@{self.address}", inbox=inbox)

    def close(self) -> None:
        if self._mark_closed():
            self.waiting.put(None)

    def thread_done(self) -> None:
        pass


class MemoryTransport:
    """Links between tables in this process; counts what was opened."""

    name = "memory"
    _numbers = itertools.count(1)

    def __init__(self) -> None:
        self.listeners: dict[str, _Listener] = {}
        self.listened = 0
        self.connected = 0

    def listen(self) -> _Listener:
        self.listened += 1
        listener = _Listener(f"mem:{next(self._numbers)}")
        self.listeners[listener.address] = listener
        return listener

    def connect(self, address: str, *, timeout: float = 15.0, inbox: Any = None) -> StreamLink:
        self.connected += 1
        listener = self.listeners.get(address)
        if listener is None or listener.closed:
            raise TransportError("connect_failed", f"nobody listens at {address}")
        there, back = _Pipe(), _Pipe()
        listener.waiting.put(_End(there, back))
        return StreamLink(_End(back, there), address, inbox=inbox)


def _service(transport: Any, dealer: Callable[[], str] = lambda: "open") -> TableService:
    return TableService(lambda: transport, dealer=dealer)


def _play_out(host: HostTable, guests: list[GuestTable]) -> None:
    """Seat and ready every guest, start, and hold whenever it is a player's turn."""
    sides: list[Any] = [host, *guests]
    pump(*sides, until=lambda: all(g.seat is not None for g in guests))
    for g in guests:
        g.set_ready()
    pump(*sides, until=lambda: all(s.ready for s in host.seating.sitters))
    host.begin()

    answered: dict[int, Any] = {}  # side -> the (immutable) match state it last answered

    def over() -> bool:
        done = True
        for i, side in enumerate(sides):  # a phone whose turn it is holds, once per state
            m = None if side.phone is None else side.phone.match
            if m is None or not m.over:
                done = False
                mine = m is not None and m.round is not None and m.to_act == side.phone.seat
                if mine and answered.get(i) is not m:
                    answered[i] = m
                    side.act("hold")
        return done

    pump(*sides, until=over)


# -- hosting and joining -------------------------------------------------------------------


def test_a_table_opens_and_plays_over_the_services_transport() -> None:
    mem = MemoryTransport()
    service = _service(mem)
    host = service.host(name="Ala", lang="pl", rounds=2, turn_time=30)
    guest = service.join(host.address, name="Bartek", lang="de")
    try:
        assert (mem.listened, mem.connected) == (1, 1)
        assert host.seating.options.rounds == 2 and host.seating.options.turn_time == 30
        assert host.seating.options.secret is False  # the open dealer, announced
        _play_out(host, [guest])
        assert host.phone is not None and guest.phone is not None
        assert host.phone.match.points == guest.phone.match.points
        assert not host.phone.match.gone  # nobody was dropped
        assert [s.name for s in host.seating.sitters] == ["Ala", "Bartek"]
    finally:
        host.close()
        guest.leave()


def test_the_service_dealer_is_the_secure_one_and_the_table_says_so() -> None:
    mem = MemoryTransport()
    host = _service(mem, dealer=default_dealer).host(name="Ala", lang="en", rounds=1, turn_time=30)
    try:
        assert host.seating.options.secret is True  # SRA: card secrecy announced
    finally:
        host.close()


def test_a_chosen_dealer_overrides_the_services() -> None:
    mem = MemoryTransport()
    host = _service(mem, dealer=default_dealer).host(
        name="Ala", lang="en", rounds=1, turn_time=30, dealer="open"
    )
    try:
        assert host.seating.options.secret is False
    finally:
        host.close()


def test_without_the_secure_dealer_nothing_listens_or_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No silent fall-back to the open dealer: without the native module the service
    refuses before it touches the transport, on the host and on the guest."""
    monkeypatch.setitem(sys.modules, "app.native.sra", None)  # the import fails
    mem = MemoryTransport()
    service = _service(mem, dealer=default_dealer)
    with pytest.raises(TableError) as hosting:
        service.host(name="Ala", lang="en", rounds=1, turn_time=30)
    with pytest.raises(TableError) as joining:
        service.join("mem:1", name="Bartek", lang="en")
    assert hosting.value.code == joining.value.code == "no_secure_dealer"
    assert (mem.listened, mem.connected) == (0, 0)


def test_the_player_reads_why_no_table_opens_in_his_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.i18n import set_language
    from app.i18n.codes import message_for
    from app.views.oczko.network import NetworkTable

    monkeypatch.setitem(sys.modules, "app.native.sra", None)
    mem = MemoryTransport()
    net = NetworkTable(  # (headless: pushed on the worker thread)
        post=direct,
        later=never,
        hosting=True,
        name="Ala",
        service=_service(mem, dealer=default_dealer),
        awake=lambda _on: None,
        on_main=lambda fn: fn(),
    )
    assert net.wait_open(10.0) is False
    assert net.error == "no_secure_dealer" and net.closed and mem.listened == 0
    texts = set()
    for lang in ("en", "de", "pl"):
        set_language(lang)
        texts.add(message_for(net.error))
    set_language("en")
    assert len(texts) == 3 and all(texts)


def test_the_transport_is_made_once_for_the_apps_life() -> None:
    made: list[MemoryTransport] = []

    def factory() -> MemoryTransport:
        made.append(MemoryTransport())
        return made[-1]

    service = TableService(factory)
    assert service.transport() is service.transport()
    assert len(made) == 1


def test_platform_services() -> None:
    desktop = platform_service(android=False)
    assert desktop.bluetooth is False and isinstance(desktop.transport(), TcpTransport)
    phone = platform_service(android=True)
    assert phone.bluetooth is True  # its transport is made only when first needed


# -- finding a table -----------------------------------------------------------------------


class FakePhone:
    """The Bluetooth calls the host list makes, scripted."""

    def __init__(self, paired: list[Device], fail_discovery: bool = False) -> None:
        self.paired = paired
        self.fail_discovery = fail_discovery
        self.on_found: Callable[[Device], None] | None = None
        self.stopped = 0

    def paired_devices(self) -> list[Device]:
        return list(self.paired)

    def discover(self, on_found: Callable[[Device], None]) -> None:
        if self.fail_discovery:
            raise TransportError("permission_denied", "no scan permission")
        self.on_found = on_found

    def stop_discovery(self) -> None:
        self.stopped += 1


ALA = Device("00:00:00:00:00:0A", "Ala", True, MAJOR_PHONE)
HEADSET = Device("00:00:00:00:00:0B", "Headset", True, 0x0400)
BO = Device("00:00:00:00:00:0C", "", False, MAJOR_PHONE)


def test_the_host_list_shows_paired_phones_first_then_what_discovery_finds() -> None:
    phone = FakePhone([ALA, HEADSET])
    service = TableService(lambda: phone, bluetooth=True)
    changes: list[int] = []
    search = service.find_tables(Situation("join"), lambda: changes.append(1))
    assert search.discovering and search.error is None
    assert search.tables() == [FoundTable("Ala", ALA.address, True)]  # no headphones
    assert phone.on_found is not None
    phone.on_found(BO)
    phone.on_found(Device(ALA.address, "Ala", False, MAJOR_PHONE))  # already listed
    phone.on_found(Device(BO.address, "Bo", False, MAJOR_PHONE))  # its name came later
    assert len(changes) == 3
    assert search.tables() == [
        FoundTable("Ala", ALA.address, True),
        FoundTable("Bo", BO.address, False),
    ]
    search.stop()
    search.stop()
    assert phone.stopped == 1


def test_without_the_search_only_paired_phones_are_listed() -> None:
    phone = FakePhone([ALA])
    service = TableService(lambda: phone, bluetooth=True)
    search = service.find_tables(Situation("join", paired_only=True), lambda: None)
    assert not search.discovering and phone.on_found is None
    assert [t.name for t in search.tables()] == ["Ala"]


def test_a_failed_search_keeps_the_paired_phones_and_says_why() -> None:
    phone = FakePhone([ALA], fail_discovery=True)
    search = TableService(lambda: phone, bluetooth=True).find_tables(
        Situation("join"), lambda: None
    )
    assert search.error == "permission_denied" and not search.discovering
    assert [t.address for t in search.tables()] == [ALA.address]


def test_over_tcp_a_guest_types_the_address() -> None:
    with pytest.raises(TableError) as info:
        tcp_service().find_tables(Situation("join"), lambda: None)
    assert info.value.code == "bluetooth_unavailable"


# -- over real TCP loopback ----------------------------------------------------------------


def test_a_whole_match_over_tcp_loopback() -> None:
    service = tcp_service(dealer=lambda: "open")
    host = service.host(name="Ala", lang="en", rounds=3, turn_time=30)
    guests = [service.join(host.address, name=n, lang="pl") for n in ("Bartek", "Celina")]
    try:
        assert host.address.startswith("127.0.0.1:")
        _play_out(host, guests)
        sides: list[Any] = [host, *guests]
        results = {(tuple(s.phone.match.points), s.phone.match.winner) for s in sides}
        assert len(results) == 1  # every phone ends with the same result
        assert host.phone is not None and not host.phone.match.gone
        # the host sits first; the guests in the order their links came in (either)
        names = [s.name for s in host.seating.sitters]
        assert names[0] == "Ala" and sorted(names[1:]) == ["Bartek", "Celina"]
    finally:
        host.close()
        for g in guests:
            g.leave()
