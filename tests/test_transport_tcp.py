"""TCP links over loopback (127.0.0.1 only): the transport desktops, bots and tests use."""

from __future__ import annotations

import queue
import socket
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.bluetooth.errors import LinkClosed, TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME, MAGIC, encode_frame
from app.bluetooth.link import Acceptor, Closed, Listener, Opened, Received, Transport
from app.bluetooth.tcp import TcpTransport, format_address, parse_address

WAIT = 60.0  # hang guard, not a speed target


@pytest.fixture
def transport() -> TcpTransport:
    return TcpTransport()


@pytest.fixture
def listener(transport: TcpTransport):
    with transport.listen() as listener:
        yield listener


def _raw(listener) -> socket.socket:
    host, port = parse_address(listener.address)
    return socket.create_connection((host, port), timeout=WAIT)


def _next(inbox: queue.Queue, kind: type):
    event = inbox.get(timeout=WAIT)
    assert isinstance(event, kind), event
    return event


def test_tcp_implements_the_interface(transport: TcpTransport, listener) -> None:
    assert isinstance(transport, Transport)
    assert isinstance(listener, Listener)
    assert listener.address.startswith("127.0.0.1:")


def test_frames_flow_both_ways(transport: TcpTransport, listener) -> None:
    inbox: queue.Queue = queue.Queue()
    guest = transport.connect(listener.address, timeout=WAIT)
    host = listener.accept(timeout=WAIT, inbox=inbox)
    assert _next(inbox, Opened).link is host
    assert host.peer.startswith("tcp:127.0.0.1:") and guest.peer == "tcp:" + listener.address
    guest.send(b"hello host")
    host.send(b"hello guest")
    assert _next(inbox, Received).data == b"hello host"
    assert guest.recv(WAIT) == b"hello guest"
    big = bytes(range(256)) * (DEFAULT_MAX_FRAME // 256)  # the default limit
    guest.send(big)
    assert _next(inbox, Received).data == big
    guest.close()
    closed = _next(inbox, Closed)
    assert closed.link is host and closed.code == "peer_closed"
    assert host.closed and host.join(WAIT) and guest.join(WAIT)


def test_acceptor_serves_six_guests_and_a_leaver_closes_only_his_link(transport, listener) -> None:
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(listener, inbox)
    guests = [transport.connect(listener.address, timeout=WAIT) for _ in range(6)]
    seats = [_next(inbox, Opened).link for _ in guests]
    assert len(set(seats)) == 6
    for i, guest in enumerate(guests):
        guest.send(f"guest {i}".encode())
    senders = {}
    for _ in guests:
        event = _next(inbox, Received)
        senders[event.data] = event.link
    for data, seat in senders.items():
        seat.send(b"echo " + data)
    for i, guest in enumerate(guests):
        assert guest.recv(WAIT) == f"echo guest {i}".encode()
    guests[2].close()
    closed = _next(inbox, Closed)
    assert closed.link is senders[b"guest 2"]
    for i in (0, 1, 3, 4, 5):
        senders[f"guest {i}".encode()].send(b"still on")
        assert guests[i].recv(WAIT) == b"still on"
    assert acceptor.stop(WAIT)
    for link in (*guests, *seats):
        link.close(linger=0)
        assert link.join(WAIT)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"GET / HTTP/1.1\r\n\r\n", "frame_magic"),
        (MAGIC + (1 << 31).to_bytes(4, "big"), "frame_too_large"),
        (encode_frame(b"payload")[:-1] + b"\xff", "frame_checksum"),
        (encode_frame(b"payload")[:9], "frame_truncated"),
    ],
)
def test_a_malformed_peer_loses_only_its_own_link(
    transport, listener, raw: bytes, code: str
) -> None:
    inbox: queue.Queue = queue.Queue()
    acceptor = Acceptor(listener, inbox)
    good = transport.connect(listener.address, timeout=WAIT)
    good_seat = _next(inbox, Opened).link
    rogue = _raw(listener)
    rogue_seat = _next(inbox, Opened).link
    rogue.sendall(raw)
    rogue.shutdown(socket.SHUT_WR)  # so a truncated frame ends
    closed = _next(inbox, Closed)
    assert closed.link is rogue_seat and closed.code == code, closed
    good.send(b"unaffected")
    event = _next(inbox, Received)
    assert event.link is good_seat and event.data == b"unaffected"
    rogue.close()
    good.close()
    acceptor.stop(WAIT)


