/* The NEON kernel for 32-bit ARM (armeabi-v7a phones): Montgomery products on
 * 2 x 32-bit lanes with vmlal.u32, in a redundant representation.
 *
 * Numbers are n digits of db = 28 bits (26 for moduli above 2344 bits), kept in
 * uint32_t; R = 2^(db n) > 4m, so "almost Montgomery" products of values below
 * 2m stay below 2m and need no subtraction until the very end. A product is
 * accumulated column by column in 64-bit lanes (operand scanning): step i adds
 * a[i] * b + u * m to columns i..i+n-1 (two vmlal.u32 per pair of columns,
 * both rows in one pass over the accumulator), then moves column i's bits above
 * db into column i+1 (column i is 0 mod 2^db by the choice of u). No carry is
 * propagated inside a pass: a column collects at most 2n + 1 products below
 * 2^(2 db) plus one carry below 2^(64 - db), which fits 64 bits for the digit
 * counts used here (2n + 1 <= 169 at db = 28, <= 4093 at db = 26). The columns
 * of the result become digits again in one scalar pass. The squaring adds each
 * cross product once (the other factor's digits doubled) in the reduction's
 * pass and the diagonal before the first step; the bound is the same.
 *
 * Only this file is built with NEON (CMake gives it -mfpu=neon; GCC builds
 * without that flag, like tools/armcount.py's, get the same from the pragma
 * below); sra_ctx.c offers the kernel only when getauxval(AT_HWCAP) reports
 * NEON, and c32 stays the fallback. Constant time: the loop bounds and every
 * address depend on the modulus size only; vmull/vmlal take fixed time on the
 * Cortex-A cores (no early termination on NEON).
 */
#include "sra_core.h"

#if defined(SRA_HAVE_NEON)
#if !defined(__ARM_NEON) && !defined(__clang__)
#pragma GCC target("fpu=neon")
#endif
#include <arm_neon.h>
#include <stdlib.h>
#include <string.h>

/* Digits above this many would overflow a column at db = 26 (see above). */
#define NEON_MAX_DIGITS 2046
/* Spare zero digits (and accumulator lanes) past the n of a number. */
#define NEON_PAD 4

typedef struct {
    int n;          /* digits, even */
    int db;         /* bits per digit */
    size_t nbytes;  /* bytes per number at the interface */
    uint32_t n0;    /* -m^-1 mod 2^32 */
    uint32_t *m;    /* modulus, n digits (+ NEON_PAD zero digits) */
    uint32_t *r2;   /* R^2 mod m */
} neon_state;

/* Digit width and count for an nbytes modulus: 2^(db n) > 4m. */
static int neon_db(size_t nbytes) { return (nbytes * 8 + 2 + 27) / 28 <= 84 ? 28 : 26; }

static int neon_n(size_t nbytes) {
    size_t db = (size_t)neon_db(nbytes), n = (nbytes * 8 + 2 + db - 1) / db;
    return (int)(n + (n & 1));
}

size_t sra_neon_max_nbytes(void) { return (size_t)(NEON_MAX_DIGITS * 26 - 2) / 8; }

static size_t neon_rbits(size_t nbytes) { return (size_t)neon_n(nbytes) * (size_t)neon_db(nbytes); }

/* Digits per number in the window table and the scratch: whole 16-byte vectors. */
static int neon_stride(int n) { return (n + NEON_PAD + 3) & ~3; }

static void neon_from_bytes(uint32_t *x, const uint8_t *b, size_t nbytes, int n, int db) {
    memset(x, 0, (size_t)(n + NEON_PAD) * sizeof(uint32_t));
    for (size_t i = 0; i < nbytes * 8; i++)
        x[i / (size_t)db] |= (uint32_t)((b[i >> 3] >> (i & 7)) & 1) << (i % (size_t)db);
}

