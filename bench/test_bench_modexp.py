"""pytest-benchmark cases: app.native.sra against pow and gmpy2 at 2048 bits.

    pytest bench/test_bench_modexp.py

Each case checks its answer against the built-in pow once; the timings are
compared by pytest-benchmark's table, never asserted.
"""

import random

import gmpy2
import pytest

from app.native import sra

BITS = 2048
_rng = random.Random(BITS)
M = _rng.getrandbits(BITS) | 1 | (1 << (BITS - 1))
E = _rng.getrandbits(BITS) | (1 << (BITS - 1))
B = _rng.randrange(M)
DECK = [_rng.randrange(M) for _ in range(52)]
CTX = sra.MontContext(M)
WANT = pow(B, E, M)
WANT_DECK = [pow(x, E, M) for x in DECK]


@pytest.mark.benchmark(group="modexp-2048-single")
def test_single_pow(benchmark) -> None:
    assert benchmark(pow, B, E, M) == WANT


@pytest.mark.benchmark(group="modexp-2048-single")
def test_single_gmpy2(benchmark) -> None:
    gb, ge, gm = gmpy2.mpz(B), gmpy2.mpz(E), gmpy2.mpz(M)
    assert benchmark(gmpy2.powmod, gb, ge, gm) == WANT


@pytest.mark.benchmark(group="modexp-2048-single")
def test_single_gmpy2_sec(benchmark) -> None:
    gb, ge, gm = gmpy2.mpz(B), gmpy2.mpz(E), gmpy2.mpz(M)
    assert benchmark(gmpy2.powmod_sec, gb, ge, gm) == WANT


@pytest.mark.benchmark(group="modexp-2048-single")
def test_single_blu21(benchmark) -> None:
    assert benchmark(CTX.pow, B, E) == WANT


@pytest.mark.benchmark(group="modexp-2048-single")
def test_single_blu21_portable(benchmark) -> None:
    ctx = sra.MontContext(M, kernel="c32")
    assert benchmark(ctx.pow, B, E) == WANT


@pytest.mark.benchmark(group="modexp-2048-deck")
def test_deck_gmpy2(benchmark) -> None:
    gdeck, ge, gm = [gmpy2.mpz(x) for x in DECK], gmpy2.mpz(E), gmpy2.mpz(M)
    assert benchmark(gmpy2.powmod_base_list, gdeck, ge, gm) == WANT_DECK


@pytest.mark.benchmark(group="modexp-2048-deck")
def test_deck_blu21(benchmark) -> None:
    assert benchmark(CTX.pow_batch, DECK, E) == WANT_DECK


@pytest.mark.benchmark(group="modexp-2048-deck")
def test_deck_blu21_one_thread(benchmark) -> None:
    assert benchmark(CTX.pow_batch, DECK, E, 1) == WANT_DECK
