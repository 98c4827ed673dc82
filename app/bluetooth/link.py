"""The transport interface, and the one link implementation all transports share.

Shape
-----
A :class:`Transport` opens links: ``listen()`` gives a :class:`Listener` whose
``accept()`` returns a :class:`Link`; ``connect(address)`` opens one directly. A link
carries whole frames (``bytes``) both ways:

* ``send(data)`` queues one frame and returns at once (a writer thread writes it), so
  a peer that stops reading can never stall the caller: past ``max_pending`` unsent
  bytes the link closes with ``send_overflow``.
* Incoming traffic arrives as events in an *inbox* (anything with a non-blocking
  ``put``, normally one :class:`queue.Queue` per table shared by all links): first
  :class:`Opened`, then one :class:`Received` per frame, and exactly one
  :class:`Closed` last, whatever ended the link (peer hang-up, malformed frame, I/O
  error, local close). A host loop is therefore one ``inbox.get(timeout=...)``.
* Without an inbox a link keeps a private one, read with ``recv(timeout)``.

``Link.peer`` names the other end for logs only ("tcp:127.0.0.1:5000",
"bt:AA:BB:..."). Players are identified by an app-generated id carried in the table's
join message (:func:`app.bluetooth.ids.new_player_id`), never by a transport
address: phones cannot read their own Bluetooth address, and the id lets a player
rejoin his seat from a new link.

Threads stay inside this package: each :class:`StreamLink` runs one reader and one
writer thread over a :class:`ByteStream`; each thread calls ``stream.thread_done()``
as it ends (``jnius.detach()`` on Android).

>>> import queue
>>> from app.bluetooth.tcp import TcpTransport
>>> transport = TcpTransport()
>>> inbox = queue.Queue()
>>> with transport.listen() as listener:
...     guest = transport.connect(listener.address, timeout=5)
...     host_side = listener.accept(timeout=5, inbox=inbox)
...     guest.send(b"hello")
...     event = inbox.get(timeout=5)   # Opened
...     inbox.get(timeout=5).data
...     guest.close(); host_side.close()
b'hello'
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, Self, runtime_checkable

from app.bluetooth.errors import FrameError, LinkClosed, TransportError
from app.bluetooth.framing import DEFAULT_MAX_FRAME, FrameDecoder, encode_frame

#: Default bound on bytes queued for sending but not yet written.
DEFAULT_MAX_PENDING = 4 << 20
#: Bytes asked for per read.
READ_SIZE = 16384
#: Default bound of a :class:`LinkInbox` on what one link may have waiting in it.
DEFAULT_INBOX_QUOTA = 512 << 10
#: What one waiting event costs besides its payload (the event and queue objects).
EVENT_COST = 256


class Inbox(Protocol):
    """Where a link delivers its events; ``put`` must not block (e.g. ``queue.Queue()``)."""

    def put(self, item: InboxEvent) -> None: ...


class LinkInbox(queue.Queue["InboxEvent"]):
    """An inbox with a bound per link: a link's reader waits (so TCP or RFCOMM flow
    control slows its peer down) while that link has ``quota`` bytes of frames waiting,
    counting :data:`EVENT_COST` per frame. One flooding peer therefore never grows the
    phone's memory, nor crowds out the other links' frames. ``put`` never blocks; a
    :class:`StreamLink` asks :meth:`wait_for_room` before it puts a frame.
    """

    def __init__(self, quota: int = DEFAULT_INBOX_QUOTA) -> None:
        super().__init__()
        self.quota = quota
        self._used: dict[Link, int] = {}
        self._room = threading.Condition(self.mutex)

    def wait_for_room(self, link: Link, size: int, stop: Callable[[], bool]) -> None:
        """Block until ``link`` may queue a frame of ``size`` bytes (at once if it has
        none waiting: a frame up to the link's own limit always fits), or ``stop()``."""
        cost = size + EVENT_COST
        with self._room:
            while not stop():
                used = self._used.get(link, 0)
                if used == 0 or used + cost <= self.quota:
                    self._used[link] = used + cost
                    return
                self._room.wait(0.1)

    def _get(self) -> InboxEvent:  # (called by queue.Queue with its mutex held)
        item = super()._get()
        if isinstance(item, Received):
            left = self._used.get(item.link, 0) - (len(item.data) + EVENT_COST)
            if left > 0:
                self._used[item.link] = left
            else:
                self._used.pop(item.link, None)
            self._room.notify_all()
        elif isinstance(item, Closed):  # a link's last event: nothing of it waits any more
            self._used.pop(item.link, None)
        return item

    def waiting_bytes(self, link: Link | None = None) -> int:
        """Bytes of frames waiting (for ``link``, or for all links), event costs included."""
        with self.mutex:
            return sum(self._used.values()) if link is None else self._used.get(link, 0)


# -- events ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Opened:
    """First event of every link."""

    link: Link


@dataclass(frozen=True, eq=False)
class Received:
    """One whole frame from the peer."""

    link: Link
    data: bytes


@dataclass(frozen=True, eq=False)
class Closed:
    """Last event of every link. ``code``: see :mod:`app.bluetooth.errors`."""

    link: Link
    code: str
    detail: str = ""


@dataclass(frozen=True, eq=False)
class ListenerFailed:
    """An :class:`Acceptor` stopped because its listener failed (not on a plain close)."""

    listener: Listener
    error: TransportError


LinkEvent = Opened | Received | Closed
#: Everything an inbox receives: the links' events and the acceptors' failures.
InboxEvent = Opened | Received | Closed | ListenerFailed


# -- the interface --------------------------------------------------------------------


class ListenerBase:
    """What every listener shares: a ``closed`` flag set once, and use in ``with``."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._closed = threading.Event()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _mark_closed(self) -> bool:
        """Set the flag; True only the first time (the caller then closes the socket)."""
        if self._closed.is_set():
            return False
        self._closed.set()
        return True

    def close(self) -> None:
        raise NotImplementedError


@runtime_checkable
class Link(Protocol):
    """A bidirectional, frame-oriented connection to one peer."""

    peer: str

    @property
    def closed(self) -> bool: ...

    @property
    def close_code(self) -> str | None: ...

    def send(self, data: bytes) -> None:
        """Queue one frame; :class:`TransportError` (``closed``, ``send_overflow``,
        ``frame_too_large``) if it cannot be."""
        ...

    def recv(self, timeout: float | None = None) -> bytes:
        """Next frame from a private inbox; ``timeout`` error / :class:`LinkClosed`."""
        ...

    def flush(self, timeout: float) -> bool:
        """Wait until everything sent so far is written; False on timeout or close."""
        ...

    def close(self, linger: float = 0.5) -> None:
        """Close the link (idempotent); first waits up to ``linger`` s for queued frames."""
        ...

    def close_later(self, linger: float = 1.0) -> None:
        """Like ``close`` but returns at once (an event loop must not wait for a peer)."""
        ...

    def join(self, timeout: float) -> bool:
        """After closing: wait for the link's threads to end; True if they did."""
        ...


@runtime_checkable
class Listener(Protocol):
    """A listening endpoint; ``address`` is what a guest passes to ``connect``."""

    address: str

    def accept(self, timeout: float | None = None, inbox: Inbox | None = None) -> Link:
        """Wait for the next guest; :class:`TransportError` ``timeout`` or ``closed``."""
        ...

    def close(self) -> None:
        """Stop listening (idempotent); a blocked ``accept`` raises ``closed``."""
        ...

    def thread_done(self) -> None:
        """Called by a thread that used this listener, just before it ends."""
        ...


@runtime_checkable
class Transport(Protocol):
    """Opens links of one kind (TCP, Linux RFCOMM, Android RFCOMM)."""

    name: str

    def listen(self) -> Listener:
        """Start listening for guests."""
        ...

    def connect(self, address: str, *, timeout: float = 15.0, inbox: Inbox | None = None) -> Link:
        """Open a link to the host at ``address`` (blocking: call from a worker thread)."""
        ...


class ByteStream(Protocol):
    """A reliable, ordered byte stream; what each transport provides to :class:`StreamLink`."""

    def read(self, max_bytes: int) -> bytes:
        """Up to ``max_bytes`` bytes, blocking; b"" at end of stream; OSError on failure."""
        ...

    def write(self, data: bytes) -> None:
        """Write all of ``data``; OSError on failure."""
        ...

    def close(self) -> None:
        """Close (idempotent); must wake a ``read``/``write`` blocked in another thread."""
        ...

    def thread_done(self) -> None:
        """Called by each link thread just before it ends."""
        ...


def end_of_stream_code(stream: object) -> str:
    """The close code for ``stream``'s end: ``peer_closed`` unless the stream says its end
    is ambiguous (an ``end_of_stream_code`` attribute, e.g. ``connection_lost`` on
    Android, whose read error is the same for a closed peer and one out of range)."""
    code = getattr(stream, "end_of_stream_code", "peer_closed")
    return code if isinstance(code, str) else "peer_closed"


# -- the shared implementation ----------------------------------------------------------

_link_ids = itertools.count(1)


class StreamLink:
    """A :class:`Link` over a :class:`ByteStream`: framing, threads, events, back-pressure."""

    def __init__(
        self,
        stream: ByteStream,
        peer: str,
        *,
        inbox: Inbox | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        max_pending: int = DEFAULT_MAX_PENDING,
        read_size: int = READ_SIZE,
    ) -> None:
        self.peer = peer
        self.id = next(_link_ids)
        self.max_frame = max_frame
        self.max_pending = max_pending
        self._stream = stream
        self._read_size = read_size
        self._private = inbox is None
        self._inbox: Inbox = LinkInbox() if inbox is None else inbox
        self._decoder = FrameDecoder(max_frame)
        self._cond = threading.Condition()
        self._out: collections.deque[bytes] = collections.deque()
        self._pending = 0  # bytes queued or being written
        self._closing = False  # no more sends accepted
        self._close_code: str | None = None  # set once, when the Closed event is emitted
        self._recv_closed: LinkClosed | None = None
        #: frames queued by ``send`` / delivered to the inbox (tests compare a link's
        #: ``frames_sent`` with its peer's ``frames_received``: nothing in flight)
        self.frames_sent = 0
        self.frames_received = 0
        self._inbox.put(Opened(self))
        self._reader = threading.Thread(target=self._read_loop, name=f"link{self.id}-r")
        self._writer = threading.Thread(target=self._write_loop, name=f"link{self.id}-w")
        self._closer: threading.Thread | None = None
        self._reader.daemon = self._writer.daemon = True
        self._reader.start()
        self._writer.start()

    def __repr__(self) -> str:
        state = self._close_code or "open"
        return f"<StreamLink #{self.id} {self.peer} {state}>"

    def __enter__(self) -> StreamLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once the link is closed (its :class:`Closed` event is emitted)."""
        return self._close_code is not None

    @property
    def close_code(self) -> str | None:
        """Why the link closed (``peer_closed``, ``frame_checksum`` ...), None while open."""
        return self._close_code

    # -- sending ------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        """Queue one frame for the writer thread (never blocks on the network)."""
        frame = encode_frame(bytes(data), self.max_frame)
        with self._cond:
            if self._closing:
                raise TransportError("closed", f"link to {self.peer} is closed")
            overflow = self._pending + len(frame) > self.max_pending
            if not overflow:
                self._out.append(frame)
                self._pending += len(frame)
                self.frames_sent += 1
                self._cond.notify_all()
        if overflow:
            msg = f"peer {self.peer} is not reading: over {self.max_pending} bytes unsent"
            self._finish("send_overflow", msg)
            raise TransportError("send_overflow", msg)

    def flush(self, timeout: float) -> bool:
        """Wait until every queued frame is written; False on timeout or close."""
        with self._cond:
            self._cond.wait_for(lambda: self._pending == 0 or self.closed, timeout)
            return self._pending == 0 and not self.closed

    def _write_loop(self) -> None:
        try:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._out or self._closing)
                    if not self._out:
                        return
                    # Coalesce small frames into one write.
                    chunks = [self._out.popleft()]
                    size = len(chunks[0])
                    while self._out and size < 65536:
                        size += len(self._out[0])
                        chunks.append(self._out.popleft())
                try:
                    self._stream.write(b"".join(chunks))
                except OSError as exc:
                    self._finish("io_error", f"write failed: {exc}")
                    return
                with self._cond:
                    self._pending -= size
                    self._cond.notify_all()
        except Exception as exc:  # a bug must close the link, never kill the app silently
            self._finish("internal_error", repr(exc))
        finally:
            self._stream.thread_done()

    # -- receiving ----------------------------------------------------------------------

    @property
    def buffered(self) -> int:
        """Bytes this link holds besides its inbox: received but not yet a whole frame,
        and queued for sending."""
        return self._decoder.buffered + self._pending

    def _read_loop(self) -> None:
        decoder = self._decoder
        room = getattr(self._inbox, "wait_for_room", None)
        try:
            while not self.closed:
                chunk = self._stream.read(self._read_size)
                if not chunk:
                    decoder.finish()
                    code = end_of_stream_code(self._stream)
                    self._finish(code, "the link's stream ended")
                    return
                decoder.feed(chunk)
                while (frame := decoder.next_frame()) is not None:
                    if room is not None:  # a bounded inbox: no more reading until room
                        room(self, len(frame), lambda: self._close_code is not None)
                    with self._cond:
                        if self._close_code is not None:
                            return
                        self.frames_received += 1
                        self._inbox.put(Received(self, frame))
        except FrameError as exc:
            self._finish(exc.code, str(exc))
        except OSError as exc:
            self._finish("io_error", f"read failed: {exc}")
        except Exception as exc:  # a bug must close the link, never kill the app silently
            self._finish("internal_error", repr(exc))
        finally:
            self._stream.thread_done()

    def recv(self, timeout: float | None = None) -> bytes:
        """Next frame (private inbox only); ``timeout`` error, :class:`LinkClosed` at the end."""
        if not self._private:
            raise TransportError("closed", "this link delivers to a shared inbox; read that")
        if self._recv_closed is not None:
            raise self._recv_closed
        assert isinstance(self._inbox, queue.Queue)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                event = self._inbox.get(timeout=remaining)
            except queue.Empty:
                raise TransportError(
                    "timeout", f"no frame from {self.peer} in {timeout} s"
                ) from None
            if isinstance(event, Received):
                return event.data
            if isinstance(event, Closed):
                self._recv_closed = LinkClosed(event.code, event.detail or event.code)
                raise self._recv_closed

    # -- closing ------------------------------------------------------------------------

    def close(self, linger: float = 0.5) -> None:
        """Close the link: stop sending, wait up to ``linger`` s for queued frames, hang up."""
        with self._cond:
            if not self._closing:
                self._closing = True
                self._cond.notify_all()
                if linger > 0:
                    self._cond.wait_for(lambda: self._pending == 0 or self.closed, linger)
        self._finish("local_close", "closed by this side")

    def close_later(self, linger: float = 1.0) -> None:
        """Stop sending now; deliver what is queued (up to ``linger`` s) and close, in the
        background, so that an event loop never waits for a slow peer."""
        with self._cond:
            if self._closing:
                return
        self._closer = threading.Thread(
            target=self._close_in_background, args=(linger,), name=f"link{self.id}-c", daemon=True
        )
        self._closer.start()

    def _close_in_background(self, linger: float) -> None:
        try:
            self.close(linger)
        finally:
            self._stream.thread_done()

    def _finish(self, code: str, detail: str) -> None:
        """Close once: emit :class:`Closed` (the last event), then release the stream."""
        with self._cond:
            if self._close_code is not None:
                return
            self._close_code = code
            self._closing = True
            self._out.clear()
            self._cond.notify_all()
            self._inbox.put(Closed(self, code, detail))
        with contextlib.suppress(OSError):
            self._stream.close()

    def join(self, timeout: float) -> bool:
        """Wait for both threads to end (after close); True if they did."""
        deadline = time.monotonic() + timeout
        threads = [self._reader, self._writer] + ([self._closer] if self._closer else [])
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(thread.is_alive() for thread in threads)


class Acceptor:
    """Accepts guests in a background thread until stopped; their events go to ``inbox``.

    Every accepted link announces itself with :class:`Opened` in the inbox. If the
    listener fails (not a plain close) a :class:`ListenerFailed` event is posted.
    """

    def __init__(self, listener: Listener, inbox: Inbox) -> None:
        self.listener = listener
        self.inbox = inbox
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="acceptor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stopped.is_set():
                try:
                    self.listener.accept(timeout=None, inbox=self.inbox)
                except TransportError as exc:
                    if exc.code == "timeout":
                        continue
                    if exc.code != "closed" and not self._stopped.is_set():
                        self.inbox.put(ListenerFailed(self.listener, exc))
                    return
        finally:
            self.listener.thread_done()

    def stop(self, timeout: float = 2.0) -> bool:
        """Close the listener and wait for the thread; True if it ended."""
        self._stopped.set()
        self.listener.close()
        self._thread.join(timeout)
        return not self._thread.is_alive()