/* x (normalized digits, value < 2^(8 nbytes)) to little-endian bytes */
static void neon_to_bytes(uint8_t *b, const uint32_t *x, size_t nbytes, int db) {
    memset(b, 0, nbytes);
    for (size_t i = 0; i < nbytes * 8; i++)
        b[i >> 3] |= (uint8_t)(((x[i / (size_t)db] >> (i % (size_t)db)) & 1) << (i & 7));
}

/* One step's rows: t[0..l) += u * m[0..l), then t[j] += x * b[j] + u * m[j] for j in
 * [l, n); l and n even. One pass over the columns, sixteen a step (vldm/vstm of the
 * accumulator, vld1 of the digits, vmlal.u32 by scalar), then eight, then two at a time.
 * The scalars sit in d0 (x, u: a by-scalar operand must be d0-d15), the digits in
 * d2-d9, the columns in d16-d31. */
/* %[k] columns (even) at %[t] in blocks of 16, then 8, then 2, each block one asm text
 * (B16, B8, B2, in which %[t] and the digit pointers move on); P makes the labels unique. */
#define NEON_COLUMNS(P, B16, B8, B2)                                                       \
    "lsrs %[c], %[k], #4\n\t"                                                                \
    "beq " #P "2f\n" #P "1:\n\t" B16 "subs %[c], %[c], #1\n\t"                                \
    "bne " #P "1b\n" #P "2:\n\t"                                                             \
    "tst %[k], #8\n\t"                                                                       \
    "beq " #P "3f\n\t" B8 #P "3:\n\t"                                                        \
    "ands %[c], %[k], #6\n\t"                                                                \
    "beq " #P "5f\n" #P "4:\n\t" B2 "subs %[c], %[c], #2\n\t"                                 \
    "bne " #P "4b\n" #P "5:\n\t"
/* columns q<Q>..q<Q+3> += 8 digits of %[m] (d2-d5) * d0[1] */
#define NEON_U8(Q0, Q1, Q2, Q3)                                                               \
    "vld1.32 {d2-d5}, [%[m]]!\n\t"                                                           \
    "vmlal.u32 " Q0 ", d2, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q1 ", d3, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q2 ", d4, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q3 ", d5, d0[1]\n\t"
/* columns q<Q>..q<Q+3> += 8 digits of %[b] (d2-d5) * d0[0] + 8 of %[m] (d6-d9) * d0[1] */
#define NEON_XU8(Q0, Q1, Q2, Q3)                                                              \
    "vld1.32 {d2-d5}, [%[b]]!\n\t"                                                           \
    "vld1.32 {d6-d9}, [%[m]]!\n\t"                                                           \
    "vmlal.u32 " Q0 ", d2, d0[0]\n\t"                                                        \
    "vmlal.u32 " Q1 ", d3, d0[0]\n\t"                                                        \
    "vmlal.u32 " Q2 ", d4, d0[0]\n\t"                                                        \
    "vmlal.u32 " Q3 ", d5, d0[0]\n\t"                                                        \
    "vmlal.u32 " Q0 ", d6, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q1 ", d7, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q2 ", d8, d0[1]\n\t"                                                        \
    "vmlal.u32 " Q3 ", d9, d0[1]\n\t"
#define NEON_LOAD16 "vldm %[t], {d16-d31}\n\t"
#define NEON_STORE16 "vstmia %[t]!, {d16-d31}\n\t"
#define NEON_LOAD8 "vldm %[t], {d16-d23}\n\t"
#define NEON_STORE8 "vstmia %[t]!, {d16-d23}\n"
#define NEON_LOAD2 "vldm %[t], {d16-d17}\n\t"
#define NEON_STORE2 "vstmia %[t]!, {d16-d17}\n\t"

