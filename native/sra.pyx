# cython: language_level=3
"""Modular exponentiation for the SRA shuffle (API skeleton).

PLACEHOLDER: the C-level Montgomery kernels are being written (issue 2); this
file fixes the public API with a correct implementation on the built-in pow.
"""

import os


def _check_modulus(m):
    if type(m) is not int:
        raise ValueError(f"modulus must be an int, not {type(m).__name__}")
    if m < 3 or m % 2 == 0:
        raise ValueError("modulus must be an odd integer greater than 2")


cdef class MontContext:
    """Exponentiation modulo one fixed odd modulus, set up once and reused."""

    cdef readonly object modulus
    cdef readonly int bits
    cdef readonly int threads

    def __init__(self, modulus, threads=None):
        _check_modulus(modulus)
        self.modulus = modulus
        self.bits = modulus.bit_length()
        self.threads = _threads(threads)

    cdef _check(self, base, exp):
        if type(base) is not int or not 0 <= base < self.modulus:
            raise ValueError("base must be an int in [0, modulus)")
        if type(exp) is not int or exp < 0:
            raise ValueError("exponent must be a non-negative int")

    def pow(self, base, exp):
        """``base ** exp % modulus``."""
        self._check(base, exp)
        return pow(base, exp, self.modulus)

    def pow_batch(self, bases, exp, threads=None):
        """Many bases, one exponent."""
        bases = list(bases)
        for b in bases:
            self._check(b, exp)
        return [pow(b, exp, self.modulus) for b in bases]

    def pow_many(self, bases, exps, threads=None):
        """Many bases, each with its own exponent."""
        bases = list(bases)
        exps = list(exps)
        if len(bases) != len(exps):
            raise ValueError("bases and exponents differ in length")
        for b, e in zip(bases, exps):
            self._check(b, e)
        return [pow(b, e, self.modulus) for b, e in zip(bases, exps)]


def _threads(threads):
    if threads is None:
        return os.cpu_count() or 1
    if type(threads) is not int or threads < 1:
        raise ValueError("threads must be a positive int")
    return threads


def powmod(base, exp, modulus):
    """One-shot ``base ** exp % modulus`` (builds a context; reuse MontContext in loops)."""
    return MontContext(modulus).pow(base, exp)


def jacobi(a, n):
    """Jacobi symbol (a/n) for odd n > 0."""
    if type(n) is not int or n <= 0 or n % 2 == 0:
        raise ValueError("n must be an odd positive int")
    a %= n
    result = 1
    while a:
        while a % 2 == 0:
            a //= 2
            if n % 8 in (3, 5):
                result = -result
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            result = -result
        a %= n
    return result if n == 1 else 0
