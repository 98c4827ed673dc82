"""The :class:`~app.bluetooth.link.ByteStream` over a stdlib socket (TCP and Linux RFCOMM)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from app.bluetooth.errors import TransportError
from app.bluetooth.link import Inbox, Link, ListenerBase

#: How often a blocked ``accept`` looks whether its listener was closed.
ACCEPT_SLICE = 0.2


class SocketStream:
    """A connected stream socket as a :class:`ByteStream`."""

    def __init__(self, sock: socket.socket) -> None:
        sock.settimeout(None)
        self._sock = sock
        self._lock = threading.Lock()
        self._closed = False

    def read(self, max_bytes: int) -> bytes:
        return self._sock.recv(max_bytes)

    def write(self, data: bytes) -> None:
        self._sock.sendall(data)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        # shutdown() wakes a recv()/sendall() blocked in another thread; close() alone
        # does not on Linux.
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()

    def thread_done(self) -> None:
        pass


class SocketListener(ListenerBase):
    """A listening stream socket; subclasses say how to name the peer."""

    def __init__(
        self,
        sock: socket.socket,
        address: str,
        # (socket, peer address as accept() returns it: its shape is the family's, so
        # Any here; each transport's make_link declares its own, inbox) -> link
        make_link: Callable[[socket.socket, Any, Inbox | None], Link],
    ) -> None:
        super().__init__(address)
        self._sock = sock
        self._make_link = make_link
        sock.settimeout(ACCEPT_SLICE)

    def accept(self, timeout: float | None = None, inbox: Inbox | None = None) -> Link:
        """Wait for the next guest (in short slices, so that ``close`` stops it promptly)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed.is_set():
                raise TransportError("closed", f"listener {self.address} is closed")
            try:
                sock, addr = self._sock.accept()
            except TimeoutError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise TransportError(
                        "timeout", f"no guest on {self.address} within {timeout} s"
                    ) from None
                continue
            except OSError as exc:
                if self._closed.is_set():
                    raise TransportError("closed", f"listener {self.address} is closed") from exc
                raise TransportError("listen_failed", f"accept failed: {exc}") from exc
            return self._make_link(sock, addr, inbox)

    def close(self) -> None:
        self._mark_closed()
        self._sock.close()

    def thread_done(self) -> None:
        pass
