/* sra_ifma.c: Montgomery exponentiation with AVX-512 IFMA (vpmadd52luq/huq).
 *
 * Compiled on x86-64 with GCC or Clang only, into functions carrying their own
 * target attribute, so the default build needs no -m flags; sra_ctx.c picks
 * these kernels at run time when the CPU (and OS) support AVX-512 IFMA.
 *
 * Numbers are nd digits of 52 bits, R = 2^(52 nd) with 4m < R, so "almost
 * Montgomery" products of inputs < 2m stay < 2m without a subtraction; only
 * the final result is reduced below m, with a mask.
 *
 * ifma:  one number spread over V = ceil(nd / 8) zmm registers (digit j in
 *        lane j % 8 of register j / 8); per digit a_i of one factor, a
 *        broadcast multiply-accumulate over all of b and of the modulus, then
 *        a one-lane shift of the accumulator (operand scanning).
 * ifma8: eight numbers side by side, lane l of register j holding digit j of
 *        number l (vertical); the same exponent schedule runs in all lanes,
 *        and per-lane exponents differ only in the masks of the table scan.
 */
#include "sra_core.h"

#if defined(SRA_HAVE_IFMA)
#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512ifma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512ifma")
#endif

#define M52 ((uint64_t)0xfffffffffffffULL)
#define MAXV 8 /* up to 64 digits: moduli up to 3326 bits */
#define MAX8 64 /* digits in the ifma8 kernel */

int sra_cpu_has_ifma(void) {
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
    }
    return cached;
}

static size_t ndigits(size_t nbytes) { return (nbytes * 8 + 2 + 51) / 52; }

static size_t ifma_rbits(size_t nbytes) { return ndigits(nbytes) * 52; }

/* bytes (little-endian) -> nd 52-bit digits, and back */
static void to_digits(uint64_t *d, const uint8_t *b, size_t nbytes, size_t nd) {
    memset(d, 0, nd * sizeof(uint64_t));
    for (size_t i = 0; i < nbytes; i++) {
        size_t bit = i * 8, j = bit / 52, o = bit % 52;
        d[j] |= ((uint64_t)b[i] << o) & M52;
        if (o > 44 && j + 1 < nd) d[j + 1] |= (uint64_t)b[i] >> (52 - o);
    }
}

static void from_digits(uint8_t *b, const uint64_t *d, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++) {
        size_t bit = i * 8, j = bit / 52, o = bit % 52;
        uint64_t v = d[j] >> o;
        if (o > 44) v |= d[j + 1] << (52 - o);
        b[i] = (uint8_t)v;
    }
}

/* r = x - m if x >= m else x, for normalized digits; masked select. */
static void final_sub(uint64_t *r, const uint64_t *x, const uint64_t *m, size_t nd) {
    uint64_t borrow = 0, d[64];
    for (size_t j = 0; j < nd; j++) {
        uint64_t v = x[j] - m[j] - borrow;
        borrow = v >> 63;
        d[j] = v & M52;
    }
    uint64_t keep = borrow - 1; /* all ones when no borrow: x >= m */
    for (size_t j = 0; j < nd; j++) r[j] = x[j] ^ ((x[j] ^ d[j]) & keep);
}

static uint64_t neg_inv52(uint64_t m0) {
    uint64_t inv = m0;
    for (int k = 0; k < 6; k++) inv *= 2 - m0 * inv;
    return (0 - inv) & M52;
}

/* ------------------------------------------------------------------ ifma */

typedef struct ifma_state ifma_state;
typedef void (*amm_fn)(uint64_t *r, const uint64_t *a, const uint64_t *b, const ifma_state *s);

struct ifma_state {
    size_t nbytes, nd, V;
    uint64_t k0;
    uint64_t *m, *r2, *one; /* V*8 digits each, 64-byte aligned */
    amm_fn amm;
};

/* Carry-propagate the V registers of x into 52-bit digits. Each digit is below
 * 2^63 and the value fits in 8V digits. One vector step leaves digits at most
 * 2^52 + 2^12; the remaining single carries ripple through runs of all-ones
 * digits, which a 64-bit integer addition over the lane masks resolves at once
 * (generate g, propagate p: the lanes receiving a carry are ((g << 1) + p) ^ p). */
