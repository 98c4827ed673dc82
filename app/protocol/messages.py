"""Protocol messages: frozen dataclasses with a compact, fixed-layout binary encoding.

One frame layout serves every kind (all integers big-endian)::

    version u8 | group id u8 | kind u8 | sender u8 | round_id u64 | seq u16
    | start u16 | count u16 | data_len u16 | count values of byte_len bytes each
    | data (data_len bytes) | signature (16 + byte_len bytes)

``values`` are group elements or exponents, always exactly ``group.byte_len`` bytes
(256 for ffdhe2048), never text. ``data`` carries small fields (positions, card codes,
seeds, digests). The signature (see :mod:`app.protocol.keys`) covers the table id and
a digest of every byte before it, so round id, sender and sequence number are bound
into it: a message cannot be moved to another table, round, seat or place in the
sequence; and a seat can show that its sender signed a frame by the digest alone.

What each kind carries (``start``/``values``/``data``):

=========  ============================================================================
HELLO      values = (sign_pub, dh_pub); data = commitment to the seat's table seed
SEED       data = the seat's 32-byte table seed (opens the HELLO commitment)
SHUFFLE    start = first deck position; values = the sender's shuffle-pass output
LOCK       start = first position; values = the locked cards (streamed in chunks)
KEYS       data = positions (1 byte each); values = the sender's e_j^-1 for them
CLAIM      data = claim kind, total, then (position, card code) pairs;
           values = the claimer's own e_j^-1 for those positions
AUDIT      data = round seed (32 bytes), then the input attestations: per frame of
           the host the sender computed on, seq u16 | digest (32) | the host's
           signature (:mod:`app.protocol.reveal`); values = the rest of
           the last shuffler's output (positions start..51), empty for other seats
COMPLAIN   data = position that did not open (triggers the full transcript check)
ESCROW     data = per recipient: seat u8, length u16, encrypted (positions, keys)
RELEASE    data = escrow owner u8 + the per-record key that decrypts the escrow
EVIDENCE   data = a complete signed frame of another seat that contradicts its seed
COMMIT     data = H(round seed): sent at the start of a round, before any pass, so that
           no seat chooses its permutation after seeing its input
=========  ============================================================================

A *stub* (version byte :data:`STUB_VERSION`) is the header alone of a SHUFFLE or
LOCK frame whose body a relay sends later: ``count`` and ``data_len`` say how big the
withheld body is. Only the host makes stubs, for the guests that do not compute next
on the frame (docs/protocol.md, "Bodies later"); the stub is no claim of the sender's,
so anything wrong with it, or a body that does not come or does not match it, names
the relay. ``Message.withheld`` is the body's ``(count, data_len)`` on a stub, None on
a full frame.

Usage::

    >>> from app.protocol.group import unsafe_test_group
    >>> g = unsafe_test_group()
    >>> m = Message(Kind.SHUFFLE, round_id=3, sender=1, seq=0, values=(4, 9), sig=bytes(80))
    >>> Message.decode(m.encode(g), g) == m
    True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from enum import IntEnum

from app.protocol.errors import BAD_FRAME, ProtocolViolation
from app.protocol.group import Group
from app.protocol.keys import signature_len

VERSION = 1
#: The version byte of a stub: a frame's header, its body to follow
STUB_VERSION = 0x81
_HEADER = struct.Struct(">BBBBQHHHH")
HEADER_LEN = _HEADER.size


class Kind(IntEnum):
    """Message kinds."""

    HELLO = 1
    SEED = 2
    SHUFFLE = 3
    LOCK = 4
    KEYS = 5
    CLAIM = 6
    AUDIT = 7
    COMPLAIN = 8
    ESCROW = 9
    RELEASE = 10
    EVIDENCE = 11
    COMMIT = 12


class ClaimKind(IntEnum):
    """What a CLAIM proves."""

    PERSIAN = 1  # the first two cards are two aces
    SHOWDOWN = 2  # the held hand and its total


@dataclass(frozen=True)
class Message:
    """One protocol message. ``sig`` is empty until the sending seat signs it."""

    kind: Kind
    round_id: int
    sender: int
    seq: int
    start: int = 0
    values: tuple[int, ...] = ()
    data: bytes = b""
    sig: bytes = b""
    withheld: tuple[int, int] | None = None  # a stub: (count, data_len) of the body

    @property
    def count(self) -> int:
        """The number of values of the frame (of its withheld body, on a stub)."""
        return len(self.values) if self.withheld is None else self.withheld[0]

    def stub(self) -> Message:
        """The header alone: the body follows later (see the module docstring).

        >>> from app.protocol.group import unsafe_test_group
        >>> g = unsafe_test_group()
        >>> m = Message(Kind.SHUFFLE, round_id=3, sender=1, seq=0, values=(4, 9), sig=bytes(80))
        >>> s = Message.decode(m.stub().encode(g), g)
        >>> s.withheld, s.count, s.values, len(m.stub().encode(g)) == HEADER_LEN
        ((2, 0), 2, (), True)
        >>> s.matches(m)
        True
        """
        return Message(
            self.kind,
            self.round_id,
            self.sender,
            self.seq,
            self.start,
            withheld=(len(self.values), len(self.data)),
        )

    def matches(self, body: Message) -> bool:
        """Is ``body`` the full frame this stub stands for (same header)?"""
        return self.withheld is not None and body.withheld is None and body.stub() == self

    def body(self, group: Group) -> bytes:
        """The signed part of the frame (everything but the signature)."""
        blen = group.byte_len
        try:
            head = _HEADER.pack(
                VERSION,
                group.gid,
                int(self.kind),
                self.sender,
                self.round_id,
                self.seq,
                self.start,
                len(self.values),
                len(self.data),
            )
            vals = b"".join(v.to_bytes(blen, "big") for v in self.values)
        except (struct.error, OverflowError) as exc:
            raise ValueError(f"message field out of range: {exc}") from None
        return head + vals + self.data

    def encode(self, group: Group) -> bytes:
        """The frame bytes (body + signature; a stub: its header)."""
        if self.withheld is not None:
            count, dlen = self.withheld
            head = (STUB_VERSION, group.gid, int(self.kind), self.sender, self.round_id)
            return _HEADER.pack(*head, self.seq, self.start, count, dlen)
        return self.body(group) + self.sig

    def signed(self, sig: bytes) -> Message:
        """A copy with ``sig`` attached."""
        return replace(self, sig=sig)

    @classmethod
    def decode(cls, frame: bytes, group: Group) -> Message:
        """Parse a frame for ``group``; malformed input raises :class:`ProtocolViolation`.

        The sender field is only a claim until the signature is checked; a frame too
        short to name a sender is blamed on seat -1 (unknown: the link it came from).
        """
        if not isinstance(frame, bytes | bytearray | memoryview):
            raise ProtocolViolation(-1, BAD_FRAME, f"not bytes: {type(frame).__name__}")
        sender = frame[3] if len(frame) > 3 else -1
        if len(frame) < HEADER_LEN:
            raise ProtocolViolation(sender, BAD_FRAME, "short header")
        ver, gid, kind, sender, round_id, seq, start, count, dlen = _HEADER.unpack_from(frame)
        if ver not in (VERSION, STUB_VERSION) or gid != group.gid:
            raise ProtocolViolation(sender, BAD_FRAME, "version or group id")
        try:
            kind = Kind(kind)
        except ValueError:
            raise ProtocolViolation(sender, BAD_FRAME, f"kind {kind}") from None
        if ver == STUB_VERSION:
            if len(frame) != HEADER_LEN or kind not in (Kind.SHUFFLE, Kind.LOCK):
                raise ProtocolViolation(sender, BAD_FRAME, "stub")
            return cls(kind, round_id, sender, seq, start, withheld=(count, dlen))
        blen = group.byte_len
        need = HEADER_LEN + count * blen + dlen + signature_len(group)
        if len(frame) != need:
            raise ProtocolViolation(sender, BAD_FRAME, f"length {len(frame)} != {need}")
        off = HEADER_LEN
        values = tuple(
            int.from_bytes(frame[off + i * blen : off + (i + 1) * blen], "big")
            for i in range(count)
        )
        off += count * blen
        data = bytes(frame[off : off + dlen])
        sig = bytes(frame[off + dlen :])
        return cls(kind, round_id, sender, seq, start, values, data, sig)

    def wire_len(self, group: Group) -> int:
        """Bytes on the wire."""
        if self.withheld is not None:
            return HEADER_LEN
        return (
            HEADER_LEN + len(self.values) * group.byte_len + len(self.data) + signature_len(group)
        )
