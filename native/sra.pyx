# cython: language_level=3, boundscheck=False, wraparound=False
"""Constant-time modular exponentiation for the SRA shuffle.

Montgomery arithmetic in C (native/sra_*.c, see docs/sra.md): this module only
checks and converts Python ints (little-endian bytes at the boundary) and
releases the GIL around the C work. Plain-Python reference: the built-in
``pow(base, exp, modulus)``.

>>> ctx = MontContext(2**127 - 1)
>>> ctx.pow(3, 10**30) == pow(3, 10**30, 2**127 - 1)
True
>>> ctx.pow_batch([2, 3, 5], 65537) == [pow(b, 65537, 2**127 - 1) for b in (2, 3, 5)]
True

The exponent is the secret (a player's key): the time of an exponentiation
depends on the modulus size and on the exponent's *allocated* length, which is
the modulus' byte length, or the byte length of the longest exponent in the
call when that is longer. Bases and the modulus are public.
"""

import os
from functools import lru_cache

from libc.stdint cimport uint8_t


cdef extern from "sra_core.h" nogil:
    enum:
        SRA_K_C32
        SRA_K_C64
        SRA_K_IFMA
        SRA_K_IFMA8
        SRA_K_ADX
        SRA_K_A64
        SRA_K_NEON
    ctypedef struct sra_ctx:
        pass
    int sra_kernel_available(int id)
    const char *sra_kernel_name(int id)
    size_t sra_kernel_rbits(int id, size_t nbytes)
    int sra_plan(int request, size_t nbytes, int *single_id, int *batch_id)
    sra_ctx *sra_ctx_new(int single_id, int batch_id, const uint8_t *m,
                         const uint8_t *r2_single, const uint8_t *r2_batch, size_t nbytes)
    void sra_ctx_free(sra_ctx *ctx)
    int sra_pow_batch(const sra_ctx *ctx, const uint8_t *bases, const uint8_t *exps,
                      size_t estride, size_t ebytes, size_t count, uint8_t *out, int threads)
    int sra_jacobi(const uint8_t *a, const uint8_t *n, size_t nbytes)
    int sra_jacobi_binary(const uint8_t *a, const uint8_t *n, size_t nbytes)


#: Kernel names accepted by ``MontContext(kernel=...)``.
KERNELS = {
    "c32": SRA_K_C32,  # portable C, 32-bit limbs (the 32-bit ARM path)
    "c64": SRA_K_C64,  # portable C, 64-bit limbs with 128-bit products
    "adx": SRA_K_ADX,  # x86-64 mulx/adcx/adox rows
    "a64": SRA_K_A64,  # aarch64: two rows per pass, inline-assembly inner loop
    "neon": SRA_K_NEON,  # 32-bit ARM with NEON: 28-bit digits, vmlal.u32 columns
    "ifma": SRA_K_IFMA,  # x86-64 AVX-512 IFMA, one number at a time
    "ifma8": SRA_K_IFMA8,  # x86-64 AVX-512 IFMA, eight numbers in parallel lanes
}


def available_kernels() -> list:
    """Names of the kernels compiled in and supported by this CPU."""
    return [name for name, kid in KERNELS.items() if sra_kernel_available(kid)]


def _check_modulus(m):
    if type(m) is not int:
        raise ValueError(f"modulus must be an int, not {type(m).__name__}")
    if m < 3 or m % 2 == 0:
        raise ValueError("modulus must be an odd integer greater than 2")


#: Thread counts above this are capped (the C driver uses at most 256).
MAX_THREADS = 256


def _threads(threads):
    if threads is None:
        return min(os.cpu_count() or 1, MAX_THREADS)
    if type(threads) is not int or threads < 1:
        raise ValueError("threads must be a positive int")
    return min(threads, MAX_THREADS)


