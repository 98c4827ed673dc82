"""Per-round secrets, long-term seat identities (Schnorr signatures) and pairwise keys.

Randomness comes from an injectable ``rng`` with a ``token_bytes(n)`` method; the
default is the :mod:`secrets` module. Tests pass a seeded ``random.Random``-like
object (see :class:`DeterministicRng`) to replay a round exactly.

* :class:`RoundSecret`: one 32-byte seed per seat and round. Every key of the round is
  derived from it with SHAKE-256: the shuffle key ``k``, the per-card keys ``e_j``
  and the shuffle permutation. Revealing the seed after the round (the audit) reveals
  exactly what the seat used, in 32 bytes. Exponents are uniform in ``[1, q-1]``
  (full size) unless ``shuffle_bits`` asks for a short shuffle key (see
  docs/protocol.md, "Short exponents", for the argument; off by default).
* :class:`Identity`: a seat's signing key ``x`` (``y = g^x``) and Diffie-Hellman key
  ``a`` (``A = g^a``), published at table set-up. Signatures are Schnorr signatures in
  the same group with a 128-bit challenge: ``R = g^r``, ``c = H(R, y, msg)``,
  ``s = r + c x mod q``; verification recomputes ``R = g^s * (y^-1)^c``, one full and
  one 128-bit exponentiation in one native ``pow_many`` call. Nonces ``R`` can be
  precomputed off the critical path (:meth:`Identity.precompute`).

Usage::

    >>> from app.protocol.group import unsafe_test_group
    >>> grp = unsafe_test_group()
    >>> me = Identity.generate(grp, DeterministicRng(1))
    >>> sig = me.sign(b"ctx", b"hello")
    >>> verify(grp, me.sign_pub, b"ctx", b"hello", sig)
    True
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from app.protocol.encoding import index_bytes
from app.protocol.group import Group

CHALLENGE_BYTES = 16
MIN_SHORT_EXPONENT_BITS = 256


class Rng(Protocol):
    """Anything with ``token_bytes(n) -> bytes`` (the :mod:`secrets` module qualifies)."""

    def token_bytes(self, n: int) -> bytes: ...


class DeterministicRng:
    """A seeded RNG for tests and replays. NOT for production play."""

    def __init__(self, seed: int) -> None:
        self._r = random.Random(seed)

    def token_bytes(self, n: int) -> bytes:
        return self._r.randbytes(n)


def default_rng() -> Rng:
    """The production RNG: the :mod:`secrets` module."""
    return secrets


def _shake(n: int, *parts: bytes) -> bytes:
    h = hashlib.shake_256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big") + part)
    return h.digest(n)


def exponent_from(group: Group, *parts: bytes) -> int:
    """A full-size exponent, uniform in ``[1, q-1]`` up to 2^-128, from hashed parts."""
    x = int.from_bytes(_shake(group.byte_len + 16, b"blu21/exp", *parts), "big")
    return x % (group.q - 1) + 1


def random_exponent(group: Group, rng: Rng) -> int:
    """A fresh full-size exponent in ``[1, q-1]``."""
    return exponent_from(group, rng.token_bytes(32))


@dataclass(frozen=True)
class RoundSecret:
    """Everything one seat keeps secret during one round, derived from ``seed``."""

    group: Group
    seed: bytes
    round_id: int
    shuffle_bits: int | None = None
    _cache: dict[tuple[str, int], int] = field(
        default_factory=dict, repr=False, compare=False, hash=False
    )
    _perms: dict[int, tuple[int, ...]] = field(
        default_factory=dict, repr=False, compare=False, hash=False
    )

    @classmethod
    def fresh(
        cls, group: Group, round_id: int, rng: Rng, shuffle_bits: int | None = None
    ) -> RoundSecret:
        """A new secret for ``round_id`` from 32 bytes of ``rng``."""
        return cls(group, rng.token_bytes(32), round_id, shuffle_bits)

    def _label(self, *parts: bytes) -> tuple[bytes, ...]:
        return (b"blu21/round", self.seed, self.round_id.to_bytes(8, "big"), *parts)

    @cached_property
    def shuffle_key(self) -> int:
        """``k``: the one key this seat raises the whole deck to in its shuffle pass."""
        if self.shuffle_bits is None:
            return even_exponent(self.group, exponent_from(self.group, *self._label(b"shuffle")))
        if self.shuffle_bits < MIN_SHORT_EXPONENT_BITS:
            raise ValueError(f"short shuffle keys need >= {MIN_SHORT_EXPONENT_BITS} bits")
        nbytes = (self.shuffle_bits + 7) // 8
        raw = _shake(nbytes, *self._label(b"shuffle-short"))
        x = int.from_bytes(raw, "big") >> (8 * nbytes - self.shuffle_bits)
        return (x | 1 << (self.shuffle_bits - 1)) & ~1  # exactly shuffle_bits long, even, < q

    @cached_property
    def shuffle_key_inv(self) -> int:
        """``k^-1 mod q``."""
        return self.group.inv_exp(self.shuffle_key)

    def card_key(self, position: int) -> int:
        """``e_j``: this seat's per-card key for deck position ``j``."""
        key = ("e", position)
        if key not in self._cache:
            e = exponent_from(self.group, *self._label(b"card", index_bytes(position)))
            self._cache[key] = even_exponent(self.group, e)
        return self._cache[key]

    def card_key_inv(self, position: int) -> int:
        """``e_j^-1 mod q``: what this seat reveals to open position ``j``."""
        key = ("ei", position)
        if key not in self._cache:
            self._cache[key] = self.group.inv_exp(self.card_key(position))
        return self._cache[key]

    def lock_exponent(self, position: int) -> int:
        """``k^-1 * e_j mod q``: removes the shuffle key and adds the card key at once.

        Returned as its even representative (``t`` or ``t + q``), see :func:`even_exponent`.
        """
        t = self.shuffle_key_inv * self.card_key(position) % self.group.q
        return t if t % 2 == 0 else t + self.group.q

    def permutation(self, n: int) -> tuple[int, ...]:
        """A uniform permutation of ``range(n)`` (Fisher-Yates on derived bytes)."""
        if n in self._perms:
            return self._perms[n]
        stream = hashlib.shake_256(b"".join(self._label(b"perm", index_bytes(n)))).digest(8 * 4 * n)
        perm = list(range(n))
        off = 0
        for i in range(n - 1, 0, -1):
            # 64-bit draws reduced mod i+1: bias below 2^-57, negligible.
            r = int.from_bytes(stream[off : off + 8], "big") % (i + 1)
            off += 8
            perm[i], perm[r] = perm[r], perm[i]
        self._perms[n] = tuple(perm)
        return self._perms[n]


