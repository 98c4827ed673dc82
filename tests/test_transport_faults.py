"""Fault injection (app/bluetooth/faults.py) over real TCP links: each fault does to the
peer exactly what the table says, and never more than to its own link."""

from __future__ import annotations

import queue
import time

import pytest

from app.bluetooth.errors import LinkClosed, TransportError
from app.bluetooth.faults import KINDS, Fault, faulty, parse_faults
from app.bluetooth.link import Acceptor, Closed, Opened, Received
from app.bluetooth.tcp import TcpTransport

WAIT = 60.0  # a guard against a hung test, not a speed target
FRAMES = [f"frame {i}".encode() for i in range(6)] + [b""]


def _run(fault: Fault) -> tuple[list[bytes], str | None, float]:
    """A faulty guest sends FRAMES to a clean host; what did the host get, and how did it end?"""
    host = TcpTransport()
    inbox: queue.Queue = queue.Queue()
    with host.listen() as listener:
        acceptor = Acceptor(listener, inbox)
        bystander = TcpTransport().connect(listener.address, timeout=WAIT)
        guest = TcpTransport(wrap_stream=faulty([fault])).connect(listener.address, timeout=WAIT)
        start = time.monotonic()
        for frame in FRAMES:
            try:
                guest.send(frame)
            except TransportError:
                break  # the faulty side's own link may already be down
        # Everything the guest will ever write is written; then it hangs up (unless
        # its fault did already), so the host's last event comes after all it got.
        guest.flush(WAIT)
        hung_up = not guest.closed
        guest.close(linger=0)
        got: dict = {}
        end: dict = {}
        while True:
            event = inbox.get(timeout=WAIT)
            if isinstance(event, Opened):
                got[event.link] = []
            elif isinstance(event, Received):
                got[event.link].append(event.data)
            elif isinstance(event, Closed):
                # (our own hang-up after a harmless fault: the link itself was fine)
                harmless = hung_up and event.code == "peer_closed"
                end[event.link] = None if harmless else event.code
                break
        elapsed = time.monotonic() - start
        # The bystander's link is untouched whatever the faulty guest did.
        bystander.send(b"bystander")
        event = inbox.get(timeout=WAIT)
        while not isinstance(event, Received):
            event = inbox.get(timeout=WAIT)
        assert event.data == b"bystander"
        faulty_link = next(link for link in got if link is not event.link)
        acceptor.stop(WAIT)
        for link in (bystander, guest, *got):
            link.close(linger=0)
        return got[faulty_link], end.get(faulty_link), elapsed


@pytest.mark.parametrize(
    ("fault", "received", "code"),
    [
        (Fault("drop", 2), FRAMES[:2] + FRAMES[3:], None),
        (Fault("duplicate", 1), [FRAMES[0], FRAMES[1], *FRAMES[1:]], None),
        (Fault("silence", 3), FRAMES[:3], None),
        (Fault("corrupt", 2), FRAMES[:2], "frame_checksum"),
        (Fault("corrupt", 6), FRAMES[:6], "frame_checksum"),  # the empty payload
        (Fault("truncate", 4), FRAMES[:4], "frame_truncated"),
        (Fault("oversize", 0), [], "frame_too_large"),
        (Fault("garbage", 1), FRAMES[:1], "frame_magic"),
        (Fault("kill", 3), FRAMES[:3], "peer_closed"),
    ],
)
def test_each_fault_does_what_it_says(
    fault: Fault, received: list[bytes], code: str | None
) -> None:
    got, closed, _ = _run(fault)
    assert got == received
    assert closed == code


def test_delay_holds_frames_back_but_loses_nothing() -> None:
    got, closed, elapsed = _run(Fault("delay", 5, seconds=0.1))
    assert got == FRAMES and closed is None
    assert elapsed >= 0.2  # frames 5 and 6 waited 0.1 s each


def test_the_faulty_side_sees_its_own_link_drop() -> None:
    with TcpTransport().listen() as listener:
        guest = TcpTransport(wrap_stream=faulty(parse_faults("kill@1"))).connect(
            listener.address, timeout=WAIT
        )
        seat = listener.accept(timeout=WAIT)
        guest.send(b"first")
        guest.send(b"second")
        assert seat.recv(WAIT) == b"first"
        with pytest.raises(LinkClosed) as info:
            guest.recv(WAIT)
        assert info.value.code == "io_error"
        seat.close()


def test_fault_specs() -> None:
    assert parse_faults("") == ()
    assert parse_faults("kill@5") == (Fault("kill", 5),)
    assert parse_faults("silence") == (Fault("silence", 0),)
    assert {f.kind for f in parse_faults(",".join(KINDS))} == set(KINDS)
    for bad in ("explode@1", "kill@x", "delay@1:-2", "kill@-1"):
        with pytest.raises(ValueError, match="bad fault"):
            parse_faults(bad)
