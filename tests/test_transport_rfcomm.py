"""Linux RFCOMM (app/bluetooth/rfcomm.py): availability detection, and the transport's own
logic over a stand-in socket module (BlueZ RFCOMM semantics carried by loopback TCP)."""

from __future__ import annotations

import errno
import queue
import socket
import types

import pytest

from app.bluetooth.errors import LinkClosed, TransportError
from app.bluetooth.link import Closed, Opened, Received
from app.bluetooth.rfcomm import (
    DEFAULT_CHANNEL,
    RfcommTransport,
    parse_rfcomm_address,
    rfcomm_available,
    rfcomm_unavailable_reason,
)

WAIT = 60.0  # hang guard, not a speed target
HOST_ADDR = "00:1A:7D:DA:71:13"
GUEST_ADDR = "00:1A:7D:DA:71:14"


class FakeBlueZ:
    """A socket module with AF_BLUETOOTH: RFCOMM (address, channel) endpoints over TCP."""

    AF_BLUETOOTH = 31
    BTPROTO_RFCOMM = 3
    SOCK_STREAM = socket.SOCK_STREAM

    def __init__(self, local: str) -> None:
        self.local = local
        self.channels: dict[tuple[str, int], int] = {}
        self.create_errno: int | None = None
        self.connect_errno: int | None = None

    def socket(self, family: int, type_: int, proto: int) -> FakeRfcommSocket:
        assert (family, type_, proto) == (self.AF_BLUETOOTH, self.SOCK_STREAM, self.BTPROTO_RFCOMM)
        if self.create_errno is not None:
            raise OSError(self.create_errno, errno.errorcode[self.create_errno])
        return FakeRfcommSocket(self, socket.socket(socket.AF_INET, socket.SOCK_STREAM))


class FakeRfcommSocket:
    def __init__(self, bluez: FakeBlueZ, sock: socket.socket) -> None:
        self._bluez = bluez
        self._sock = sock
        self._name = (bluez.local, 0)
        self._bound: tuple[str, int] | None = None

    def bind(self, address: tuple[str, int]) -> None:
        bdaddr, channel = address
        local = self._bluez.local if bdaddr == "00:00:00:00:00:00" else bdaddr
        if (local, channel) in self._bluez.channels:
            raise OSError(errno.EADDRINUSE, "Address already in use")
        self._sock.bind(("127.0.0.1", 0))
        self._bluez.channels[(local, channel)] = self._sock.getsockname()[1]
        self._name = self._bound = (local, channel)

    def getsockname(self) -> tuple[str, int]:
        return self._name

    def accept(self) -> tuple[FakeRfcommSocket, tuple[str, int]]:
        conn, _ = self._sock.accept()
        return FakeRfcommSocket(self._bluez, conn), (GUEST_ADDR, 1)

    def connect(self, address: tuple[str, int]) -> None:
        if self._bluez.connect_errno is not None:
            raise OSError(self._bluez.connect_errno, errno.errorcode[self._bluez.connect_errno])
        port = self._bluez.channels.get(address)
        if port is None:
            raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
        self._sock.connect(("127.0.0.1", port))

    def close(self) -> None:
        if self._bound is not None:
            self._bluez.channels.pop(self._bound, None)
        self._sock.close()

    def __getattr__(self, name: str):  # listen, settimeout, recv, sendall, shutdown
        return getattr(self._sock, name)


def test_detection_matches_the_interpreter() -> None:
    has = hasattr(socket, "AF_BLUETOOTH") and hasattr(socket, "BTPROTO_RFCOMM")
    assert rfcomm_available() is has
    assert (rfcomm_unavailable_reason() is None) is has


def test_missing_bluetooth_sockets_give_a_clear_error() -> None:
    no_bt = types.SimpleNamespace(SOCK_STREAM=socket.SOCK_STREAM)
    assert not rfcomm_available(no_bt)
    with pytest.raises(TransportError) as info:
        RfcommTransport(socket_module=no_bt)
    assert info.value.code == "unsupported"
    message = str(info.value)
    assert "socket.AF_BLUETOOTH" in message and "socket.BTPROTO_RFCOMM" in message
    assert "TCP" in message
    half = types.SimpleNamespace(AF_BLUETOOTH=31)
    assert rfcomm_unavailable_reason(half) is not None
    assert "BTPROTO_RFCOMM" in rfcomm_unavailable_reason(half)
    assert "AF_BLUETOOTH" not in rfcomm_unavailable_reason(half)


