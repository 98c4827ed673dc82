"""Length-prefixed binary frames, and big integers as fixed-size bytes.

Wire format of one frame (all integers big-endian)::

    magic  2 bytes   b"B2"
    length 4 bytes   payload length, at most the receiver's ``max_frame``
    payload
    crc32  4 bytes   zlib.crc32 of magic + length + payload

The magic catches a peer that is not speaking our protocol (or a stream that lost
sync); the length is checked against the limit *before* any payload is buffered; the
CRC catches corruption that the link layer let through (and fault-injection tests).
A stream cannot be resynchronised after an error, so a :class:`FrameDecoder` that
has raised stays failed: the link is closed.

>>> frame = encode_frame(b"hello")
>>> decoder = FrameDecoder()
>>> decoder.feed(frame[:3]); decoder.next_frame() is None
True
>>> decoder.feed(frame[3:]); decoder.next_frame()
b'hello'

Big integers (SRA values mod a 2048-bit prime) travel as fixed-width unsigned
big-endian bytes, never as decimal text:

>>> int_to_bytes(258, 2)
b'\\x01\\x02'
>>> ints_from_bytes(ints_to_bytes([1, 2, 3], 4), 4)
[1, 2, 3]
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable

from app.bluetooth.errors import FrameError

MAGIC = b"B2"
HEADER = struct.Struct(">2sI")
TRAILER = struct.Struct(">I")
#: Bytes a frame adds around its payload.
OVERHEAD = HEADER.size + TRAILER.size
#: Default payload limit: a whole 3072-bit deck (52 x 384 bytes) is ~20 KB and the
#: largest table frame (an escrow at 7 seats, 3072 bits) ~110 KB, so 256 KiB leaves
#: room and bounds what a hostile peer can make us buffer (docs/transport.md).
DEFAULT_MAX_FRAME = 256 << 10
#: Hard ceiling of the 4-byte length field.
ABSOLUTE_MAX_FRAME = (1 << 32) - 1


def _check_limit(max_frame: int) -> int:
    if not 0 <= max_frame <= ABSOLUTE_MAX_FRAME:
        raise ValueError(f"max_frame must be in 0..{ABSOLUTE_MAX_FRAME}, got {max_frame}")
    return max_frame


def _check_bytes(data: object) -> None:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise FrameError("bad_type", f"bytes expected, not {type(data).__name__}")


def encode_frame(payload: bytes, max_frame: int = DEFAULT_MAX_FRAME) -> bytes:
    """Return ``payload`` wrapped in one frame; :class:`FrameError` if it is too large
    (or not bytes: ``bad_type``)."""
    _check_bytes(payload)
    _check_limit(max_frame)
    if len(payload) > max_frame:
        raise FrameError(
            "frame_too_large",
            f"frame payload of {len(payload)} bytes exceeds the limit of {max_frame}",
            size=len(payload),
            limit=max_frame,
        )
    head = HEADER.pack(MAGIC, len(payload))
    crc = zlib.crc32(payload, zlib.crc32(head))
    return b"".join((head, payload, TRAILER.pack(crc)))


class FrameDecoder:
    """Incremental decoder: feed it bytes as they arrive, take whole frames out.

    Robust to any split of the stream into reads. The first malformed frame raises
    :class:`FrameError` from :meth:`next_frame` (after every good frame before it has
    been returned) and the decoder stays failed: every later call raises the same
    error, since a byte stream cannot be resynchronised safely.
    """

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.max_frame = _check_limit(max_frame)
        self._buf = bytearray()
        self._pos = 0
        self._error: FrameError | None = None

    @property
    def error(self) -> FrameError | None:
        """The error that stopped this decoder, or None."""
        return self._error

    @property
    def buffered(self) -> int:
        """Bytes received but not yet returned as frames."""
        return len(self._buf) - self._pos

    def feed(self, data: bytes) -> None:
        """Append received bytes (any amount, including none)."""
        if self._error is not None:
            raise self._error
        _check_bytes(data)
        if self._pos:
            # Drop consumed bytes before growing, so the buffer stays one frame long.
            del self._buf[: self._pos]
            self._pos = 0
        self._buf += data

    def next_frame(self) -> bytes | None:
        """Return the next complete payload, None if more bytes are needed."""
        if self._error is not None:
            raise self._error
        buf, pos = self._buf, self._pos
        available = len(buf) - pos
        if available < 2:
            if available and buf[pos] != MAGIC[0]:
                self._fail(FrameError("frame_magic", "stream does not start a frame here"))
            return None
        if buf[pos : pos + 2] != MAGIC:
            self._fail(FrameError("frame_magic", "stream does not start a frame here"))
        if available < HEADER.size:
            return None
        _, length = HEADER.unpack_from(buf, pos)
        if length > self.max_frame:
            # Refused on the header alone: nothing of the payload is buffered for it.
            self._fail(
                FrameError(
                    "frame_too_large",
                    f"peer announced a frame of {length} bytes; the limit is {self.max_frame}",
                    size=length,
                    limit=self.max_frame,
                )
            )
        end = pos + HEADER.size + length
        if len(buf) < end + TRAILER.size:
            return None
        payload = bytes(buf[pos + HEADER.size : end])
        (crc,) = TRAILER.unpack_from(buf, end)
        if crc != zlib.crc32(payload, zlib.crc32(buf[pos : pos + HEADER.size])):
            self._fail(FrameError("frame_checksum", "frame checksum mismatch (corrupt bytes)"))
        self._pos = end + TRAILER.size
        return payload

    def drain(self) -> list[bytes]:
        """Return every complete payload buffered now (raises on a malformed frame)."""
        frames = []
        while (frame := self.next_frame()) is not None:
            frames.append(frame)
        return frames

    def finish(self) -> None:
        """Declare end of stream: :class:`FrameError` ``frame_truncated`` if inside a frame."""
        if self._error is not None:
            raise self._error
        if self.buffered:
            self._fail(
                FrameError(
                    "frame_truncated",
                    f"stream ended inside a frame ({self.buffered} bytes pending)",
                    pending=self.buffered,
                )
            )

    def _fail(self, error: FrameError) -> None:
        self._error = error
        raise error


def decode_frames(data: bytes, max_frame: int = DEFAULT_MAX_FRAME) -> list[bytes]:
    """Decode a complete byte string of frames; :class:`FrameError` on any defect."""
    decoder = FrameDecoder(max_frame)
    decoder.feed(data)
    frames = decoder.drain()
    decoder.finish()
    return frames


# -- big integers as fixed-size bytes -------------------------------------------------


def byte_width(modulus: int) -> int:
    """Bytes needed for any value in ``0..modulus-1`` (e.g. 256 for a 2048-bit prime)."""
    if modulus < 2:
        raise ValueError(f"modulus must be >= 2, got {modulus}")
    return ((modulus - 1).bit_length() + 7) // 8


def int_to_bytes(value: int, width: int) -> bytes:
    """``value`` as exactly ``width`` unsigned big-endian bytes (:class:`FrameError` if not)."""
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    if not isinstance(value, int) or isinstance(value, bool):
        raise FrameError("bad_type", f"an integer expected, not {type(value).__name__}")
    if value < 0 or value.bit_length() > 8 * width:
        raise FrameError("bad_int", f"integer does not fit in {width} unsigned bytes", width=width)
    return value.to_bytes(width, "big")


def int_from_bytes(data: bytes, width: int) -> int:
    """Inverse of :func:`int_to_bytes`; the length must be exactly ``width``."""
    _check_bytes(data)
    if len(data) != width:
        raise FrameError(
            "bad_int", f"expected {width} bytes for an integer, got {len(data)}", width=width
        )
    return int.from_bytes(data, "big")


def ints_to_bytes(values: Iterable[int], width: int) -> bytes:
    """Concatenate ``values`` as fixed-width integers (e.g. a whole encrypted deck)."""
    return b"".join(int_to_bytes(v, width) for v in values)


def ints_from_bytes(data: bytes, width: int, count: int | None = None) -> list[int]:
    """Split ``data`` into fixed-width integers; checks the length (and ``count`` if given)."""
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width}")
    _check_bytes(data)
    if len(data) % width:
        raise FrameError(
            "bad_int", f"{len(data)} bytes is not a whole number of {width}-byte integers"
        )
    n = len(data) // width
    if count is not None and n != count:
        raise FrameError("bad_int", f"expected {count} integers, got {n}", count=n)
    return [int.from_bytes(data[i : i + width], "big") for i in range(0, len(data), width)]