static inline __attribute__((always_inline)) void normalize(__m512i *x, const int V) {
    const __m512i mask = _mm512_set1_epi64((long long)M52), zero = _mm512_setzero_si512();
    __m512i c[MAXV];
    for (int v = 0; v < V; v++) {
        c[v] = _mm512_srli_epi64(x[v], 52);
        x[v] = _mm512_and_si512(x[v], mask);
    }
    for (int v = 0; v < V; v++)
        x[v] = _mm512_add_epi64(x[v], _mm512_alignr_epi64(c[v], v ? c[v - 1] : zero, 7));
    uint64_t g = 0, p = 0;
    for (int v = 0; v < V; v++) {
        g |= (uint64_t)_mm512_cmpgt_epu64_mask(x[v], mask) << (8 * v);
        p |= (uint64_t)_mm512_cmpeq_epu64_mask(x[v], mask) << (8 * v);
    }
    uint64_t cin = ((g << 1) + p) ^ p;
    const __m512i one = _mm512_set1_epi64(1);
    for (int v = 0; v < V; v++) {
        x[v] = _mm512_mask_add_epi64(x[v], (__mmask8)(cin >> (8 * v)), x[v], one);
        x[v] = _mm512_and_si512(x[v], mask);
    }
}

/* r = a b / R mod m (almost: r < 2m for a, b < 2m); r may alias a or b. */
static inline __attribute__((always_inline)) void amm_body(uint64_t *r, const uint64_t *a,
                                                           const uint64_t *b, const ifma_state *s,
                                                           const int V, const int k0_is_1) {
    __m512i B[MAXV], M[MAXV], X[MAXV];
    const __m512i zero = _mm512_setzero_si512();
    for (int v = 0; v < V; v++) {
        B[v] = _mm512_load_si512((const void *)(b + 8 * v));
        M[v] = _mm512_load_si512((const void *)(s->m + 8 * v));
        X[v] = zero;
    }
    const __m512i k0 = _mm512_set1_epi64((long long)s->k0), lane0 = _mm512_setzero_si512();
    const size_t nd = s->nd;
    /* The loop is bound by the latency of digit 0: multiply, quotient, reduce,
     * shift. Everything else (the high halves of register 0 in H0, all of the
     * other registers) runs beside that chain. */
    for (size_t i = 0; i < nd; i++) {
        const __m512i ai = _mm512_set1_epi64((long long)a[i]);
        X[0] = _mm512_madd52lo_epu64(X[0], ai, B[0]);
        /* q = digit 0 * k0 mod 2^52, in every lane. The multipliers only read
         * bits 0-51, so with k0 = 1 (moduli = -1 mod 2^52, as the RFC 7919
         * primes) q is digit 0 itself. */
        const __m512i q = _mm512_permutexvar_epi64(
            lane0, k0_is_1 ? X[0] : _mm512_madd52lo_epu64(zero, X[0], k0));
        for (int v = 1; v < V; v++) X[v] = _mm512_madd52lo_epu64(X[v], ai, B[v]);
        __m512i h0 = _mm512_madd52hi_epu64(zero, ai, B[0]);
        for (int v = 0; v < V; v++) X[v] = _mm512_madd52lo_epu64(X[v], q, M[v]);
        h0 = _mm512_madd52hi_epu64(h0, q, M[0]);
        /* digit 0 is now 0 mod 2^52: shift down one digit, carrying its top */
        h0 = _mm512_mask_add_epi64(h0, 1, h0, _mm512_srli_epi64(X[0], 52));
        for (int v = 0; v < V; v++) X[v] = _mm512_alignr_epi64(v + 1 < V ? X[v + 1] : zero, X[v], 1);
        X[0] = _mm512_add_epi64(X[0], h0);
        for (int v = 1; v < V; v++) {
            X[v] = _mm512_madd52hi_epu64(X[v], ai, B[v]);
            X[v] = _mm512_madd52hi_epu64(X[v], q, M[v]);
        }
    }
    normalize(X, V);
    for (int v = 0; v < V; v++) _mm512_store_si512((void *)(r + 8 * v), X[v]);
}

#define AMM_V(n)                                                                          \
    static void amm##n(uint64_t *r, const uint64_t *a, const uint64_t *b, const ifma_state *s) { \
        amm_body(r, a, b, s, n, 0);                                                       \
    }                                                                                     \
    static void amm##n##k1(uint64_t *r, const uint64_t *a, const uint64_t *b,             \
                           const ifma_state *s) {                                         \
        amm_body(r, a, b, s, n, 1);                                                       \
    }
