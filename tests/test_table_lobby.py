"""The lobby over real TCP links (127.0.0.1) with a fake clock: joining, readiness,
refusals, rejoining, heartbeats, malformed guests, the host leaving."""

from __future__ import annotations

import socket

import pytest
import table_net
from table_net import IDS

from app.bluetooth.framing import encode_frame
from app.bluetooth.tcp import TcpTransport, parse_address
from app.table.clock import FakeClock
from app.table.errors import TableError
from app.table.lobby import JOIN_WITHIN, PING_EVERY, SILENCE_LIMIT, GuestLobby, HostLobby
from app.table.messages import CONTROL, Options

WAIT = table_net.HANG  # a guard against a hung test, not a speed target


def pump(*sides, until, timeout: float = WAIT) -> None:
    table_net.pump(*sides, until=until, timeout=timeout, wait=0.005)


def codes(side) -> list[str]:
    return [n.code for n in side.notices]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def host(clock):
    transport = TcpTransport()
    host = HostLobby(transport.listen(), player_id=IDS[0], name="Host", lang="pl", clock=clock)
    yield host
    host.close()


def join(host, clock, i: int, name: str | None = None, lang: str = "de") -> GuestLobby:
    guest = GuestLobby.connect(
        TcpTransport(), host.address, player_id=IDS[i], name=name or f"P{i}", lang=lang, clock=clock
    )
    pump(host, guest, until=lambda: guest.seat is not None or guest.closed)
    return guest


def test_guests_join_get_ready_and_the_match_starts(host, clock) -> None:
    a, b = join(host, clock, 1, "Ala", "pl"), join(host, clock, 2, "Bartek", "de")
    assert (a.seat, b.seat) == (1, 2)
    pump(host, a, b, until=lambda: a.lobby is not None and len(a.lobby.players) == 3)
    assert [(p.name, p.lang) for p in a.lobby.players] == [
        ("Host", "pl"),
        ("Ala", "pl"),
        ("Bartek", "de"),
    ]
    with pytest.raises(TableError):
        host.start()  # nobody is ready yet
    a.set_ready()
    b.set_ready()
    pump(host, a, b, until=lambda: host.seating.can_start())
    host.set_options(Options(rounds=3, turn_time=20))
    pump(
        host,
        a,
        b,
        until=lambda: b.lobby.options == Options(3, 20) and all(p.ready for p in b.lobby.players),
    )
    host.start()
    assert "match_started" in codes(host)
    a.leave()
    b.leave()


def test_a_full_table_and_a_running_match_refuse_newcomers(clock) -> None:
    host = HostLobby(
        TcpTransport().listen(), player_id=IDS[0], name="Host", lang="pl", clock=clock, options=None
    )
    host.seating = host.seating.__class__.new(IDS[0], "Host", "pl", max_players=2)
    a = join(host, clock, 1)
    late = join(host, clock, 2)
    pump(host, late, until=lambda: late.closed)
    assert "refused" in codes(late) and late.notices[-1].details["code"] == "table_full"
    a.set_ready()
    pump(host, a, until=lambda: host.seating.can_start())
    host.start()
    later = join(host, clock, 3)
    pump(host, later, until=lambda: later.closed)
    assert later.notices[-1].details["code"] == "game_running"
    assert len(host.seating.sitters) == 2  # nobody disturbed the game
    host.close()


def test_a_dropped_player_gets_his_seat_back(host, clock) -> None:
    a, b = join(host, clock, 1), join(host, clock, 2)
    a.set_ready()
    b.set_ready()
    pump(host, a, b, until=lambda: host.seating.can_start())
    host.start()
    b.link.close(linger=0)  # the phone vanished
    pump(host, until=lambda: "player_left" in codes(host))
    assert not host.seating.sitters[2].connected
    back = join(host, clock, 2)
    assert back.seat == 2 and back.notices[0].details["rejoin"] is True
    assert host.seating.sitters[2].connected and host.seating.sitters[2].returning
    assert "player_rejoined" in codes(host)


