"""StreamLink (app/bluetooth/link.py) over an in-memory stream: events, errors, threads."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from app.bluetooth.errors import LinkClosed, TransportError
from app.bluetooth.framing import encode_frame
from app.bluetooth.link import (
    EVENT_COST,
    Closed,
    Link,
    LinkInbox,
    Opened,
    Received,
    StreamLink,
)

WAIT = 60.0  # hang guard, not a speed target


class MemoryStream:
    """A ByteStream whose peer is the test: ``incoming`` feeds reads, writes are recorded."""

    def __init__(self) -> None:
        self.incoming: queue.Queue[bytes | Exception] = queue.Queue()
        self.written = bytearray()
        self.write_error: Exception | None = None
        self.write_gate = threading.Event()
        self.write_gate.set()
        self.closed = threading.Event()
        self.done: list[str] = []

    def read(self, max_bytes: int) -> bytes:
        item = self.incoming.get()
        if isinstance(item, Exception):
            raise item
        return item

    def write(self, data: bytes) -> None:
        self.write_gate.wait()
        if self.write_error is not None:
            raise self.write_error
        self.written += data

    def close(self) -> None:
        self.closed.set()
        self.incoming.put(OSError("closed"))  # wakes the reader like a socket would
        self.write_gate.set()

    def thread_done(self) -> None:
        self.done.append(threading.current_thread().name)


def _link(**kwargs) -> tuple[StreamLink, MemoryStream, queue.Queue]:
    stream = MemoryStream()
    inbox: queue.Queue = queue.Queue()
    return StreamLink(stream, "mem:peer", inbox=inbox, **kwargs), stream, inbox


def _drain(inbox: queue.Queue) -> list:
    events = []
    while True:
        event = inbox.get(timeout=WAIT)
        events.append(event)
        if isinstance(event, Closed):
            return events


def test_events_are_opened_frames_then_exactly_one_closed() -> None:
    link, stream, inbox = _link()
    assert isinstance(link, Link)
    stream.incoming.put(encode_frame(b"a") + encode_frame(b"b")[:3])
    stream.incoming.put(encode_frame(b"b")[3:])
    stream.incoming.put(b"")  # end of stream
    events = _drain(inbox)
    assert isinstance(events[0], Opened)
    assert [e.data for e in events[1:-1]] == [b"a", b"b"]
    assert all(isinstance(e, Received) and e.link is link for e in events[1:-1])
    assert events[-1].code == "peer_closed" and link.close_code == "peer_closed"
    link.close()  # closing a closed link is harmless and emits nothing more
    assert inbox.empty()
    assert link.join(WAIT)
    assert sorted(stream.done) == sorted([f"link{link.id}-r", f"link{link.id}-w"])
    assert stream.closed.is_set()


@pytest.mark.parametrize(
    ("incoming", "code"),
    [
        (encode_frame(b"ok") + b"garbage!", "frame_magic"),
        (encode_frame(b"x" * 200), "frame_too_large"),
        (encode_frame(b"ok")[:-1] + b"\x00", "frame_checksum"),
        (encode_frame(b"cut")[:5], "frame_truncated"),
    ],
)
def test_malformed_input_closes_the_link_with_its_code(incoming: bytes, code: str) -> None:
    link, stream, inbox = _link(max_frame=100)
    stream.incoming.put(incoming)
    stream.incoming.put(b"")
    events = _drain(inbox)
    assert events[-1].code == code
    assert link.closed
    with pytest.raises(TransportError) as info:
        link.send(b"too late")
    assert info.value.code == "closed"


def test_io_errors_and_bugs_close_the_link_without_escaping() -> None:
    link, stream, inbox = _link()
    stream.incoming.put(OSError("radio gone"))
    assert _drain(inbox)[-1].code == "io_error"

    link, stream, inbox = _link()
    stream.incoming.put(RuntimeError("bug"))  # not an OSError: still only this link closes
    closed = _drain(inbox)[-1]
    assert closed.code == "internal_error" and "bug" in closed.detail

    link, stream, inbox = _link()
    stream.write_error = OSError("broken pipe")
    link.send(b"x")
    assert _drain(inbox)[-1].code == "io_error"


def test_send_is_queued_and_never_blocks_on_a_stuck_peer() -> None:
    link, stream, inbox = _link(max_pending=10_000)
    stream.write_gate.clear()  # the peer stops reading: writes hang, for good
    link.send(b"a" * 4000)  # (returning at all proves it: the gate never opens)
    link.send(b"b" * 4000)
    with pytest.raises(TransportError) as info:
        link.send(b"c" * 4000)
    assert info.value.code == "send_overflow"
    assert _drain(inbox)[-1].code == "send_overflow"
    assert link.join(WAIT)


def test_flush_and_linger_deliver_queued_frames_before_hanging_up() -> None:
    link, stream, inbox = _link()
    stream.write_gate.clear()
    for i in range(20):
        link.send(bytes([i]) * 100)
    assert not link.flush(0.05)  # still stuck
    threading.Timer(0.1, stream.write_gate.set).start()
    link.close(linger=WAIT)
    assert bytes(stream.written) == b"".join(encode_frame(bytes([i]) * 100) for i in range(20))
    assert _drain(inbox)[-1].code == "local_close"


def test_close_without_linger_drops_the_queue() -> None:
    link, stream, inbox = _link()
    stream.write_gate.clear()
    link.send(b"never written")
    link.close(linger=0)  # returns although the writer hangs for good
    assert _drain(inbox)[-1].code == "local_close"
    assert link.join(WAIT)
    assert not link.flush(0.01)


def test_recv_on_a_private_inbox() -> None:
    stream = MemoryStream()
    link = StreamLink(stream, "mem:peer")
    stream.incoming.put(encode_frame(b"one"))
    assert link.recv(WAIT) == b"one"
    with pytest.raises(TransportError) as info:
        link.recv(0.05)  # nothing ever comes: only the time-out can end it
    assert info.value.code == "timeout"
    stream.incoming.put(b"")
    for _ in range(2):  # stays closed
        with pytest.raises(LinkClosed) as closed:
            link.recv(WAIT)
        assert closed.value.code == "peer_closed"


def test_recv_is_refused_when_events_go_to_a_shared_inbox() -> None:
    link, _, _ = _link()
    with pytest.raises(TransportError, match="shared inbox"):
        link.recv(0)
    link.close()


def test_oversized_send_is_refused_and_the_link_stays_open() -> None:
    link, stream, _ = _link(max_frame=10)
    with pytest.raises(TransportError) as info:
        link.send(b"x" * 11)
    assert info.value.code == "frame_too_large"
    link.send(b"x" * 10)
    assert link.flush(WAIT)
    assert bytes(stream.written) == encode_frame(b"x" * 10, max_frame=10)
    link.close()


def test_no_event_follows_closed_even_while_frames_arrive() -> None:
    for _ in range(20):
        link, stream, inbox = _link()
        for i in range(50):
            stream.incoming.put(encode_frame(bytes([i])))
        link.close(linger=0)
        events = _drain(inbox)
        assert sum(isinstance(e, Closed) for e in events) == 1
        assert link.join(WAIT)
        assert inbox.empty()


def test_close_later_returns_at_once_and_still_delivers() -> None:
    link, stream, inbox = _link()
    stream.write_gate.clear()  # a slow peer
    link.send(b"last words")
    link.close_later(linger=WAIT)
    # Back before the peer read a byte (the gate is still shut), the frame still queued:
    # it neither waited for the peer nor dropped what was sent.
    assert not stream.write_gate.is_set() and not link.closed
    with pytest.raises(TransportError):
        link.send(b"too late")
    stream.write_gate.set()
    assert _drain(inbox)[-1].code == "local_close"
    assert bytes(stream.written) == encode_frame(b"last words")
    assert link.join(WAIT)
    assert f"link{link.id}-c" in stream.done  # the closing thread ended properly too


def test_a_bounded_inbox_holds_a_flooding_link_back_and_loses_nothing() -> None:
    """Issue 13, finding 8: a link's reader waits while its frames fill its quota of a
    :class:`LinkInbox` (the peer is slowed down by flow control); the other link's
    frames still get in; once read, every frame arrives, in order."""
    inbox = LinkInbox(quota=10_000)
    flood_stream, calm_stream = MemoryStream(), MemoryStream()
    flood = StreamLink(flood_stream, "mem:flood", inbox=inbox)
    calm = StreamLink(calm_stream, "mem:calm", inbox=inbox)
    frames = [bytes([i % 256]) * 1000 for i in range(200)]
    flood_stream.incoming.put(b"".join(encode_frame(f) for f in frames))
    deadline = time.monotonic() + WAIT
    while inbox.waiting_bytes(flood) < 10_000 - 1000 - EVENT_COST and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)  # (a reader that did not wait would go on now)
    assert inbox.waiting_bytes(flood) <= 10_000
    calm_stream.incoming.put(encode_frame(b"calm"))
    got: dict[str, list[bytes]] = {"mem:flood": [], "mem:calm": []}
    while len(got["mem:flood"]) < len(frames) or not got["mem:calm"]:
        event = inbox.get(timeout=WAIT)
        if isinstance(event, Received):
            got[event.link.peer].append(event.data)
    assert got == {"mem:flood": frames, "mem:calm": [b"calm"]}
    assert inbox.waiting_bytes() == 0
    for link in (flood, calm):
        link.close(linger=0)