def even_exponent(group: Group, e: int) -> int:
    """``e`` or ``q - e``, whichever is even: a uniform even key in ``[2, q-1]``.

    Every exponent a seat applies to values it then releases is even, so its outputs
    are squares whatever it was given: a value outside the QR subgroup (Lipton's
    Legendre-symbol leak) cannot carry information through an honest seat, even before
    the (background) Jacobi test names whoever sent it. Costs one bit of key entropy.
    """
    return e if e % 2 == 0 else group.q - e


def message_digest(msg: bytes) -> bytes:
    """The 32-byte digest a signature covers: a signature is checkable from the digest
    alone (:func:`verify_digest`), so a seat can show which frame it received, and
    that its sender signed it, without the frame's values (docs/protocol.md, "Input
    attestations")."""
    return _shake(32, b"blu21/signed", msg)


def challenge(group: Group, r_value: int, pub: int, context: bytes, msg: bytes) -> int:
    """The 128-bit Schnorr challenge (over the digest of ``msg``)."""
    return _challenge(group, r_value, pub, context, message_digest(msg))


def _challenge(group: Group, r_value: int, pub: int, context: bytes, msg_digest: bytes) -> int:
    blen = group.byte_len
    digest = _shake(
        CHALLENGE_BYTES,
        b"blu21/schnorr",
        r_value.to_bytes(blen, "big"),
        pub.to_bytes(blen, "big"),
        context,
        msg_digest,
    )
    return int.from_bytes(digest, "big")


def signature_len(group: Group) -> int:
    """Bytes of one signature: 16-byte challenge + one exponent."""
    return CHALLENGE_BYTES + group.byte_len


def verify(
    group: Group, pub: int, context: bytes, msg: bytes, sig: bytes, *, check_pub: bool = True
) -> bool:
    """Check a Schnorr signature ``sig`` by ``pub`` on ``context || msg``.

    ``check_pub=False`` skips the subgroup test of ``pub`` for keys validated before.
    """
    return verify_digest(group, pub, context, message_digest(msg), sig, check_pub=check_pub)


def verify_digest(
    group: Group,
    pub: int,
    context: bytes,
    msg_digest: bytes,
    sig: bytes,
    *,
    check_pub: bool = True,
) -> bool:
    """:func:`verify` for a message known only by its :func:`message_digest`."""
    if len(sig) != signature_len(group):
        return False
    c = int.from_bytes(sig[:CHALLENGE_BYTES], "big")
    s = int.from_bytes(sig[CHALLENGE_BYTES:], "big")
    if not group.is_exponent(s) or (check_pub and not group.is_element(pub)):
        return False
    pub_inv = pow(pub, -1, group.p)
    gs, yc = group.pow_many([group.g, pub_inv], [s, c])
    r_value = gs * yc % group.p
    return _challenge(group, r_value, pub, context, msg_digest) == c


