"""RFCOMM sockets as links: a connected ``BluetoothSocket`` as a byte stream, the host's
server socket, and the time budget and watchdog of a guest's ``connect()``.

Blocking calls (``accept``, ``connect``, ``read``, ``write``) run on worker threads; each
detaches from the JVM before it ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import suppress
from typing import Protocol

from app.bluetooth.android_java import (
    JavaApi,
    is_end_of_stream,
    java_errors,
    translate_java_error,
)
from app.bluetooth.android_permissions import Permissions
from app.bluetooth.android_types import BluetoothAdapter, BluetoothServerSocket, BluetoothSocket
from app.bluetooth.errors import TransportError
from app.bluetooth.link import Inbox, Link, ListenerBase, StreamLink

#: How long the players may take to confirm the pairing dialog of a first connection
#: (on top of the connect timeout, which does not run meanwhile).
PAIRING_TIMEOUT = 60.0
_SETUP_LOCK = threading.Lock()
#: How often the connect watchdog looks at the clock and the bond state (real seconds).
WATCH_STEP = 0.05


class JavaSocketStream:
    """A connected ``BluetoothSocket`` as a :class:`~app.bluetooth.link.ByteStream`.

    Its end is ``connection_lost``, not ``peer_closed``: AOSP's ``BluetoothSocket.read``
    throws the same ``IOException("bt socket closed, read return: -1")`` whether the
    other phone closed the socket or the link dropped (out of range, Bluetooth off), so
    the end says nothing about a player's choice (one who leaves says goodbye first).
    """

    end_of_stream_code = "connection_lost"

    def __init__(self, api: JavaApi, socket: BluetoothSocket) -> None:
        self._api = api
        self._socket = socket
        with java_errors(api, "io_error", "opening the socket streams"):
            self._in = socket.getInputStream()
            self._out = socket.getOutputStream()
        self._closed = False
        self._lock = threading.Lock()

    def read(self, max_bytes: int) -> bytes:
        buf = bytearray(max_bytes)
        try:
            n = self._in.read(buf, 0, max_bytes)  # pyjnius copies the Java array back
        except self._api.JavaException as exc:
            if is_end_of_stream(exc):
                return b""  # the peer closed: the link checks for a truncated frame
            raise OSError(f"{exc.classname}: {exc.innermessage}") from exc
        return b"" if n < 0 else bytes(buf[:n])

    def write(self, data: bytes) -> None:
        try:
            self._out.write(data)
            self._out.flush()
        except self._api.JavaException as exc:
            raise OSError(f"{exc.classname}: {exc.innermessage}") from exc

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        with suppress(self._api.JavaException):
            self._socket.close()  # also wakes a read blocked in another thread

    def thread_done(self) -> None:
        self._api.detach_quietly()


def open_link(
    api: JavaApi,
    socket: BluetoothSocket,
    inbox: Inbox | None,
    *,
    max_frame: int,
    max_pending: int,
) -> Link:
    """A connected ``BluetoothSocket`` as a framed link (the socket is closed on failure)."""
    try:
        # One link set up at a time: pyjnius keeps the instance a call is made on in the
        # method object that all instances of a class share, so the same method called
        # from two threads at once (the acceptor's new link and a connect, or two
        # connects) can run on the wrong object or none (a NullPointerException seen in
        # the JVM tests). Reads and writes then run on streams of their own.
        with _SETUP_LOCK:
            stream = JavaSocketStream(api, socket)
            peer = "bt:" + str(socket.getRemoteDevice().getAddress())
    except (TransportError, api.JavaException):
        with suppress(api.JavaException):
            socket.close()
        raise
    return StreamLink(stream, peer, inbox=inbox, max_frame=max_frame, max_pending=max_pending)


class RfcommHost(Protocol):
    """What a listener needs of its transport (:class:`~app.bluetooth.android.AndroidTransport`)."""

    @property
    def api(self) -> JavaApi:
        """The Java classes."""

    @property
    def permissions(self) -> Permissions:
        """The runtime permissions, checked before every use."""

    def adapter(self) -> BluetoothAdapter:
        """The Bluetooth adapter; ``no_adapter`` / ``bluetooth_off`` if it cannot be used."""

    def wrap_socket(self, socket: BluetoothSocket, inbox: Inbox | None) -> Link:
        """A connected ``BluetoothSocket`` as a link."""


class AndroidListener(ListenerBase):
    """The host's RFCOMM server socket. ``address`` is informational (the phone's name):
    guests pick the host from their device list."""

    def __init__(self, transport: RfcommHost, server: BluetoothServerSocket, address: str) -> None:
        super().__init__(address)
        self._transport = transport
        self._server = server

    def accept(self, timeout: float | None = None, inbox: Inbox | None = None) -> Link:
        """Wait for the next guest (blocking; ``close()`` from another thread aborts it)."""
        api = self._transport.api
        if self._closed.is_set():
            raise TransportError("closed", "listener is closed")
        self._transport.permissions.check("connect")
        start = time.monotonic()
        try:
            if timeout is None:
                socket = self._server.accept()
            else:
                socket = self._server.accept(max(1, int(timeout * 1000)))
        except api.JavaException as exc:
            if self._closed.is_set():
                raise TransportError("closed", "listener is closed") from exc
            if timeout is not None and time.monotonic() - start >= timeout * 0.9:
                raise TransportError("timeout", f"no guest within {timeout} s") from exc
            self._transport.adapter()  # bluetooth_off / no_adapter if that is the cause
            raise translate_java_error(exc, "listen_failed", "accepting a guest") from exc
        return self._transport.wrap_socket(socket, inbox)

    def close(self) -> None:
        """Stop listening; a blocked :meth:`accept` raises ``closed``."""
        if not self._mark_closed():
            return
        with suppress(self._transport.api.JavaException):
            self._server.close()

    def thread_done(self) -> None:
        self._transport.api.detach_quietly()


class ConnectBudget:
    """The time a connection may take on ``clock``: ``timeout``, suspended while the
    phones pair (up to :data:`PAIRING_TIMEOUT`) and given afresh once they have."""

    def __init__(
        self, clock: Callable[[], float], timeout: float, pairing: Callable[[], bool]
    ) -> None:
        self._clock = clock
        self._pairing = pairing
        self._timeout = timeout
        self._deadline = clock() + timeout
        self._pairing_since: float | None = None
        self._lock = threading.Lock()

    def left(self) -> float:
        """Seconds left (<= 0: time is up); while pairing, the pairing time left."""
        with self._lock:
            now = self._clock()
            if self._pairing():
                if self._pairing_since is None:
                    self._pairing_since = now
                return self._pairing_since + PAIRING_TIMEOUT - now
            if self._pairing_since is not None:  # paired: the connection goes on from here
                self._deadline = max(self._deadline, now + self._timeout)
                self._pairing_since = None
            return self._deadline - now


class ConnectWatchdog:
    """Closes ``socket`` (aborting a blocked ``connect()``) when ``budget`` runs out."""

    def __init__(self, api: JavaApi, socket: BluetoothSocket, budget: ConnectBudget) -> None:
        self.fired = threading.Event()
        self._done = threading.Event()
        self._api = api
        self._socket = socket
        self._budget = budget
        self._thread = threading.Thread(target=self._run, name="connect-watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._done.wait(WATCH_STEP):
                if self._budget.left() <= 0:
                    self.fired.set()
                    with suppress(Exception):
                        self._socket.close()
                    return
        finally:
            self._api.detach_quietly()

    def stop(self) -> None:
        """End the watch (the connect call returned)."""
        self._done.set()
        self._thread.join()