def test_a_guest_leaving_before_the_match_frees_his_seat(host, clock) -> None:
    a, b, c = (join(host, clock, i) for i in (1, 2, 3))
    b.leave()
    pump(
        host, a, c, until=lambda: c.seat == 2 and len(c.lobby.players) == len(a.lobby.players) == 3
    )
    assert [p.name for p in a.lobby.players] == ["Host", "P1", "P3"]


def test_heartbeats_keep_live_guests_and_drop_silent_ones(host, clock) -> None:
    live, silent = join(host, clock, 1), join(host, clock, 2)
    heard = next(p for p in host._peers.values() if p.seat == 1)
    for _ in range(int(SILENCE_LIMIT / PING_EVERY) + 2):
        clock.advance(PING_EVERY)
        # The host pings; the live guest's pong is in before the next beat (the silent
        # guest never steps, never answers).
        pump(host, live, until=lambda: heard.last_heard == clock.now())
    pump(host, live, until=lambda: "player_left" in codes(host))
    left = [n for n in host.notices if n.code == "player_left"]
    assert [(n.details["seat"], n.details["reason"]) for n in left] == [(2, "silent")]
    assert live.seat == 1 and not live.closed
    pump(silent, until=lambda: silent.closed)  # when it wakes up, it finds itself dropped
    assert silent.notices[-1].code == "host_lost"


def test_a_guest_notices_a_silent_host(host, clock) -> None:
    guest = join(host, clock, 1)
    clock.advance(SILENCE_LIMIT + PING_EVERY)  # the host never steps again
    pump(guest, until=lambda: guest.closed)
    assert guest.notices[-1].code == "host_lost"


def test_a_guest_that_never_joins_is_dropped(host, clock) -> None:
    raw = socket.create_connection(parse_address(host.address), timeout=WAIT)
    pump(host, until=lambda: host._peers)
    clock.advance(JOIN_WITHIN)
    pump(host, until=lambda: not host._peers)
    raw.close()


def test_a_malformed_guest_loses_only_his_link(host, clock) -> None:
    good, bad = join(host, clock, 1), join(host, clock, 2)
    bad.link.send(CONTROL + b'{"t":"act","round":1,"action":"fold"}')
    pump(host, good, bad, until=lambda: "player_left" in codes(host))
    assert host.notices[-1].details["reason"] == "bad_message"
    pump(host, good, until=lambda: len(good.lobby.players) == 2)
    assert not good.closed


def test_an_empty_frame_drops_the_guest(host, clock) -> None:
    guest = GuestLobby.connect(
        TcpTransport(), host.address, player_id=IDS[1], name="ok", lang="pl", clock=clock
    )
    guest.link.send(b"")  # an empty frame is not a table message either
    pump(host, guest, until=lambda: guest.closed)
    assert guest.notices[-1].code == "host_lost"
    assert not host.seating.sitters[1:]


def test_the_host_leaving_tells_every_guest(host, clock) -> None:
    a, b = join(host, clock, 1), join(host, clock, 2)
    host.close()
    pump(a, b, until=lambda: a.closed and b.closed)
    for guest in (a, b):
        assert guest.notices[-1].code == "table_closed"
        assert guest.notices[-1].details == {"reason": "host_left"}


def test_a_host_that_vanishes_is_noticed(host, clock) -> None:
    a = join(host, clock, 1)
    for link in list(host._peers):
        link.close(linger=0)  # no goodbye
    pump(a, until=lambda: a.closed)
    assert a.notices[-1].code == "host_lost"


def test_raw_garbage_from_a_peer_closes_its_link(host, clock) -> None:
    raw = socket.create_connection(parse_address(host.address), timeout=WAIT)
    raw.sendall(encode_frame(b"\x09nonsense"))
    raw.settimeout(0.01)

    def hung_up() -> bool:
        try:
            return raw.recv(100) == b""
        except TimeoutError:
            return False

    pump(host, until=hung_up)
    raw.close()
    assert len(host.seating.sitters) == 1
