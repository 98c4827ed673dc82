"""Card encodings: the 52 cards as hash-derived squares in the QR subgroup.

``m_c = H(joint_seed || round_id || c)^2 mod p`` with a full-width hash-to-integer
(SHAKE-256 expanded to the byte length of ``p`` plus 16 bytes, reduced mod ``p``).
The joint seed comes from a commit-reveal among all seats at table set-up, so no seat
chooses the encodings; hashing (not small integers) means no multiplicative relations
among encodings are known, and squaring puts every encoding in the order-``q`` subgroup.

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
from dataclasses import dataclass, field

from app.protocol.group import Group

DECK_SIZE = 52
_DOMAIN = b"blu21/sra/card-encoding/v1"


def hash_to_int(group: Group, *parts: bytes) -> int:
    """A uniform-looking integer mod ``p`` from SHAKE-256 over length-prefixed parts."""
    h = hashlib.shake_256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big") + part)
    return int.from_bytes(h.digest(group.byte_len + 16), "big") % group.p


@dataclass(frozen=True)
class CardEncoding:
    """The 52 public card encodings of one round and the reverse lookup."""

    values: tuple[int, ...]
    _index: dict[int, int] = field(repr=False, compare=False, hash=False)

    @classmethod
    def derive(cls, group: Group, joint_seed: bytes, round_id: int) -> CardEncoding:
        """Derive the encodings of card codes 0..51 for ``round_id``.

        Raises ValueError if two encodings collide or one is not a subgroup element
        (probability about 2^-2000; checked anyway).
        """
        rid = round_id.to_bytes(8, "big")
        values = []
        for code in range(DECK_SIZE):
            h = hash_to_int(group, _DOMAIN, joint_seed, rid, bytes([code]))
            values.append(h * h % group.p)
        # Squares are quadratic residues by construction, so no Jacobi test is needed;
        # only the degenerate values 0, 1 (and p-1, never a square here) are excluded.
        if len(set(values)) != DECK_SIZE or any(v in (0, 1, group.p - 1) for v in values):
            raise ValueError("degenerate card encoding")
        return cls(tuple(values), {v: i for i, v in enumerate(values)})

    def card_of(self, value: int) -> int | None:
        """The card code (0..51) encoded by ``value``, or None."""
        return self._index.get(value)
