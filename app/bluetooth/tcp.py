"""TCP links (loopback and LAN): desktops, bots and tests.

The host listens on ``host:port`` (default 127.0.0.1 and a free port; pass
``host="0.0.0.0"`` to accept LAN guests); a guest connects to ``"HOST:PORT"``
(``"[::1]:PORT"`` for IPv6). Frames and link behaviour are those of every transport
(:mod:`app.bluetooth.link`).

>>> transport = TcpTransport()
>>> with transport.listen() as listener:
...     listener.address.startswith("127.0.0.1:")
True
"""

from __future__ import annotations

import socket
from collections.abc import Callable

from app.bluetooth.errors import TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME
from app.bluetooth.link import DEFAULT_MAX_PENDING, ByteStream, Inbox, Link, StreamLink
from app.bluetooth.sockets import SocketListener, SocketStream


def parse_address(address: str) -> tuple[str, int]:
    """``"host:port"`` / ``"[v6]:port"`` -> (host, port); ``bad_address`` if malformed."""
    host, sep, port_text = address.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise TransportError("bad_address", f"expected HOST:PORT, got {address!r}")
    return host, int(port_text)


def format_address(host: str, port: int) -> str:
    """Inverse of :func:`parse_address`."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class TcpTransport:
    """Links over TCP; ``host``/``port`` are where :meth:`listen` binds.

    ``wrap_stream`` (tests, demos) wraps every link's byte stream, e.g. with
    :func:`app.bluetooth.faults.faulty` to inject faults.
    """

    name = "tcp"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_pending: int = DEFAULT_MAX_PENDING,
        backlog: int = 8,
        wrap_stream: Callable[[ByteStream], ByteStream] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.max_frame = max_frame
        self.max_pending = max_pending
        self.backlog = backlog
        self.wrap_stream = wrap_stream

    def _link(
        self,
        sock: socket.socket,
        addr: tuple[str, int] | tuple[str, int, int, int],  # IPv4 or IPv6
        inbox: Inbox | None,
    ) -> Link:
        # Frames are small and latency-bound (turns, reveals): no Nagle delay.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        host, port = addr[:2]
        stream: ByteStream = SocketStream(sock)
        if self.wrap_stream is not None:
            stream = self.wrap_stream(stream)
        return StreamLink(
            stream,
            f"tcp:{format_address(host, port)}",
            inbox=inbox,
            max_frame=self.max_frame,
            max_pending=self.max_pending,
        )

    def listen(self) -> SocketListener:
        """Bind and listen; the listener's ``address`` is ``"host:port"`` with the real port."""
        try:
            infos = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_STREAM)
            family, _, _, _, sockaddr = infos[0]
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError as exc:
            raise TransportError("listen_failed", f"cannot listen on {self.host}: {exc}") from exc
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(sockaddr)
            sock.listen(self.backlog)
        except OSError as exc:
            sock.close()
            raise TransportError(
                "listen_failed", f"cannot listen on {self.host}:{self.port}: {exc}"
            ) from exc
        host, port = sock.getsockname()[:2]
        return SocketListener(sock, format_address(host, port), self._link)

    def connect(self, address: str, *, timeout: float = 15.0, inbox: Inbox | None = None) -> Link:
        """Connect to ``"host:port"`` within ``timeout`` seconds."""
        host, port = parse_address(address)
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except TimeoutError as exc:
            raise TransportError("timeout", f"no answer from {address} in {timeout} s") from exc
        except OSError as exc:
            raise TransportError("connect_failed", f"cannot connect to {address}: {exc}") from exc
        return self._link(sock, sock.getpeername(), inbox)
