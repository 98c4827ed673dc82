"""Card encodings: a round's cards as hash-derived squares in the QR subgroup.

``m_c = H(joint_seed || round_id || c)^2 mod p`` with a full-width hash-to-integer
(SHAKE-256 expanded to the byte length of ``p`` plus 16 bytes, reduced mod ``p``).
The joint seed comes from a commit-reveal among all seats at table set-up, so no seat
chooses the encodings; hashing (not small integers) means no multiplicative relations
among encodings are known, and squaring puts every encoding in the order-``q`` subgroup.

A round holds ``size`` cards: 52 (one deck, Oczko) or ``52 * decks`` (a casino shoe of
1-8 decks). Code ``c`` in ``0..size-1`` is the card ``c % 52`` of deck ``c // 52``. A
round of another size than 52 hashes under its own domain and its size, so a 52-card
round's encodings (and every transcript made with them) are unchanged.

Usage::

    >>> from app.protocol.group import FFDHE2048
    >>> enc = CardEncoding.derive(FFDHE2048, b"\\x00" * 32, round_id=1)
    >>> enc.card_of(enc.values[7])
    7
    >>> enc.card_of(4) is None
    True
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from app.protocol.group import Group

DECK_SIZE = 52
MAX_DECKS = 8
_DOMAIN = b"blu21/sra/card-encoding/v1"
_SHOE_DOMAIN = b"blu21/sra/shoe-encoding/v1"


def round_sizes() -> tuple[int, ...]:
    """The sizes a round may have: one to :data:`MAX_DECKS` decks."""
    return tuple(DECK_SIZE * d for d in range(1, MAX_DECKS + 1))


def index_bytes(i: int) -> bytes:
    """A position or size as hash input: one byte below 256 (as every 52-card round
    always had), two above (distinct by length in length-prefixed hashing)."""
    return bytes([i]) if i < 256 else i.to_bytes(2, "big")


def position_width(size: int) -> int:
    """Bytes per position in a frame's data: 1 for rounds of up to 256 cards, else 2."""
    return 1 if size <= 256 else 2


def pack_positions(positions: Iterable[int], size: int) -> bytes:
    """Positions as frame data (:func:`position_width` bytes each, big-endian)."""
    width = position_width(size)
    return b"".join(p.to_bytes(width, "big") for p in positions)


def unpack_positions(data: bytes, size: int) -> list[int] | None:
    """The positions in frame data (None: not a whole number of positions)."""
    width = position_width(size)
    if len(data) % width:
        return None
    return [int.from_bytes(data[k : k + width], "big") for k in range(0, len(data), width)]


def hash_to_int(group: Group, *parts: bytes) -> int:
    """A uniform-looking integer mod ``p`` from SHAKE-256 over length-prefixed parts."""
    h = hashlib.shake_256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big") + part)
    return int.from_bytes(h.digest(group.byte_len + 16), "big") % group.p


@dataclass(frozen=True)
class CardEncoding:
    """The public card encodings of one round (codes ``0..size-1``) and the reverse lookup."""

    values: tuple[int, ...]
    _index: dict[int, int] = field(repr=False, compare=False, hash=False)

    @property
    def size(self) -> int:
        """Cards in the round."""
        return len(self.values)

    @classmethod
    def derive(
        cls, group: Group, joint_seed: bytes, round_id: int, size: int = DECK_SIZE
    ) -> CardEncoding:
        """Derive the encodings of codes ``0..size-1`` for ``round_id``.

        Raises ValueError for a size that is not 1-8 decks, or if two encodings collide
        or one is not a subgroup element (probability about 2^-2000; checked anyway).
        """
        if size not in round_sizes():
            raise ValueError(f"a round holds 1..{MAX_DECKS} decks, not {size} cards")
        rid = round_id.to_bytes(8, "big")
        head: tuple[bytes, ...] = (_DOMAIN, joint_seed, rid)
        if size != DECK_SIZE:
            head = (_SHOE_DOMAIN, joint_seed, rid, index_bytes(size))
        values = []
        for code in range(size):
            h = hash_to_int(group, *head, index_bytes(code))
            values.append(h * h % group.p)
        # Squares are quadratic residues by construction, so no Jacobi test is needed;
        # only the degenerate values 0, 1 (and p-1, never a square here) are excluded.
        if len(set(values)) != size or any(v in (0, 1, group.p - 1) for v in values):
            raise ValueError("degenerate card encoding")
        return cls(tuple(values), {v: i for i, v in enumerate(values)})

    def card_of(self, value: int) -> int | None:
        """The code (``0..size-1``; the card is ``code % 52``) encoded by ``value``, or None."""
        return self._index.get(value)
