"""Fault injection on the sending side of a link, for fault tests and demos.

A :class:`FaultyStream` wraps a link's :class:`~app.bluetooth.link.ByteStream` and
misbehaves on purpose from the ``after``-th outgoing frame on (counting from 0):

=============  =============================================================  ======================
kind           what the peer gets                                             the peer's link
=============  =============================================================  ======================
``delay``      every frame from then on ``seconds`` late                       stays open
``drop``       that one frame is lost                                          stays open
``duplicate``  that one frame twice                                            stays open
``silence``    nothing more, but the link stays up (a silent seat)             stays open
``corrupt``    that frame with one payload bit flipped                         ``frame_checksum``
``truncate``   half of that frame, then the link drops                         ``frame_truncated``
``oversize``   a header announcing a 2 GiB frame                               ``frame_too_large``
``garbage``    bytes that are no frame at all                                  ``frame_magic``
``kill``       the link drops before that frame (as if the phone died)        ``peer_closed``
=============  =============================================================  ======================

Faults are written ``kind@after`` (``delay@after:seconds``), comma-separated:

>>> parse_faults("corrupt@3, delay@0:0.25")
(Fault(kind='corrupt', after=3, seconds=0.0), Fault(kind='delay', after=0, seconds=0.25))

Use with ``TcpTransport(wrap_stream=faulty(parse_faults("kill@5")))``.
"""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from app.bluetooth.framing import (
    ABSOLUTE_MAX_FRAME,
    HEADER,
    MAGIC,
    OVERHEAD,
    decode_frames,
    encode_frame,
)
from app.bluetooth.link import ByteStream

KINDS = (
    "delay",
    "drop",
    "duplicate",
    "silence",
    "corrupt",
    "truncate",
    "oversize",
    "garbage",
    "kill",
)


@dataclass(frozen=True)
class Fault:
    """One misbehaviour: ``kind`` (see :data:`KINDS`) from outgoing frame ``after`` on."""

    kind: str
    after: int = 0
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault {self.kind!r}; expected one of {', '.join(KINDS)}")
        if self.after < 0 or self.seconds < 0:
            raise ValueError("fault positions and delays must be >= 0")


def parse_faults(spec: str) -> tuple[Fault, ...]:
    """Parse ``"kind@after[:seconds],..."``; ValueError with the bad part named."""
    faults = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kind, _, rest = part.partition("@")
        after_text, _, seconds_text = rest.partition(":")
        try:
            faults.append(
                Fault(kind, int(after_text or 0), float(seconds_text) if seconds_text else 0.0)
            )
        except ValueError as exc:
            raise ValueError(f"bad fault {part!r}: {exc}") from exc
    return tuple(faults)


class FaultyStream:
    """A :class:`ByteStream` that applies ``faults`` to what is written through it."""

    def __init__(self, inner: ByteStream, faults: Iterable[Fault]) -> None:
        self._inner = inner
        self._faults = tuple(faults)
        self._sent = 0  # frames that went through write()
        self._silent = False
        self._killed = False
        self._lock = threading.Lock()

    def read(self, max_bytes: int) -> bytes:
        data = self._inner.read(max_bytes)
        if self._killed:  # our own end sees an I/O error, not a clean hang-up
            raise OSError("fault injected: link dropped")
        return data

    def close(self) -> None:
        self._inner.close()

    def thread_done(self) -> None:
        self._inner.thread_done()

    def write(self, data: bytes) -> None:
        # The writer thread may coalesce several frames into one write: split them.
        for payload in decode_frames(data, ABSOLUTE_MAX_FRAME):
            with self._lock:
                index = self._sent
                self._sent += 1
            self._write_frame(index, encode_frame(payload, ABSOLUTE_MAX_FRAME))

    def _write_frame(self, index: int, frame: bytes) -> None:
        out = [frame]
        for fault in self._faults:
            if index < fault.after:
                continue
            kind, once = fault.kind, index == fault.after
            if kind == "delay":
                time.sleep(fault.seconds)
            elif kind == "silence":
                self._silent = True
            elif not once:
                continue
            elif kind == "drop":
                out = []
            elif kind == "duplicate":
                out = [frame, frame]
            elif kind == "corrupt":
                spoiled = bytearray(frame)
                # A payload byte if there is one, else a CRC byte: the CRC catches either.
                spoiled[HEADER.size if len(frame) > OVERHEAD else -1] ^= 0x40
                out = [bytes(spoiled)]
            elif kind == "oversize":
                out = [struct.pack(">2sI", MAGIC, 1 << 31)]
            elif kind == "garbage":
                out = [b"\x00garbage\xff" * 4]
            elif kind == "truncate":
                self._inner.write(frame[: max(1, len(frame) // 2)])
                self._killed = True
                self._inner.close()
                raise OSError("fault injected: truncated frame, link dropped")
            elif kind == "kill":
                self._killed = True
                self._inner.close()
                raise OSError("fault injected: link killed")
        if self._silent:
            return
        for chunk in out:
            self._inner.write(chunk)


def faulty(faults: Iterable[Fault]) -> Callable[[ByteStream], ByteStream]:
    """A ``wrap_stream`` hook for a transport: every link it makes gets ``faults``."""
    faults = tuple(faults)
    return lambda stream: FaultyStream(stream, faults)
