"""Types of the compiled ``app.native.sra`` (source: native/sra.pyx; keep the two in step).

``tests/test_native_stubs.py`` runs mypy's stubtest against the built module, so a
signature changed in the ``.pyx`` and not here fails the suite.
"""

from collections.abc import Iterable

from typing_extensions import disjoint_base

#: Kernel names accepted by ``MontContext(kernel=...)``, with their C ids.
KERNELS: dict[str, int]
#: Thread counts above this are capped.
MAX_THREADS: int

def available_kernels() -> list[str]:
    """Names of the kernels compiled in and supported by this CPU."""

@disjoint_base  # a cdef class: no second C base can be mixed in
class MontContext:
    """Exponentiation modulo one fixed odd modulus, set up once and reused."""

    @property
    def modulus(self) -> int: ...
    @property
    def bits(self) -> int: ...
    @property
    def threads(self) -> int: ...
    @property
    def kernel(self) -> str: ...
    @property
    def batch_kernel(self) -> str: ...
    def __init__(
        self, modulus: int, threads: int | None = None, kernel: str | None = None
    ) -> None: ...
    def pow(self, base: int, exp: int) -> int:
        """``base ** exp % modulus``, constant time in ``exp`` (releases the GIL)."""
    def pow_batch(self, bases: Iterable[int], exp: int, threads: int | None = None) -> list[int]:
        """``[b ** exp % modulus for b in bases]`` over ``threads`` threads (one exponent)."""
    def pow_many(
        self, bases: Iterable[int], exps: Iterable[int], threads: int | None = None
    ) -> list[int]:
        """``[b ** e % modulus for b, e in zip(bases, exps)]`` over ``threads`` threads."""

def powmod(base: int, exp: int, modulus: int) -> int:
    """One-shot ``base ** exp % modulus`` (contexts of recent moduli are cached)."""

def jacobi(a: int, n: int) -> int:
    """Jacobi symbol (a/n) for odd n > 0 (public values: variable time)."""

def jacobi_batch(values: Iterable[int], n: int, _binary: bool = False) -> list[int]:
    """``[jacobi(a, n) for a in values]`` in C, without the GIL."""