def test_the_real_socket_module_gives_a_link_or_a_clear_error() -> None:
    # Whatever this machine is: no crash, and an error (if any) carries a stable code.
    try:
        transport = RfcommTransport()
        listener = transport.listen()
    except TransportError as exc:
        expected = (
            {"unsupported"}
            if not rfcomm_available()
            else {
                "unsupported",
                "no_adapter",
                "bluetooth_off",
                "permission_denied",
                "listen_failed",
            }
        )
        assert exc.code in expected, exc
    else:
        assert listener.address.endswith(f"/{DEFAULT_CHANNEL}")
        listener.close()


def test_frames_flow_over_rfcomm_sockets() -> None:
    bluez = FakeBlueZ(HOST_ADDR)
    transport = RfcommTransport(socket_module=bluez)
    inbox: queue.Queue = queue.Queue()
    with transport.listen() as listener:
        assert listener.address == f"{HOST_ADDR}/{DEFAULT_CHANNEL}"
        guest = transport.connect(HOST_ADDR.lower(), timeout=WAIT)
        host = listener.accept(timeout=WAIT, inbox=inbox)
        assert guest.peer == f"bt:{HOST_ADDR}" and host.peer == f"bt:{GUEST_ADDR}"
        assert isinstance(inbox.get(timeout=WAIT), Opened)
        guest.send(b"over rfcomm")
        event = inbox.get(timeout=WAIT)
        assert isinstance(event, Received) and event.data == b"over rfcomm"
        host.send(b"back")
        assert guest.recv(WAIT) == b"back"
        guest.close()
        closed = inbox.get(timeout=WAIT)
        assert isinstance(closed, Closed) and closed.code == "peer_closed"
        assert host.closed
        with pytest.raises(TransportError) as info:
            host.send(b"x")
        assert info.value.code == "closed"
        with pytest.raises(LinkClosed) as info:
            guest.recv(WAIT)
        assert info.value.code == "local_close"


def test_other_channels_and_addresses() -> None:
    bluez = FakeBlueZ(HOST_ADDR)
    with RfcommTransport(channel=12, socket_module=bluez).listen() as listener:
        transport = RfcommTransport(socket_module=bluez)
        link = transport.connect(f"bt:{HOST_ADDR}/12", timeout=WAIT)
        seat = listener.accept(timeout=WAIT)
        link.send(b"12")
        assert seat.recv(WAIT) == b"12"
        link.close()
        seat.close()
    assert parse_rfcomm_address(HOST_ADDR) == (HOST_ADDR, DEFAULT_CHANNEL)
    for bad in ("00:1A:7D:DA:71", "00:1A:7D:DA:71:13/0", "00:1A:7D:DA:71:13/31", "host:80", "x/y"):
        with pytest.raises(TransportError) as info:
            parse_rfcomm_address(bad)
        assert info.value.code == "bad_address"
    with pytest.raises(ValueError):
        RfcommTransport(channel=31, socket_module=bluez)


@pytest.mark.parametrize(
    ("where", "err", "code"),
    [
        ("create", errno.EAFNOSUPPORT, "unsupported"),
        ("create", errno.EACCES, "permission_denied"),
        ("connect", errno.EHOSTDOWN, "connect_failed"),
        ("connect", errno.ECONNREFUSED, "connect_failed"),
        ("connect", errno.ENODEV, "no_adapter"),
        ("connect", errno.ENETDOWN, "bluetooth_off"),
    ],
)
def test_os_errors_map_to_stable_codes(where: str, err: int, code: str) -> None:
    bluez = FakeBlueZ(GUEST_ADDR)
    transport = RfcommTransport(socket_module=bluez)
    setattr(bluez, f"{where}_errno", err)
    with pytest.raises(TransportError) as info:
        transport.connect(HOST_ADDR, timeout=WAIT)
    assert info.value.code == code
    assert info.value.details["errno"] == err


def test_nobody_listening_and_a_busy_channel() -> None:
    bluez = FakeBlueZ(HOST_ADDR)
    transport = RfcommTransport(socket_module=bluez)
    with pytest.raises(TransportError) as refused:
        transport.connect(HOST_ADDR, timeout=WAIT)
    assert refused.value.code == "connect_failed"
    with transport.listen(), pytest.raises(TransportError) as busy:
        transport.listen()
    assert busy.value.code == "listen_failed"