cdef bytes _r2(int kid, modulus, Py_ssize_t nbytes):
    """R^2 mod m for kernel kid's Montgomery radix R = 2^rbits."""
    rbits: int = sra_kernel_rbits(kid, nbytes)  # a Python int: the shift is big
    return ((1 << (2 * rbits)) % modulus).to_bytes(nbytes, "little")


cdef class MontContext:
    """Exponentiation modulo one fixed odd modulus, set up once and reused.

    ``threads`` is the default thread count of the batch calls (default
    ``os.cpu_count()``, at most :data:`MAX_THREADS`); ``kernel`` forces one of :data:`KERNELS` (default: the
    fastest this CPU runs). ``.kernel`` and ``.batch_kernel`` name the kernels
    in use for single and batch calls.
    """

    cdef sra_ctx *ctx
    cdef Py_ssize_t nbytes
    cdef readonly object modulus
    cdef readonly int bits
    cdef readonly int threads
    cdef readonly str kernel
    cdef readonly str batch_kernel

    def __cinit__(self):
        self.ctx = NULL

    def __init__(self, modulus, threads=None, kernel=None):
        cdef int request = -1, single_id = 0, batch_id = 0
        cdef sra_ctx *ctx
        _check_modulus(modulus)
        nthreads = _threads(threads)
        if kernel is not None:
            if kernel not in KERNELS:
                raise ValueError(f"kernel must be one of {sorted(KERNELS)}, not {kernel!r}")
            request = KERNELS[kernel]
        nbytes = (modulus.bit_length() + 7) // 8
        if sra_plan(request, nbytes, &single_id, &batch_id) != 0:
            raise ValueError(f"kernel {kernel!r} is not available here: {available_kernels()}")
        cdef bytes mb = modulus.to_bytes(nbytes, "little")
        # R^2 mod m for each kernel's radix R = 2^rbits: one division, done here once
        cdef bytes r2s = _r2(single_id, modulus, nbytes), r2b = _r2(batch_id, modulus, nbytes)
        ctx = sra_ctx_new(single_id, batch_id, mb, r2s, r2b, nbytes)
        if ctx == NULL:
            raise MemoryError("no memory for the Montgomery context")
        sra_ctx_free(self.ctx)  # when __init__ is called again
        self.ctx = ctx
        self.nbytes = nbytes
        self.threads = nthreads
        self.modulus = modulus
        self.bits = modulus.bit_length()
        self.kernel = sra_kernel_name(single_id).decode()
        self.batch_kernel = sra_kernel_name(batch_id).decode()

    def __dealloc__(self):
        sra_ctx_free(self.ctx)

    def __repr__(self):
        return f"MontContext(<{self.bits}-bit modulus>, threads={self.threads}, kernel={self.kernel!r})"

    cdef bytes _bases(self, list bases):
        m = self.modulus
        nb = self.nbytes
        for b in bases:
            if type(b) is not int or not 0 <= b < m:
                raise ValueError("base must be an int in [0, modulus)")
        return b"".join([b.to_bytes(nb, "little") for b in bases])

    cdef Py_ssize_t _elen(self, list exps) except -1:
        """Allocated exponent length in bytes: the modulus' length or longer."""
        cdef Py_ssize_t n = self.nbytes
        for e in exps:
            if type(e) is not int or e < 0:
                raise ValueError("exponent must be a non-negative int")
            n = max(n, (e.bit_length() + 7) // 8)
        return n

    cdef list _run(self, bytes bb, bytes eb, size_t estride, size_t ebytes, size_t count,
                   int threads):
        cdef bytearray out = bytearray(count * self.nbytes)
        cdef uint8_t *po = out
        cdef const uint8_t *pb = bb
        cdef const uint8_t *pe = eb
        cdef int rc
        with nogil:
            rc = sra_pow_batch(self.ctx, pb, pe, estride, ebytes, count, po, threads)
        if rc != 0:
            raise MemoryError("no memory for the exponentiation")
        nb = self.nbytes
        return [int.from_bytes(out[i * nb:(i + 1) * nb], "little") for i in range(count)]

    def pow(self, base, exp) -> int:
        """``base ** exp % modulus``, constant time in ``exp`` (releases the GIL)."""
        bl = [base]
        el = [exp]
        bb = self._bases(bl)
        ebytes = self._elen(el)
        return self._run(bb, exp.to_bytes(ebytes, "little"), 0, ebytes, 1, 1)[0]

    def pow_batch(self, bases, exp, threads=None) -> list:
        """``[b ** exp % modulus for b in bases]`` over ``threads`` threads (one exponent)."""
        bl = list(bases)
        el = [exp]
        bb = self._bases(bl)
        ebytes = self._elen(el)
        nthreads = self.threads if threads is None else _threads(threads)
        return self._run(bb, exp.to_bytes(ebytes, "little"), 0, ebytes, len(bl), nthreads)

    def pow_many(self, bases, exps, threads=None) -> list:
        """``[b ** e % modulus for b, e in zip(bases, exps)]`` over ``threads`` threads."""
        bl = list(bases)
        el = list(exps)
        if len(bl) != len(el):
            raise ValueError("bases and exponents differ in length")
        bb = self._bases(bl)
        ebytes = self._elen(el)
        nthreads = self.threads if threads is None else _threads(threads)
        eb = b"".join([e.to_bytes(ebytes, "little") for e in el])
        return self._run(bb, eb, ebytes, ebytes, len(bl), nthreads)


@lru_cache(maxsize=8)
def _context(modulus):
    return MontContext(modulus, threads=1)


def powmod(base, exp, modulus) -> int:
    """One-shot ``base ** exp % modulus`` (contexts of recent moduli are cached).

    >>> powmod(4, 13, 497)
    445
    """
    _check_modulus(modulus)
    return _context(modulus).pow(base, exp)


def _check_jacobi_modulus(n):
    if type(n) is not int or n <= 0 or n % 2 == 0:
        raise ValueError("n must be an odd positive int")


def jacobi(a, n) -> int:
    """Jacobi symbol (a/n) for odd n > 0 (public values: variable time).

    >>> [jacobi(a, 7) for a in range(7)]
    [0, 1, 1, -1, 1, -1, -1]
    """
    _check_jacobi_modulus(n)
    if type(a) is not int:
        raise ValueError(f"a must be an int, not {type(a).__name__}")
    return jacobi_batch([a], n)[0]


def jacobi_batch(values, n, _binary=False) -> list:
    """``[jacobi(a, n) for a in values]`` in C, without the GIL.

    The cheap first check on incoming ciphertexts (quadratic residues have
    symbol 1 modulo a prime).

    ``_binary=True`` (tests only) runs the bit-at-a-time algorithm the batched
    one falls back on when a batch misjudges an order.

    >>> jacobi_batch([1, 2, 3, 4, 5, 6], 7)
    [1, 1, -1, 1, -1, -1]
    """
    _check_jacobi_modulus(n)
    vals = list(values)
    for a in vals:
        if type(a) is not int:
            raise ValueError(f"a must be an int, not {type(a).__name__}")
    nbytes = (n.bit_length() + 7) // 8
    cdef bytes nb = n.to_bytes(nbytes, "little")
    cdef bytes ab = b"".join([(a % n).to_bytes(nbytes, "little") for a in vals])
    cdef const uint8_t *pa = ab
    cdef const uint8_t *pn = nb
    cdef size_t count = len(vals), size = nbytes, i
    out = [0] * count
    cdef int r
    cdef bint binary = _binary
    for i in range(count):
        with nogil:
            if binary:
                r = sra_jacobi_binary(pa + i * size, pn, size)
            else:
                r = sra_jacobi(pa + i * size, pn, size)
        if r == -2:
            raise MemoryError("no memory for the Jacobi symbol")
        out[i] = r
    return out