def test_a_peer_that_stops_reading_cannot_stall_the_sender() -> None:
    small = TcpTransport(max_pending=256 * 1024)
    with small.listen() as quiet_listener:
        silent = _raw(quiet_listener)  # connects, never reads
        seat = quiet_listener.accept(timeout=WAIT)
        chunk = b"z" * 65536
        with pytest.raises(TransportError) as info:
            for _ in range(2000):  # far more than any socket buffer: a blocking send
                seat.send(chunk)  # would hang here for good, the peer never reads
        assert info.value.code == "send_overflow"
        assert seat.close_code == "send_overflow"
        silent.close()
        assert seat.join(WAIT)


def test_concurrent_senders_never_interleave_frames(transport, listener) -> None:
    guest = transport.connect(listener.address, timeout=WAIT)
    seat = listener.accept(timeout=WAIT)

    def sender(tag: int) -> None:
        for i in range(200):
            guest.send(bytes([tag]) * (1 + (i * 37) % 3000) + i.to_bytes(2, "big"))

    threads = [threading.Thread(target=sender, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    got = [seat.recv(WAIT) for _ in range(800)]
    for tag in range(4):
        mine = [g for g in got if g[0] == tag]
        assert [int.from_bytes(g[-2:], "big") for g in mine] == list(range(200))
        assert all(set(g[:-2]) == {tag} for g in mine)
    guest.close()
    seat.close()


def test_close_delivers_what_was_sent_before_it(transport, listener) -> None:
    guest = transport.connect(listener.address, timeout=WAIT)
    host = listener.accept(timeout=WAIT)
    frames = [bytes([i]) * 5000 for i in range(100)]
    for frame in frames:
        host.send(frame)
    host.close(linger=WAIT)  # e.g. "the host left the table" as the last word
    assert [guest.recv(WAIT) for _ in frames] == frames
    with pytest.raises(LinkClosed) as info:
        guest.recv(WAIT)
    assert info.value.code == "peer_closed"


def test_listener_accept_timeout_close_and_wakeup(transport, listener) -> None:
    with pytest.raises(TransportError) as info:
        listener.accept(timeout=0.1)  # nobody connects: only the time-out can end it
    assert info.value.code == "timeout"
    errors: list[TransportError] = []

    def blocked() -> None:
        try:
            listener.accept()
        except TransportError as exc:
            errors.append(exc)

    thread = threading.Thread(target=blocked)
    thread.start()
    time.sleep(0.05)  # (likely blocked by now; closed first, accept says "closed" too)
    listener.close()
    thread.join(WAIT)
    assert not thread.is_alive()
    assert [e.code for e in errors] == ["closed"]
    with pytest.raises(TransportError) as again:
        listener.accept(timeout=0)
    assert again.value.code == "closed"


def test_connect_errors_are_clear(transport) -> None:
    with transport.listen() as listener:
        address = listener.address
    with pytest.raises(TransportError) as refused:
        transport.connect(address, timeout=WAIT)  # nobody listens there any more
    assert refused.value.code == "connect_failed"
    for bad in ("nohost", "127.0.0.1:", "127.0.0.1:99999", ":80", "127.0.0.1:x"):
        with pytest.raises(TransportError) as info:
            transport.connect(bad)
        assert info.value.code == "bad_address"


def test_listening_twice_on_one_port_is_a_clear_error(listener) -> None:
    _, port = parse_address(listener.address)
    with pytest.raises(TransportError) as info:
        TcpTransport(port=port).listen()
    assert info.value.code == "listen_failed"


def test_addresses_round_trip() -> None:
    assert parse_address("127.0.0.1:5000") == ("127.0.0.1", 5000)
    assert parse_address("[::1]:5000") == ("::1", 5000)
    assert format_address("::1", 5000) == "[::1]:5000"
    assert parse_address(format_address("10.0.0.2", 1)) == ("10.0.0.2", 1)


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.binary(max_size=3000), min_size=1, max_size=8),
    st.lists(st.integers(min_value=1, max_value=700), min_size=1, max_size=30),
)
def test_frames_arrive_whole_whatever_the_segmentation(
    frames: list[bytes], sizes: list[int]
) -> None:
    with TcpTransport().listen() as listener:
        raw = _raw(listener)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        seat = listener.accept(timeout=WAIT)
        stream = b"".join(encode_frame(f) for f in frames)
        pos, i = 0, 0
        while pos < len(stream):
            size = sizes[i % len(sizes)]
            raw.sendall(stream[pos : pos + size])
            pos += size
            i += 1
        assert [seat.recv(WAIT) for _ in frames] == frames
        raw.close()
        seat.close()