static inline void neon_step(uint64_t *t, const uint32_t *b, const uint32_t *m, uint32_t x,
                             uint32_t u, int l, int n) {
    uint32_t k = (uint32_t)l, c;
    __asm__ volatile(
        "vmov d0, %[x], %[u]\n\t"
        /* u * m over the first k = l columns */
        NEON_COLUMNS(1, NEON_LOAD16 NEON_U8("q8", "q9", "q10", "q11")
                            NEON_U8("q12", "q13", "q14", "q15") NEON_STORE16,
                     NEON_LOAD8 NEON_U8("q8", "q9", "q10", "q11") NEON_STORE8,
                     NEON_LOAD2 "vld1.32 {d2}, [%[m]]!\n\t"
                                "vmlal.u32 q8, d2, d0[1]\n\t" NEON_STORE2)
        /* x * b + u * m over the other k = n - l */
        "add %[b], %[b], %[k], lsl #2\n\t"
        "sub %[k], %[n], %[k]\n\t"
        NEON_COLUMNS(2, NEON_LOAD16 NEON_XU8("q8", "q9", "q10", "q11")
                            NEON_XU8("q12", "q13", "q14", "q15") NEON_STORE16,
                     NEON_LOAD8 NEON_XU8("q8", "q9", "q10", "q11") NEON_STORE8,
                     NEON_LOAD2 "vld1.32 {d2}, [%[b]]!\n\t"
                                "vld1.32 {d6}, [%[m]]!\n\t"
                                "vmlal.u32 q8, d2, d0[0]\n\t"
                                "vmlal.u32 q8, d6, d0[1]\n\t" NEON_STORE2)
        : [t] "+r"(t), [b] "+r"(b), [m] "+r"(m), [k] "+r"(k), [c] "=&r"(c)
        : [x] "r"(x), [u] "r"(u), [n] "r"(n)
        : "cc", "memory", "d0", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d16", "d17",
          "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", "d29",
          "d30", "d31");
}

/* Montgomery steps over the columns t (prepared by the caller), result digits in r.
 * Product (sq = 0): step i adds a[i] * b + u * m at columns i..i+n-1. Square (sq = 1,
 * b = the doubled digits of a, the diagonal already in t): step i adds u * m at columns
 * [i, i + l) and a[i] * b[j] + u * m[j] at columns i + j for j in [l, n), l = i rounded
 * up to even (so both parts are whole pairs); for even i that includes 2 a[i]^2 at
 * column 2i, which the caller's diagonal has as -a[i]^2 (mod 2^64: the column is only
 * read once all its terms are in). The carry out of column i stays in c (columns in
 * memory never hold it) and enters column i+1's quotient and sum. */
static inline __attribute__((always_inline)) void neon_steps(uint32_t *r, uint64_t *t,
                                                             const uint32_t *a,
                                                             const uint32_t *b,
                                                             const neon_state *s, const int db,
                                                             const int sq) {
    const int n = s->n;
    const uint32_t mask = ((uint32_t)1 << db) - 1, n0 = s->n0;
    const uint32_t *m = s->m;
    uint64_t c = 0; /* the carry into column i */
    for (int i = 0; i < n; i++) {
        int l = sq ? i + (i & 1) : 0; /* public: the step number only */
        uint32_t ai = a[i], x0 = l == 0 ? ai * b[0] : 0;
        uint32_t u = (((uint32_t)t[i] + (uint32_t)c + x0) * n0) & mask;
        neon_step(t + i, b, m, ai, u, l, n);
        c = (t[i] + c) >> db; /* column i is 0 mod 2^db */
    }
    for (int j = 0; j < n; j++) {
        c += t[n + j];
        r[j] = (uint32_t)c & mask;
        c >>= db;
    }
}

