"""Modular exponentiation: app.native.sra against its peers, in one process.

    python bench/modexp.py            # readable table with ratios
    python bench/modexp.py --json     # one JSON object of median microseconds
    python bench/modexp.py --quick    # fewer repetitions (either mode)

Peers, on the same random odd 1024-, 2048- and 3072-bit moduli with full-size
exponents: CPython ``pow``, ``gmpy2.powmod`` (GMP, variable time),
``gmpy2.powmod_sec`` (GMP, constant time) and pycryptodome's
``Crypto.Math.Numbers.Integer.inplace_pow`` (which backend that is, is printed
to stderr: in pycryptodome 4.x its constant-time C code, ``IntegerNat``).
``deck_*`` is one exponent applied to 52 bases; ``deck_gmpy2_threads`` splits
the deck over ``os.cpu_count()`` Python threads calling
``gmpy2.powmod_base_list``, which releases the GIL. Extra keys:
``blu21_portable`` (our 32-bit-limb C path, the one 32-bit ARM gets),
``blu21_c64`` (our portable 64-bit C path, the one arm64 gets), ``blu21_adx``
(our x86-64 mulx/adx path, for CPUs without AVX-512 IFMA; c64 where absent)
``deck_blu21_1thread``, and the Jacobi symbols of the deck
(``deck_jacobi_blu21``, ``deck_jacobi_gmpy2``: the check on incoming cards).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import gmpy2
from Crypto.Math.Numbers import Integer

from app.native import sra

SIZES = (1024, 2048, 3072)
DECK = 52


def median_us(fn: Callable[[], object], budget_s: float, min_reps: int, max_reps: int) -> float:
    """Median wall time of fn in microseconds, after one warm-up call."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    reps = max(min_reps, min(max_reps, int(budget_s / max(first, 1e-9))))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return round(statistics.median(times) / 1000, 1)


def bench_size(bits: int, quick: bool, pool: ThreadPoolExecutor, workers: int) -> dict:
    rng = random.Random(bits)
    m = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    e = rng.getrandbits(bits) | (1 << (bits - 1))  # full size
    b = rng.randrange(m)
    deck = [rng.randrange(m) for _ in range(DECK)]
    gm, ge, gb = gmpy2.mpz(m), gmpy2.mpz(e), gmpy2.mpz(b)
    gdeck = [gmpy2.mpz(x) for x in deck]
    im, ie = Integer(m), Integer(e)
    ctx = sra.MontContext(m)
    portable = sra.MontContext(m, kernel="c32")
    kernels = sra.available_kernels()
    c64 = sra.MontContext(m, kernel="c64") if "c64" in kernels else portable
    adx = sra.MontContext(m, kernel="adx") if "adx" in kernels else c64
    chunks = [gdeck[i::workers] for i in range(workers)]

    def deck_gmpy2_threads() -> list:
        return list(pool.map(lambda c: gmpy2.powmod_base_list(c, ge, gm), chunks))

    # every contender must give the same answers before it is timed
    want = pow(b, e, m)
    assert gmpy2.powmod(gb, ge, gm) == gmpy2.powmod_sec(gb, ge, gm) == want
    assert int(Integer(b).inplace_pow(ie, im)) == want
    assert ctx.pow(b, e) == portable.pow(b, e) == c64.pow(b, e) == adx.pow(b, e) == want
    want_deck = [pow(x, e, m) for x in deck]
    assert ctx.pow_batch(deck, e) == gmpy2.powmod_base_list(gdeck, ge, gm) == want_deck
    assert sorted(int(x) for c in deck_gmpy2_threads() for x in c) == sorted(want_deck)
    assert sra.jacobi_batch(deck, m) == [gmpy2.jacobi(x, gm) for x in gdeck]

    budget, lo, hi = (0.15, 1, 5) if quick else (0.6, 3, 41)
    cases: dict[str, Callable[[], object]] = {
        "pow": lambda: pow(b, e, m),
        "gmpy2": lambda: gmpy2.powmod(gb, ge, gm),
        "gmpy2_sec": lambda: gmpy2.powmod_sec(gb, ge, gm),
        "pycryptodome": lambda: Integer(b).inplace_pow(ie, im),
        "blu21": lambda: ctx.pow(b, e),
        "blu21_portable": lambda: portable.pow(b, e),
        "blu21_c64": lambda: c64.pow(b, e),
        "blu21_adx": lambda: adx.pow(b, e),
        "deck_pow": lambda: [pow(x, e, m) for x in deck],
        "deck_gmpy2": lambda: gmpy2.powmod_base_list(gdeck, ge, gm),
        "deck_gmpy2_threads": deck_gmpy2_threads,
        "deck_blu21": lambda: ctx.pow_batch(deck, e),
        "deck_blu21_1thread": lambda: ctx.pow_batch(deck, e, threads=1),
        "deck_jacobi_blu21": lambda: sra.jacobi_batch(deck, m),
        "deck_jacobi_gmpy2": lambda: [gmpy2.jacobi(x, gm) for x in gdeck],
    }
    return {name: median_us(fn, budget, lo, hi) for name, fn in cases.items()}


def describe() -> str:
    ctx = sra.MontContext(2**2047 + 1)
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    return (
        f"cpus={os.cpu_count()} load={load[0]:.2f} blu21 kernels: single={ctx.kernel} "
        f"batch={ctx.batch_kernel} (available {sra.available_kernels()}); "
        f"pycryptodome Integer={Integer.__module__}.{Integer.__name__}; gmpy2 {gmpy2.version()}"
    )


def table(results: dict) -> str:
    lines = []
    for bits, r in results.items():
        lines.append(f"\n{bits}-bit modulus, full-size exponent (median microseconds)")
        lines.append(f"  {'':22}{'us':>12}  {'vs blu21':>9}  {'vs gmpy2':>9}")
        for name, us in r.items():
            if name.startswith("deck_jacobi"):
                ours, peer = r["deck_jacobi_blu21"], r["deck_jacobi_gmpy2"]
            elif name.startswith("deck"):
                ours, peer = r["deck_blu21"], r["deck_gmpy2"]
            else:
                ours, peer = r["blu21"], r["gmpy2"]
            lines.append(f"  {name:22}{us:12.1f}  {us / ours:8.2f}x  {us / peer:8.2f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    args = parser.parse_args(argv)
    workers = os.cpu_count() or 1
    print(describe(), file=sys.stderr)
    with ThreadPoolExecutor(workers) as pool:
        results = {str(bits): bench_size(bits, args.quick, pool, workers) for bits in args.sizes}
    if args.json:
        print(json.dumps(results))
    else:
        print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
