"""Linux RFCOMM (BlueZ) through the stdlib socket, where the interpreter supports it.

CPython exposes Bluetooth sockets only when it was built with the BlueZ headers
(``socket.AF_BLUETOOTH`` / ``socket.BTPROTO_RFCOMM``); many builds (and every
non-Linux desktop) lack them. :func:`rfcomm_unavailable_reason` says so in plain
words, and :class:`RfcommTransport` refuses to start with a ``TransportError``
``unsupported`` carrying that reason: use TCP there.

The stdlib cannot register an SDP record, so there is no service-UUID lookup: the
host listens on a fixed RFCOMM channel (:data:`DEFAULT_CHANNEL`) and a guest connects
to ``"AA:BB:CC:DD:EE:FF"`` (that channel) or ``"AA:BB:CC:DD:EE:FF/5"``. Between two
Linux machines that is all it takes; an Android guest, which looks the service up by
UUID, needs the host to publish an SDP record for :data:`app.bluetooth.android.SERVICE_UUID`
(e.g. with BlueZ's ``sdptool``), which is outside this module.

>>> parse_rfcomm_address("bt:aa:bb:cc:dd:ee:ff/5")
('AA:BB:CC:DD:EE:FF', 5)
"""

from __future__ import annotations

import errno
import re
import socket
import sys
from types import ModuleType
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME
from app.bluetooth.link import DEFAULT_MAX_PENDING, Inbox, Link, StreamLink
from app.bluetooth.sockets import SocketListener, SocketStream

#: The RFCOMM channel a blu21 host listens on (1-30).
DEFAULT_CHANNEL = 7
#: Listen on every local adapter.
BDADDR_ANY = "00:00:00:00:00:00"

_BDADDR = re.compile(r"[0-9A-F]{2}(:[0-9A-F]{2}){5}")

# errno -> code, for socket creation, bind and connect.
_ERRNO_CODES = {
    errno.EAFNOSUPPORT: "unsupported",
    errno.EPROTONOSUPPORT: "unsupported",
    errno.ESOCKTNOSUPPORT: "unsupported",
    errno.EACCES: "permission_denied",
    errno.EPERM: "permission_denied",
    errno.ENODEV: "no_adapter",
    errno.EADDRNOTAVAIL: "no_adapter",
    errno.ENETDOWN: "bluetooth_off",
}


def rfcomm_unavailable_reason(socket_module: Any = socket) -> str | None:
    """Why this interpreter cannot open RFCOMM sockets, or None if it can."""
    missing = [n for n in ("AF_BLUETOOTH", "BTPROTO_RFCOMM") if not hasattr(socket_module, n)]
    if not missing:
        return None
    names = " and ".join(f"socket.{n}" for n in missing)
    return (
        f"this Python {sys.version.split()[0]} on {sys.platform} has no Bluetooth sockets "
        f"({names} missing; CPython needs the BlueZ headers at build time): "
        "use the TCP transport instead"
    )


def rfcomm_available(socket_module: Any = socket) -> bool:
    """True if the interpreter has RFCOMM sockets (an adapter may still be missing)."""
    return rfcomm_unavailable_reason(socket_module) is None


def parse_rfcomm_address(address: str, default_channel: int = DEFAULT_CHANNEL) -> tuple[str, int]:
    """``"[bt:]AA:BB:CC:DD:EE:FF[/channel]"`` -> (address, channel); ``bad_address`` if not."""
    text = address.removeprefix("bt:").upper()
    bdaddr, sep, channel_text = text.partition("/")
    channel = int(channel_text) if sep and channel_text.isdigit() else default_channel
    if (
        not _BDADDR.fullmatch(bdaddr)
        or (sep and not channel_text.isdigit())
        or not 1 <= channel <= 30
    ):
        raise TransportError(
            "bad_address",
            f"expected AA:BB:CC:DD:EE:FF or AA:BB:CC:DD:EE:FF/CHANNEL, got {address!r}",
        )
    return bdaddr, channel


def _os_error(exc: OSError, default: str, what: str) -> TransportError:
    if isinstance(exc, TimeoutError):
        return TransportError("timeout", f"{what}: timed out")
    code = _ERRNO_CODES.get(exc.errno or 0, default)
    return TransportError(code, f"{what}: {exc.strerror or exc}", errno=exc.errno)


class RfcommTransport:
    """Links over BlueZ RFCOMM sockets; ``socket_module`` is replaceable for tests."""

    name = "rfcomm"

    def __init__(
        self,
        channel: int = DEFAULT_CHANNEL,
        adapter: str = BDADDR_ANY,
        *,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_pending: int = DEFAULT_MAX_PENDING,
        socket_module: ModuleType | Any = socket,
    ) -> None:
        reason = rfcomm_unavailable_reason(socket_module)
        if reason is not None:
            raise TransportError("unsupported", reason)
        if not 1 <= channel <= 30:
            raise ValueError(f"RFCOMM channels are 1..30, got {channel}")
        self.channel = channel
        self.adapter = adapter
        self.max_frame = max_frame
        self.max_pending = max_pending
        self._sm = socket_module

    def _socket(self) -> Any:
        sm = self._sm
        try:
            return sm.socket(sm.AF_BLUETOOTH, sm.SOCK_STREAM, sm.BTPROTO_RFCOMM)
        except OSError as exc:
            raise _os_error(exc, "unsupported", "cannot open an RFCOMM socket") from exc

    def _link(self, sock: Any, addr: tuple[str, int], inbox: Inbox | None) -> Link:
        return StreamLink(
            SocketStream(sock),
            f"bt:{addr[0]}",
            inbox=inbox,
            max_frame=self.max_frame,
            max_pending=self.max_pending,
        )

    def listen(self) -> SocketListener:
        """Listen on ``channel``; the listener's address is ``"ADDR/CHANNEL"``."""
        sock = self._socket()
        try:
            sock.bind((self.adapter, self.channel))
            sock.listen(8)
            bdaddr = sock.getsockname()[0]
        except OSError as exc:
            sock.close()
            raise _os_error(
                exc, "listen_failed", f"cannot listen on channel {self.channel}"
            ) from exc
        return SocketListener(sock, f"{bdaddr}/{self.channel}", self._link)

    def connect(self, address: str, *, timeout: float = 15.0, inbox: Inbox | None = None) -> Link:
        """Connect to ``"AA:BB:CC:DD:EE:FF[/channel]"`` within ``timeout`` seconds."""
        bdaddr, channel = parse_rfcomm_address(address, self.channel)
        sock = self._socket()
        try:
            sock.settimeout(timeout)
            sock.connect((bdaddr, channel))
        except OSError as exc:
            sock.close()
            raise _os_error(exc, "connect_failed", f"cannot connect to {bdaddr}/{channel}") from exc
        return self._link(sock, (bdaddr, channel), inbox)