/* neon_steps with the digit width and the kind of product as constants */
static void neon_mul28(uint32_t *r, uint64_t *t, const uint32_t *a, const uint32_t *b,
                       const neon_state *s) {
    neon_steps(r, t, a, b, s, 28, 0);
}
static void neon_sqr28(uint32_t *r, uint64_t *t, const uint32_t *a, const uint32_t *b,
                       const neon_state *s) {
    neon_steps(r, t, a, b, s, 28, 1);
}
static void neon_mul26(uint32_t *r, uint64_t *t, const uint32_t *a, const uint32_t *b,
                       const neon_state *s) {
    neon_steps(r, t, a, b, s, 26, 0);
}
static void neon_sqr26(uint32_t *r, uint64_t *t, const uint32_t *a, const uint32_t *b,
                       const neon_state *s) {
    neon_steps(r, t, a, b, s, 26, 1);
}

/* r = a b / R mod m, in [0, 2m) for a, b < 2m; t has 2n + NEON_PAD lanes; r may alias. */
static void neon_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const neon_state *s,
                     uint64_t *t) {
    memset(t, 0, (size_t)(2 * s->n + NEON_PAD) * sizeof(uint64_t));
    (s->db == 28 ? neon_mul28 : neon_mul26)(r, t, a, b, s);
}

/* r = a^2 / R mod m; d has n + NEON_PAD digits of scratch; r may alias a. */
static void neon_sqr(uint32_t *r, const uint32_t *a, const neon_state *s, uint64_t *t,
                     uint32_t *d) {
    const int n = s->n;
    const uint64x2_t zero = vdupq_n_u64(0);
    /* the diagonal: -a[i]^2 at column 2i for even i, a[i]^2 for odd i; zero between */
    for (int i = 0; i < n; i += 2) {
        uint32x2_t x = vld1_u32(a + i);
        uint64x2_t sq = vmull_u32(x, x);
        vst1q_u64(t + 2 * i, vcombine_u64(vsub_u64(vget_low_u64(zero), vget_low_u64(sq)),
                                          vget_low_u64(zero)));
        vst1q_u64(t + 2 * i + 2, vcombine_u64(vget_high_u64(sq), vget_low_u64(zero)));
        vst1_u32(d + i, vshl_n_u32(x, 1));
    }
    memset(t + 2 * n, 0, NEON_PAD * sizeof(uint64_t));
    (s->db == 28 ? neon_sqr28 : neon_sqr26)(r, t, a, d, s);
}

