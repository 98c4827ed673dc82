"""The fixed prime-order group every SRA computation runs in.

Only the RFC 7919 safe primes are accepted: ``ffdhe2048`` (the default) and
``ffdhe3072``. A host-chosen prime could have a smooth ``p - 1`` and let it take
discrete logarithms, so :func:`group_for_prime` refuses every other modulus.

All values live in the subgroup of quadratic residues, of prime order
``q = (p - 1) / 2``. Exponents are taken mod ``q``; every exponent in
``[1, q - 1]`` is invertible because ``q`` is prime.

Usage::

    >>> from app.protocol.group import FFDHE2048, group_by_name
    >>> group_by_name("ffdhe2048") is FFDHE2048
    True
    >>> FFDHE2048.is_element(4), FFDHE2048.is_element(FFDHE2048.p - 1)
    (True, False)

Tests may build a small toy group through :func:`unsafe_test_group`; it carries
``production=False`` and is never returned by :func:`group_by_name`,
:func:`group_by_id` or :func:`group_for_prime`, so no production path can select it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property

from app.native.sra import MontContext, jacobi

# RFC 7919, appendix A.1 (ffdhe2048), typed in from the RFC; tests re-derive it from
# the RFC formula p = 2^b - 2^(b-64) + ([2^(b-130) e] + X) * 2^64 - 1 and check that
# p and (p - 1) / 2 are probable primes.
_FFDHE2048_HEX = (
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695"
    "A9E13641146433FBCC939DCE249B3EF97D2FE363630C75D8F681B202AEC4617A"
    "D3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3B557135E7F57C935"
    "984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797A"
    "BC0AB182B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4"
    "AE56EDE76372BB190B07A7C8EE0A6D709E02FCE1CDF7E2ECC03404CD28342F61"
    "9172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC2EC22005"
    "C58EF1837D1683B2C6F34A26C1B2EFFA886B423861285C97FFFFFFFFFFFFFFFF"
)

# RFC 7919, appendix A.2 (ffdhe3072).
_FFDHE3072_HEX = (
    "FFFFFFFFFFFFFFFFADF85458A2BB4A9AAFDC5620273D3CF1D8B9C583CE2D3695"
    "A9E13641146433FBCC939DCE249B3EF97D2FE363630C75D8F681B202AEC4617A"
    "D3DF1ED5D5FD65612433F51F5F066ED0856365553DED1AF3B557135E7F57C935"
    "984F0C70E0E68B77E2A689DAF3EFE8721DF158A136ADE73530ACCA4F483A797A"
    "BC0AB182B324FB61D108A94BB2C8E3FBB96ADAB760D7F4681D4F42A3DE394DF4"
    "AE56EDE76372BB190B07A7C8EE0A6D709E02FCE1CDF7E2ECC03404CD28342F61"
    "9172FE9CE98583FF8E4F1232EEF28183C3FE3B1B4C6FAD733BB5FCBC2EC22005"
    "C58EF1837D1683B2C6F34A26C1B2EFFA886B4238611FCFDCDE355B3B6519035B"
    "BC34F4DEF99C023861B46FC9D6E6C9077AD91D2691F7F7EE598CB0FAC186D91C"
    "AEFE130985139270B4130C93BC437944F4FD4452E2D74DD364F2E21E71F54BFF"
    "5CAE82AB9C9DF69EE86D2BC522363A0DABC521979B0DEADA1DBF9A42D5C4484E"
    "0ABCD06BFA53DDEF3C1B20EE3FD59D7C25E41D2B66C62E37FFFFFFFFFFFFFFFF"
)


class Group:
    """A safe-prime group ``Z_p^*`` used through its quadratic-residue subgroup of order ``q``.

    ``gid`` is the one-byte id carried in every message header.
    """

    __slots__ = ("__dict__", "g", "gid", "name", "p", "production", "q")

    def __init__(self, name: str, gid: int, p: int, *, production: bool) -> None:
        self.name = name
        self.gid = gid
        self.p = p
        self.q = (p - 1) // 2
        # 2 is a quadratic residue for p = 7 mod 8 (true for the RFC 7919 primes), so it
        # generates the whole order-q subgroup; the toy group uses 4 = 2^2 instead.
        self.g = 2 if p % 8 == 7 else 4
        self.production = production

    def __repr__(self) -> str:
        return f"Group({self.name!r})"

    @property
    def bits(self) -> int:
        """Bit length of ``p``."""
        return self.p.bit_length()

    @property
    def byte_len(self) -> int:
        """Bytes of one group element or exponent on the wire (fixed width, big-endian)."""
        return (self.p.bit_length() + 7) // 8

    @cached_property
    def ctx(self) -> MontContext:
        """The native exponentiation context for ``p`` (built once, shared)."""
        return MontContext(self.p)

    def is_element(self, c: object) -> bool:
        """True when ``c`` is an int with ``1 < c < p - 1`` and Jacobi symbol 1.

        For prime ``p`` the Jacobi symbol equals the Legendre symbol, so this is the
        membership test for the quadratic-residue subgroup (minus the trivial 1).
        """
        return type(c) is int and 1 < c < self.p - 1 and jacobi(c, self.p) == 1

    def is_exponent(self, e: object) -> bool:
        """True when ``e`` is an int in ``[1, q - 1]`` (hence invertible mod ``q``)."""
        return type(e) is int and 0 < e < self.q

    def pow_batch(self, bases: Sequence[int], exp: int) -> list[int]:
        """Every base to one exponent (one native batch call)."""
        return list(self.ctx.pow_batch(list(bases), exp))

    def pow_many(self, bases: Sequence[int], exps: Sequence[int]) -> list[int]:
        """Each base to its own exponent (one native batch call)."""
        return list(self.ctx.pow_many(list(bases), list(exps)))

    def inv_exp(self, e: int) -> int:
        """The inverse of an exponent mod ``q``."""
        return pow(e, -1, self.q)

    def prod_exp(self, exps: Iterable[int]) -> int:
        """The product of exponents mod ``q`` (combine first, exponentiate once)."""
        r = 1
        for e in exps:
            r = r * e % self.q
        return r


def _from_hex(text: str) -> int:
    return int(text, 16)


FFDHE2048 = Group("ffdhe2048", 1, _from_hex(_FFDHE2048_HEX), production=True)
FFDHE3072 = Group("ffdhe3072", 2, _from_hex(_FFDHE3072_HEX), production=True)

_GROUPS = {g.name: g for g in (FFDHE2048, FFDHE3072)}
_BY_ID = {g.gid: g for g in (FFDHE2048, FFDHE3072)}
DEFAULT_GROUP = FFDHE2048


class UnknownGroup(ValueError):
    """A group name, id or prime that is not one of the fixed RFC 7919 groups."""

    code = "unknown_group"


def group_by_name(name: str) -> Group:
    """``"ffdhe2048"`` or ``"ffdhe3072"``; anything else raises :class:`UnknownGroup`."""
    try:
        return _GROUPS[name]
    except KeyError:
        raise UnknownGroup(f"unknown group {name!r}") from None


def group_by_id(gid: int) -> Group:
    """The group with the one-byte wire id ``gid``."""
    try:
        return _BY_ID[gid]
    except KeyError:
        raise UnknownGroup(f"unknown group id {gid!r}") from None


def group_for_prime(p: int) -> Group:
    """The fixed group with modulus ``p``; any other prime (e.g. host-chosen) is refused."""
    for g in _GROUPS.values():
        if g.p == p:
            return g
    raise UnknownGroup("only the RFC 7919 primes ffdhe2048 and ffdhe3072 are accepted")


# A 512-bit safe prime generated once for fast tests. NOT secure; never reachable by
# name, id or prime lookup above.
_TOY_P = int(
    "b1d71491e9e8819441936ddd925fb4713032f525984964b88543294d8b952634"
    "61c090bd240093e152fe88c24f15374a4d25773fef14be1d2f94b45b9987d8d7",
    16,
)


def unsafe_test_group() -> Group:
    """A small safe-prime group for fast property tests only (``production=False``).

    Seats built on it refuse to talk to seats on a production group (the id differs),
    and :func:`group_by_id` never returns it.
    """
    return _TOY


_TOY = Group("toy512-UNSAFE-TEST-ONLY", 255, _TOY_P, production=False)