def verify_many(group: Group, items: Sequence[tuple[int, bytes, bytes, bytes]]) -> list[bool]:
    """:func:`verify` of several ``(pub, context, msg, sig)`` at once, for keys validated
    before: one native ``pow_many`` call for all of them, which spreads over the cores
    (a phone checks the frames waiting in its inbox together, see
    :mod:`app.table.prechecks`). The answer for each is exactly :func:`verify`'s.
    """
    bases: list[int] = []
    exps: list[int] = []
    parsed: list[tuple[int, int] | None] = []
    for pub, _, _, sig in items:
        if len(sig) != signature_len(group):
            parsed.append(None)
            continue
        c = int.from_bytes(sig[:CHALLENGE_BYTES], "big")
        s = int.from_bytes(sig[CHALLENGE_BYTES:], "big")
        if not group.is_exponent(s):
            parsed.append(None)
            continue
        parsed.append((c, s))
        bases += [group.g, pow(pub, -1, group.p)]
        exps += [s, c]
    powers = group.pow_many(bases, exps) if bases else []
    out: list[bool] = []
    k = 0
    for (pub, context, msg, _), cs in zip(items, parsed, strict=True):
        if cs is None:
            out.append(False)
            continue
        r_value = powers[k] * powers[k + 1] % group.p
        k += 2
        out.append(challenge(group, r_value, pub, context, msg) == cs[0])
    return out


#: Signing nonces a seat keeps ready (:class:`NonceStream`), and how many one
#: background step computes (one batch over a phone's cores).
NONCE_STOCK = 8
NONCE_BATCH = 4


class NonceStream:
    """Schnorr signing nonces ``(r, g^r)`` computed ahead, in idle time.

    Signing a frame costs one exponentiation (``g^r``) unless a nonce is ready: a seat
    refills its stock as background work (:meth:`refill`, one batch call over the
    cores), so that a key for a drawn card is signed at once. Each nonce is used once
    (:meth:`take` removes it) and never leaves the seat; ``r`` comes from the seat's
    RNG exactly as when computed on demand, so a signature is the same as before.
    """

    def __init__(self, group: Group, rng: Rng) -> None:
        self.group = group
        self.rng = rng
        self._ready: list[tuple[int, int]] = []

    def __len__(self) -> int:
        return len(self._ready)

    def precompute(self, n: int) -> None:
        """``n`` nonces more (one batch call)."""
        rs = [random_exponent(self.group, self.rng) for _ in range(n)]
        self._ready.extend(zip(rs, self.group.pow_many([self.group.g] * n, rs), strict=True))

    @property
    def due(self) -> bool:
        """True once a whole batch of the stock is used up: a refill costs one
        exponentiation's time whether it makes one nonce or a batch (over the cores),
        and it may hold up a frame that comes in meanwhile, so it comes rarely."""
        return len(self._ready) <= NONCE_STOCK - NONCE_BATCH

    def refill(self) -> int:
        """One bounded step: up to :data:`NONCE_BATCH` nonces more, at most up to the
        stock; how many were made."""
        n = min(NONCE_BATCH, NONCE_STOCK - len(self._ready))
        if n > 0:
            self.precompute(n)
        return max(n, 0)

    def take(self) -> tuple[int, int]:
        """A nonce ``(r, g^r)`` for one signature (computed now if none is ready)."""
        if not self._ready:
            self.precompute(1)
        return self._ready.pop(0)


@dataclass
class Identity:
    """A seat's long-term keys for one table: signing ``x`` and Diffie-Hellman ``a``."""

    group: Group
    sign_secret: int
    dh_secret: int
    sign_pub: int
    dh_pub: int
    rng: Rng
    nonces: NonceStream = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.nonces = NonceStream(self.group, self.rng)

    @classmethod
    def generate(cls, group: Group, rng: Rng | None = None) -> Identity:
        """Fresh keys (two exponentiations)."""
        rng = rng or default_rng()
        x = random_exponent(group, rng)
        a = random_exponent(group, rng)
        y, big_a = group.pow_many([group.g, group.g], [x, a])
        return cls(group, x, a, y, big_a, rng)

    def precompute(self, n: int) -> None:
        """Precompute ``n`` signing nonces ``(r, g^r)`` (background work, one batch call)."""
        self.nonces.precompute(n)

    @property
    def nonces_left(self) -> int:
        """How many precomputed nonces remain."""
        return len(self.nonces)

    def sign(self, context: bytes, msg: bytes) -> bytes:
        """A Schnorr signature on ``context || msg`` (free with a precomputed nonce)."""
        r, r_value = self.nonces.take()
        c = challenge(self.group, r_value, self.sign_pub, context, msg)
        s = (r + c * self.sign_secret) % self.group.q
        if s == 0:  # probability 2^-2047; retry with another nonce
            return self.sign(context, msg)
        return c.to_bytes(CHALLENGE_BYTES, "big") + s.to_bytes(self.group.byte_len, "big")

    def pairwise_key(self, other_dh_pub: int) -> bytes:
        """The 32-byte key shared with the seat whose DH public key is given (one modexp)."""
        shared = self.group.ctx.pow(other_dh_pub, self.dh_secret)
        return _shake(32, b"blu21/pairwise", shared.to_bytes(self.group.byte_len, "big"))


def keystream(key: bytes, n: int, *context: bytes) -> bytes:
    """``n`` bytes of SHAKE-256 keystream for a one-time escrow encryption."""
    return _shake(n, b"blu21/escrow", key, *context)


def digest(*parts: bytes) -> bytes:
    """A 32-byte SHAKE-256 digest of length-prefixed parts."""
    return _shake(32, b"blu21/digest", *parts)