static void *neon_init(const uint8_t *mb, const uint8_t *r2b, size_t nbytes) {
    neon_state *s = (neon_state *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->n = neon_n(nbytes);
    s->db = neon_db(nbytes);
    s->nbytes = nbytes;
    s->m = (uint32_t *)calloc((size_t)(s->n + NEON_PAD) * 2, sizeof(uint32_t));
    if (!s->m) {
        free(s);
        return NULL;
    }
    s->r2 = s->m + s->n + NEON_PAD;
    neon_from_bytes(s->m, mb, nbytes, s->n, s->db);
    neon_from_bytes(s->r2, r2b, nbytes, s->n, s->db);
    uint32_t m0 = (uint32_t)mb[0] | (uint32_t)(nbytes > 1 ? mb[1] : 0) << 8 |
                  (uint32_t)(nbytes > 2 ? mb[2] : 0) << 16 | (uint32_t)(nbytes > 3 ? mb[3] : 0) << 24;
    uint32_t inv = m0; /* Newton: m^-1 mod 2^32, the bits doubling each step */
    for (int k = 0; k < 5; k++) inv *= 2 - m0 * inv;
    s->n0 = 0 - inv;
    return s;
}

static void neon_free(void *p) {
    neon_state *s = (neon_state *)p;
    if (s) free(s->m);
    free(s);
}

/* sel = table[idx] (n + NEON_PAD digits per entry), reading every entry, combined with masks */
static void neon_select(uint32_t *sel, const uint32_t *table, int entries, int stride,
                        unsigned idx) {
    uint32x4_t masks[64];
    for (int x = 0; x < entries; x++) masks[x] = vdupq_n_u32((uint32_t)sra_ct_eq_mask((unsigned)x, idx));
    for (int j = 0; j < stride; j += 4) {
        uint32x4_t v = vdupq_n_u32(0);
        const uint32_t *row = table + j;
        for (int x = 0; x < entries; x++, row += stride) v = vorrq_u32(v, vandq_u32(vld1q_u32(row), masks[x]));
        vst1q_u32(sel + j, v);
    }
}

/* r = x - m if x >= m else x, for normalized x <= m: a masked select */
static void neon_final(uint32_t *r, const uint32_t *x, const neon_state *s) {
    const uint32_t mask = ((uint32_t)1 << s->db) - 1;
    uint32_t borrow = 0;
    for (int j = 0; j < s->n; j++) {
        uint32_t d = x[j] - s->m[j] - borrow;
        r[j] = d & mask;
        borrow = d >> 31;
    }
    uint32_t keep = borrow - 1; /* all-ones: no borrow, x >= m */
    for (int j = 0; j < s->n; j++) r[j] = x[j] ^ ((x[j] ^ r[j]) & keep);
}

/* One exponentiation; w holds the table (2^win entries) and 3 more numbers, then t and d. */
static void neon_pow1(const neon_state *s, const uint8_t *base, const uint8_t *e, size_t ebytes,
                      uint8_t *out, uint32_t *w, uint64_t *t, int win) {
    const int n = s->n, stride = neon_stride(n), entries = 1 << win;
    uint32_t *table = w, *acc = table + (size_t)entries * stride, *sel = acc + stride,
             *d = sel + stride;
    neon_from_bytes(sel, base, s->nbytes, n, s->db);
    neon_mul(table + stride, sel, s->r2, s, t);
    memset(sel, 0, (size_t)stride * sizeof(uint32_t));
    sel[0] = 1;
    neon_mul(table, sel, s->r2, s, t); /* R mod m */
    for (int k = 2; k < entries; k++) {
        uint32_t *tk = table + (size_t)k * stride;
        if (k % 2 == 0)
            neon_sqr(tk, table + (size_t)(k / 2) * stride, s, t, d);
        else
            neon_mul(tk, table + (size_t)(k - 1) * stride, table + stride, s, t);
    }
    size_t ebits = ebytes * 8, nwin = (ebits + (size_t)win - 1) / (size_t)win;
    for (size_t k = nwin; k-- > 0;) {
        unsigned idx = sra_ewindow(e, ebytes, k * (size_t)win, win);
        neon_select(sel, table, entries, stride, idx);
        if (k + 1 == nwin) {
            memcpy(acc, sel, (size_t)stride * sizeof(uint32_t));
        } else {
            for (int q = 0; q < win; q++) neon_sqr(acc, acc, s, t, d);
            neon_mul(acc, acc, sel, s, t);
        }
    }
    memset(sel, 0, (size_t)stride * sizeof(uint32_t));
    sel[0] = 1;
    neon_mul(acc, acc, sel, s, t); /* out of the Montgomery domain: <= m */
    neon_final(sel, acc, s);
    neon_to_bytes(out, sel, s->nbytes, s->db);
}

static int neon_pow(const void *p, const uint8_t *bases, const uint8_t *exps, size_t estride,
                    size_t ebytes, size_t count, uint8_t *out) {
    const neon_state *s = (const neon_state *)p;
    int win = sra_window(ebytes * 8);
    size_t words = ((size_t)(1 << win) + 3) * (size_t)neon_stride(s->n);
    uint32_t *w = (uint32_t *)calloc(words, sizeof(uint32_t));
    uint64_t *t = (uint64_t *)malloc((size_t)(2 * s->n + NEON_PAD) * sizeof(uint64_t));
    if (!w || !t) {
        free(w);
        free(t);
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        neon_pow1(s, bases + i * s->nbytes, exps + i * estride, ebytes, out + i * s->nbytes, w, t,
                  win);
    free(w);
    free(t);
    return 0;
}

const sra_kernel sra_kernel_neon = {"neon", 1, neon_rbits, neon_init, neon_free, neon_pow};
#endif