AMM_V(1)
AMM_V(2)
AMM_V(3)
AMM_V(4)
AMM_V(5)
AMM_V(6)
AMM_V(7)
AMM_V(8)
static const amm_fn amm_by_v[2][MAXV + 1] = {
    {0, amm1, amm2, amm3, amm4, amm5, amm6, amm7, amm8},
    {0, amm1k1, amm2k1, amm3k1, amm4k1, amm5k1, amm6k1, amm7k1, amm8k1}};

static void *ifma_init(const uint8_t *mb, const uint8_t *r2b, size_t nbytes) {
    size_t nd = ndigits(nbytes), V = (nd + 7) / 8;
    if (V > MAXV) return NULL;
    ifma_state *s = (ifma_state *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = (uint64_t *)aligned_alloc(64, 3 * V * 64);
    if (!s->m) {
        free(s);
        return NULL;
    }
    memset(s->m, 0, 3 * V * 64);
    s->r2 = s->m + 8 * V;
    s->one = s->r2 + 8 * V;
    s->nbytes = nbytes;
    s->nd = nd;
    s->V = V;
    to_digits(s->m, mb, nbytes, nd);
    to_digits(s->r2, r2b, nbytes, nd);
    s->one[0] = 1;
    s->k0 = neg_inv52(s->m[0]);
    s->amm = amm_by_v[s->k0 == 1][V]; /* public: a property of the modulus */
    return s;
}

static void ifma_free(void *p) {
    ifma_state *s = (ifma_state *)p;
    if (s) free(s->m);
    free(s);
}

static int ifma_pow(const void *p, const uint8_t *bases, const uint8_t *exps, size_t estride,
                    size_t ebytes, size_t count, uint8_t *out) {
    const ifma_state *s = (const ifma_state *)p;
    const size_t V = s->V, W = 8 * V; /* words per number */
    const int win = sra_window(ebytes * 8), entries = 1 << win;
    uint64_t *w = (uint64_t *)aligned_alloc(64, ((size_t)entries + 2) * W * sizeof(uint64_t));
    if (!w) return -1;
    memset(w, 0, ((size_t)entries + 2) * W * sizeof(uint64_t));
    uint64_t *table = w, *acc = table + (size_t)entries * W, *sel = acc + W;
    const amm_fn amm = s->amm;
    for (size_t n = 0; n < count; n++) {
        const uint8_t *e = exps + n * estride;
        to_digits(sel, bases + n * s->nbytes, s->nbytes, s->nd);
        amm(table + W, sel, s->r2, s);    /* base * R */
        amm(table, s->one, s->r2, s);     /* R */
        for (int k = 2; k < entries; k++) { /* the base is public */
            const uint64_t *f = table + (size_t)(k % 2 == 0 ? k / 2 : k - 1) * W;
            const uint64_t *g = table + (size_t)(k % 2 == 0 ? k / 2 : 1) * W;
            amm(table + (size_t)k * W, f, g, s);
        }
        size_t nwin = (ebytes * 8 + (size_t)win - 1) / (size_t)win;
        for (size_t k = nwin; k-- > 0;) {
            unsigned idx = sra_ewindow(e, ebytes, k * (size_t)win, win);
            __m512i S[MAXV];
            for (size_t v = 0; v < V; v++) S[v] = _mm512_setzero_si512();
            for (int x = 0; x < entries; x++) {
                __m512i mask = _mm512_set1_epi64((long long)sra_ct_eq_mask((unsigned)x, idx));
                const uint64_t *row = table + (size_t)x * W;
                for (size_t v = 0; v < V; v++)
                    S[v] = _mm512_or_si512(
                        S[v], _mm512_and_si512(mask, _mm512_load_si512((const void *)(row + 8 * v))));
            }
            for (size_t v = 0; v < V; v++) _mm512_store_si512((void *)(sel + 8 * v), S[v]);
            if (k + 1 == nwin) {
                memcpy(acc, sel, W * sizeof(uint64_t));
            } else {
                for (int q = 0; q < win; q++) amm(acc, acc, acc, s);
                amm(acc, acc, sel, s);
            }
        }
        amm(acc, acc, s->one, s); /* out of the Montgomery domain: <= m */
        final_sub(acc, acc, s->m, s->nd);
        from_digits(out + n * s->nbytes, acc, s->nbytes);
    }
    free(w);
    return 0;
}

const sra_kernel sra_kernel_ifma = {"ifma", 1, ifma_rbits, ifma_init, ifma_free, ifma_pow};

/* ----------------------------------------------------------------- ifma8 */

typedef struct {
    size_t nbytes, nd;
    uint64_t k0;
    uint64_t *m, *r2; /* nd (+ 2 zero) digits (scalar: the modulus is the same in every lane) */
} ifma8_state;

static void *ifma8_init(const uint8_t *mb, const uint8_t *r2b, size_t nbytes) {
    size_t nd = ndigits(nbytes);
    if (nd > 64) return NULL;
    ifma8_state *s = (ifma8_state *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = (uint64_t *)calloc(2 * nd + 2, sizeof(uint64_t));
    if (!s->m) {
        free(s);
        return NULL;
    }
    s->r2 = s->m + nd + 2; /* m is followed by two zero digits (see vsqr) */
    s->nbytes = nbytes;
    s->nd = nd;
    to_digits(s->m, mb, nbytes, nd);
    to_digits(s->r2, r2b, nbytes, nd);
    s->k0 = neg_inv52(s->m[0]);
    return s;
}

static void ifma8_free(void *p) {
    ifma8_state *s = (ifma8_state *)p;
    if (s) free(s->m);
    free(s);
}

/* Carry-propagate nd vertical digits (each lane independently) into 52 bits. */
static void vnormalize(__m512i *r, const __m512i *t, size_t nd) {
    const __m512i mask = _mm512_set1_epi64((long long)M52);
    __m512i c = _mm512_setzero_si512();
    for (size_t j = 0; j < nd; j++) {
        __m512i x = _mm512_add_epi64(t[j], c);
        c = _mm512_srli_epi64(x, 52);
        r[j] = _mm512_and_si512(x, mask);
    }
}

/* r = a b / R mod m in each lane (almost: < 2m for a, b < 2m); t: nd + 1 vectors.
 * r may alias a or b. */
static void vamm(__m512i *r, const __m512i *a, const __m512i *b, const ifma8_state *s, __m512i *t) {
    const size_t nd = s->nd;
    const uint64_t *m = s->m;
    const __m512i zero = _mm512_setzero_si512(), k0 = _mm512_set1_epi64((long long)s->k0);
    for (size_t j = 0; j < nd; j++) t[j] = zero;
    for (size_t i = 0; i < nd; i++) {
        const __m512i ai = a[i];
        __m512i t0 = _mm512_madd52lo_epu64(t[0], ai, b[0]);
        const __m512i q = _mm512_madd52lo_epu64(zero, t0, k0);
        t0 = _mm512_madd52lo_epu64(t0, q, _mm512_set1_epi64((long long)m[0]));
        __m512i carry = _mm512_srli_epi64(t0, 52); /* t0 is 0 mod 2^52 now */
        /* t[j-1] = t[j] + lo(a_i b_j) + lo(q m_j) + hi(a_i b_j-1) + hi(q m_j-1) */
#pragma GCC unroll 4
        for (size_t j = 1; j < nd; j++) {
            const __m512i mj = _mm512_set1_epi64((long long)m[j]);
            const __m512i mp = _mm512_set1_epi64((long long)m[j - 1]);
            __m512i x = _mm512_madd52lo_epu64(t[j], ai, b[j]);
            __m512i y = _mm512_madd52hi_epu64(carry, ai, b[j - 1]);
            x = _mm512_madd52lo_epu64(x, q, mj);
            y = _mm512_madd52hi_epu64(y, q, mp);
            t[j - 1] = _mm512_add_epi64(x, y);
            carry = zero;
        }
        __m512i y = _mm512_madd52hi_epu64(carry, ai, b[nd - 1]);
        t[nd - 1] = _mm512_madd52hi_epu64(y, q, _mm512_set1_epi64((long long)m[nd - 1]));
    }
    vnormalize(r, t, nd);
}

/* r = a^2 / R mod m in each lane: cross products once, doubled, the diagonal,
 * then a separate Montgomery reduction; t: 2 nd vectors. r may alias a. */
static void vsqr(__m512i *r, const __m512i *a, const ifma8_state *s, __m512i *t) {
    const size_t nd = s->nd;
    const uint64_t *m = s->m;
    const __m512i zero = _mm512_setzero_si512(), k0 = _mm512_set1_epi64((long long)s->k0);
    for (size_t j = 0; j < 2 * nd; j++) t[j] = zero;
    /* Cross products, two rows (a_i, a_i+1) per pass over t; ap is a with
     * two zero digits past the top, so the loop needs no end cases. */
    __m512i ap[MAX8 + 2];
    for (size_t j = 0; j < nd; j++) ap[j] = a[j];
    ap[nd] = ap[nd + 1] = zero;
    size_t i = 0;
    for (; i + 2 < nd; i += 2) {
        const __m512i a0 = ap[i], a1 = ap[i + 1];
        const size_t kb = 2 * i + 1; /* the first position: a_i a_i+1 */
        t[kb] = _mm512_madd52lo_epu64(t[kb], a0, a1);
        t[kb + 1] = _mm512_madd52hi_epu64(_mm512_madd52lo_epu64(t[kb + 1], a0, ap[i + 2]), a0, a1);
        __m512i x = _mm512_madd52lo_epu64(t[kb + 2], a0, ap[i + 3]);
        x = _mm512_madd52hi_epu64(x, a0, ap[i + 2]);
        t[kb + 2] = _mm512_madd52lo_epu64(x, a1, ap[i + 2]);
#pragma GCC unroll 4
        for (size_t k = 2 * i + 4; k <= i + nd + 1; k++) {
            x = _mm512_madd52lo_epu64(t[k], a0, ap[k - i]);
            x = _mm512_madd52hi_epu64(x, a0, ap[k - i - 1]);
            x = _mm512_madd52lo_epu64(x, a1, ap[k - i - 1]);
            t[k] = _mm512_madd52hi_epu64(x, a1, ap[k - i - 2]);
        }
    }
    for (; i + 1 < nd; i++) { /* a last row left over */
        const __m512i ai = ap[i];
        /* t[i+j] gets lo(a_i a_j) and hi(a_i a_j-1) */
        __m512i hi = zero;
        for (size_t j = i + 1; j < nd; j++) {
            __m512i x = _mm512_madd52lo_epu64(t[i + j], ai, ap[j]);
            t[i + j] = _mm512_add_epi64(x, hi);
            hi = _mm512_madd52hi_epu64(zero, ai, ap[j]);
        }
        t[i + nd] = _mm512_add_epi64(t[i + nd], hi);
    }
    for (i = 0; i < nd; i++) {
        const __m512i ai = ap[i];
        t[2 * i] = _mm512_madd52lo_epu64(_mm512_add_epi64(t[2 * i], t[2 * i]), ai, ai);
        t[2 * i + 1] = _mm512_madd52hi_epu64(_mm512_add_epi64(t[2 * i + 1], t[2 * i + 1]), ai, ai);
    }
    /* Reduction, two rows per pass over t (half the loads and stores): q0
     * clears digit i, q1 digit i + 1; the modulus' two zero digits past the
     * top keep the loop uniform. */
    for (i = 0; i + 1 < nd; i += 2) {
        const __m512i q0 = _mm512_madd52lo_epu64(zero, t[i], k0);
        const __m512i x0 = _mm512_madd52lo_epu64(t[i], q0, _mm512_set1_epi64((long long)m[0]));
        __m512i t1 = _mm512_madd52lo_epu64(t[i + 1], q0, _mm512_set1_epi64((long long)m[1]));
        t1 = _mm512_madd52hi_epu64(t1, q0, _mm512_set1_epi64((long long)m[0]));
        t1 = _mm512_add_epi64(t1, _mm512_srli_epi64(x0, 52));
        const __m512i q1 = _mm512_madd52lo_epu64(zero, t1, k0);
        const __m512i x1 = _mm512_madd52lo_epu64(t1, q1, _mm512_set1_epi64((long long)m[0]));
        t[i + 1] = x1;
#pragma GCC unroll 4
        for (size_t k = 2; k <= nd + 1; k++) {
            __m512i x = _mm512_madd52lo_epu64(t[i + k], q0, _mm512_set1_epi64((long long)m[k]));
            x = _mm512_madd52hi_epu64(x, q0, _mm512_set1_epi64((long long)m[k - 1]));
            x = _mm512_madd52lo_epu64(x, q1, _mm512_set1_epi64((long long)m[k - 1]));
            t[i + k] = _mm512_madd52hi_epu64(x, q1, _mm512_set1_epi64((long long)m[k - 2]));
        }
        t[i + 2] = _mm512_add_epi64(t[i + 2], _mm512_srli_epi64(x1, 52));
    }
    for (; i < nd; i++) { /* the last row when nd is odd */
        const __m512i q = _mm512_madd52lo_epu64(zero, t[i], k0);
        __m512i hi = zero;
#pragma GCC unroll 4
        for (size_t j = 0; j < nd; j++) {
            __m512i x = _mm512_madd52lo_epu64(t[i + j], q, _mm512_set1_epi64((long long)m[j]));
            t[i + j] = _mm512_add_epi64(x, hi);
            hi = _mm512_madd52hi_epu64(zero, q, _mm512_set1_epi64((long long)m[j]));
        }
        /* t[i] is 0 mod 2^52: its top moves up; t[i + nd] takes the last high part */
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
        t[i + nd] = _mm512_add_epi64(t[i + nd], hi);
    }
    vnormalize(r, t + nd, nd);
}

static int ifma8_pow(const void *p, const uint8_t *bases, const uint8_t *exps, size_t estride,
                     size_t ebytes, size_t count, uint8_t *out) {
    const ifma8_state *s = (const ifma8_state *)p;
    const size_t nd = s->nd;
    const int win = sra_window(ebytes * 8), entries = 1 << win;
    const size_t nvec = ((size_t)entries + 6) * nd; /* table, acc, sel, t (2 nd), one, scratch */
    __m512i *w = (__m512i *)aligned_alloc(64, nvec * sizeof(__m512i));
    uint64_t *d = (uint64_t *)malloc(nd * sizeof(uint64_t));
    if (!w || !d) {
        free(w);
        free(d);
        return -1;
    }
    __m512i *table = w, *acc = table + (size_t)entries * nd, *sel = acc + nd, *t = sel + nd,
            *one = t + 2 * nd, *x = one + nd;
    /* the lanes: bases (zero for unused lanes), then R^2 and 1 */
    uint64_t *xw = (uint64_t *)x; /* digit j of lane l at xw[8 j + l] */
    memset(xw, 0, nd * sizeof(__m512i));
    for (size_t l = 0; l < 8 && l < count; l++) {
        to_digits(d, bases + l * s->nbytes, s->nbytes, nd);
        for (size_t j = 0; j < nd; j++) xw[8 * j + l] = d[j];
    }
    for (size_t j = 0; j < nd; j++) {
        sel[j] = _mm512_set1_epi64((long long)s->r2[j]);
        one[j] = _mm512_set1_epi64(j == 0);
    }
    vamm(table + nd, x, sel, s, t); /* base * R */
    vamm(table, one, sel, s, t);    /* R */
    for (int k = 2; k < entries; k++) {
        if (k % 2 == 0)
            vsqr(table + (size_t)k * nd, table + (size_t)(k / 2) * nd, s, t);
        else
            vamm(table + (size_t)k * nd, table + (size_t)(k - 1) * nd, table + nd, s, t);
    }
    size_t nwin = (ebytes * 8 + (size_t)win - 1) / (size_t)win;
    for (size_t k = nwin; k-- > 0;) {
        uint64_t idx[8];
        for (size_t l = 0; l < 8; l++) /* unused lanes take exponent 0 */
            idx[l] = l < count ? sra_ewindow(exps + l * estride, ebytes, k * (size_t)win, win) : 0;
        const __m512i vidx = _mm512_loadu_si512((const void *)idx);
        for (size_t j = 0; j < nd; j++) sel[j] = _mm512_setzero_si512();
        for (int e = 0; e < entries; e++) {
            /* per-lane select, every entry read */
            const __mmask8 hit = _mm512_cmpeq_epi64_mask(vidx, _mm512_set1_epi64(e));
            const __m512i *row = table + (size_t)e * nd;
            for (size_t j = 0; j < nd; j++) sel[j] = _mm512_mask_mov_epi64(sel[j], hit, row[j]);
        }
        if (k + 1 == nwin) {
            memcpy(acc, sel, nd * sizeof(__m512i));
        } else {
            for (int q = 0; q < win; q++) vsqr(acc, acc, s, t);
            vamm(acc, acc, sel, s, t);
        }
    }
    vamm(acc, acc, one, s, t); /* out of the Montgomery domain: <= m */
    for (size_t l = 0; l < 8 && l < count; l++) {
        for (size_t j = 0; j < nd; j++) d[j] = ((const uint64_t *)acc)[8 * j + l];
        final_sub(d, d, s->m, nd);
        from_digits(out + l * s->nbytes, d, s->nbytes);
    }
    free(w);
    free(d);
    return 0;
}

const sra_kernel sra_kernel_ifma8 = {"ifma8", 8, ifma_rbits, ifma8_init, ifma8_free, ifma8_pow};

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif
