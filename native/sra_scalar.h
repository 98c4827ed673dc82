/* sra_scalar.h: the portable Montgomery kernel, written once for any limb width.
 *
 * Included by sra_c64.c (64-bit limbs, unsigned __int128 products) and sra_c32.c
 * (32-bit limbs, uint64_t products) after defining
 *   SRA_L   limb type          SRA_DL  double-width type
 *   SRA_LB  bits per limb      SRA_FN(x) name prefix
 * and optionally a kernel's own pieces: SRA_ADDMUL / SRA_ADDMUL2 (rows: sra_adx.c,
 * sra_c32.c), or SRA_MONT_MUL / SRA_MONT_SQR (the whole Montgomery product and
 * square) with SRA_LIMB_ALIGN, SRA_SCRATCH and SRA_SELECT (sra_a64.c).
 *
 * Constant time with respect to the exponent: every loop bound depends only on
 * the limb count and the exponent's allocated length; the window table is read
 * in full and combined with masks; the final subtraction of each Montgomery
 * product is a masked select. The base is public (an encrypted card).
 */
#include <stdlib.h>
#include <string.h>

#include "sra_core.h"

typedef struct {
    int nl;       /* limbs */
    size_t nbytes; /* bytes per number at the interface */
    SRA_L n0;     /* -m^-1 mod 2^SRA_LB */
    SRA_L *m;     /* modulus */
    SRA_L *r2;    /* R^2 mod m */
} SRA_FN(state);

/* SRA_LIMB_ALIGN: a kernel whose passes work on blocks of limbs rounds the limb
 * count up to a multiple of it (the modulus gets zero limbs on top; R grows with it). */
#ifndef SRA_LIMB_ALIGN
#define SRA_LIMB_ALIGN 1
#endif
/* SRA_SCRATCH: limbs of scratch a Montgomery product or square needs, in numbers of nl */
#ifndef SRA_SCRATCH
#define SRA_SCRATCH 2
#endif
static size_t SRA_FN(nlimbs)(size_t nbytes) {
    size_t n = (nbytes * 8 + SRA_LB - 1) / SRA_LB;
    return (n + SRA_LIMB_ALIGN - 1) / SRA_LIMB_ALIGN * SRA_LIMB_ALIGN;
}

static size_t SRA_FN(rbits)(size_t nbytes) { return SRA_FN(nlimbs)(nbytes) * SRA_LB; }

static void SRA_FN(from_bytes)(SRA_L *x, const uint8_t *b, size_t nbytes, int nl) {
    memset(x, 0, (size_t)nl * sizeof(SRA_L));
    for (size_t i = 0; i < nbytes; i++) x[i / (SRA_LB / 8)] |= (SRA_L)b[i] << (8 * (i % (SRA_LB / 8)));
}

static void SRA_FN(to_bytes)(uint8_t *b, const SRA_L *x, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++) b[i] = (uint8_t)(x[i / (SRA_LB / 8)] >> (8 * (i % (SRA_LB / 8))));
}

/* r = t - m if that is >= 0 else t, where t = top * 2^(nl*LB) + t[0..nl) < 2m;
 * a masked select, no branch on the value. */
#if !defined(SRA_MONT_MUL) /* else the kernel reduces its own way */
static void SRA_FN(csub)(SRA_L *r, const SRA_L *t, SRA_L top, const SRA_L *m, int nl) {
    SRA_L borrow = 0;
    for (int j = 0; j < nl; j++) {
        SRA_DL d = (SRA_DL)t[j] - m[j] - borrow;
        r[j] = (SRA_L)d;
        borrow = (SRA_L)(d >> SRA_LB) & 1;
    }
    /* keep t - m when top is set (t >= 2^(nl*LB) > m) or nothing was borrowed */
    SRA_L keep = (SRA_L)0 - ((top | (borrow ^ 1)) & 1);
    for (int j = 0; j < nl; j++) r[j] = t[j] ^ ((t[j] ^ r[j]) & keep);
}
#endif

/* r[0..n) += x * a[0..n); returns the carry limb. The product plus two limbs
 * fits the double-width type exactly: (2^L - 1)^2 + 2 (2^L - 1) = 2^2L - 1. */
#if defined(SRA_ADDMUL)
#define sra_addmul_impl SRA_ADDMUL
#else
#define sra_addmul_impl SRA_FN(addmul_c)
#endif
static inline SRA_L SRA_FN(addmul_c)(SRA_L *r, const SRA_L *a, SRA_L x, int n) {
    SRA_L c = 0;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
    for (int j = 0; j < n; j++) {
        SRA_DL p = (SRA_DL)x * a[j] + r[j] + c;
        r[j] = (SRA_L)p;
        c = (SRA_L)(p >> SRA_LB);
    }
    return c;
}
#define SRA_ADDMUL_ROW(r, a, x, n) sra_addmul_impl(r, a, x, n)

/* One reduction row at limb i of t: t += u m 2^(i LB) with u = t[i] n0; `top`
 * is the carry into t[i + nl] left by the rows before; returns the new one. */
static inline SRA_L SRA_FN(redc_row)(SRA_L *t, const SRA_L *m, SRA_L n0, int nl, int i,
                                     SRA_L top) {
    SRA_L u = t[i] * n0;
    SRA_DL x = (SRA_DL)t[i + nl] + SRA_ADDMUL_ROW(t + i, m, u, nl) + top;
    t[i + nl] = (SRA_L)x;
    return (SRA_L)(x >> SRA_LB);
}

#if defined(SRA_MONT_MUL)
/* The kernel's own Montgomery product and square (t: SRA_SCRATCH * nl limbs). */
static void SRA_FN(mul)(SRA_L *r, const SRA_L *a, const SRA_L *b, const SRA_L *m, SRA_L n0, int nl,
                        SRA_L *t) {
    SRA_MONT_MUL(r, a, b, m, n0, nl, t);
}
static void SRA_FN(sqr)(SRA_L *r, const SRA_L *a, const SRA_L *m, SRA_L n0, int nl, SRA_L *t) {
    SRA_MONT_SQR(r, a, m, n0, nl, t);
}
#elif defined(SRA_ADDMUL2)
/* SRA_ADDMUL2(r, a, x0, x1, n, cin, out): two rows at once,
 * r[0..n) + cin + x0 * a[0..n) + x1 * a[0..n) * 2^LB
 * = r'[0..n) + out[0] * 2^(n LB) + out[1] * 2^((n+1) LB); it fits, the sum being
 * below (2^2L - 1)(2^(nL) - 1) + 2^(nL) + 2^L - 2 < 2^((n+2)L). Each limb of r is
 * loaded and stored once for both rows. Only kernels with such a routine in
 * assembly use it: GCC's code for the two carry chains in C is slower than two
 * single rows. */
/* Montgomery reduction of t[0..2nl) (< m * R) into r (< m); t is clobbered.
 * Two rows per pass: u1 needs column i+1 after row i, computed ahead from
 * its two lowest products (t[i] + lo(u0 m0) is 0 mod 2^LB, carrying t[i] != 0). */
static void SRA_FN(redc)(SRA_L *r, SRA_L *t, const SRA_L *m, SRA_L n0, int nl) {
    SRA_L top = 0, c[2];
    int i = 0;
    for (; i + 1 < nl; i += 2) {
        SRA_L u0 = t[i] * n0;
        SRA_DL p = (SRA_DL)u0 * m[0] + t[i];
        SRA_DL q = (SRA_DL)u0 * m[1] + t[i + 1] + (SRA_L)(p >> SRA_LB);
        SRA_L u1 = (SRA_L)q * n0;
        SRA_ADDMUL2(t + i, m, u0, u1, nl, 0, c);
        /* the carries out of these rows land where the next pair's carries go */
        SRA_DL x = (SRA_DL)t[i + nl] + c[0] + top;
        t[i + nl] = (SRA_L)x;
        x = (SRA_DL)t[i + nl + 1] + c[1] + (SRA_L)(x >> SRA_LB);
        t[i + nl + 1] = (SRA_L)x;
        top = (SRA_L)(x >> SRA_LB);
    }
    if (i < nl) top = SRA_FN(redc_row)(t, m, n0, nl, i, top); /* odd limb count */
    SRA_FN(csub)(r, t + nl, top, m, nl);
}

/* r = a * b / R mod m for a, b < m; t has 2nl limbs. r may alias a or b. */
static void SRA_FN(mul)(SRA_L *r, const SRA_L *a, const SRA_L *b, const SRA_L *m, SRA_L n0, int nl,
                        SRA_L *t) {
    for (int j = 0; j < nl; j++) t[j] = 0;
    int i = 0;
    for (; i + 1 < nl; i += 2) SRA_ADDMUL2(t + i, b, a[i], a[i + 1], nl, 0, t + i + nl);
    if (i < nl) t[i + nl] = SRA_ADDMUL_ROW(t + i, b, a[i], nl);
    SRA_FN(redc)(r, t, m, n0, nl);
}

/* the cross products a[i] * a[j], i < j, into t[0..2nl) (zeroed): rows i and
 * i+1 together, a[i] a[i+1] alone, then both over a[i+2..) with the lone
 * product's high limb as carry-in */
static void SRA_FN(cross)(SRA_L *t, const SRA_L *a, int nl) {
    for (int i = 0; i + 1 < nl; i += 2) {
        SRA_DL p = (SRA_DL)a[i] * a[i + 1] + t[2 * i + 1];
        t[2 * i + 1] = (SRA_L)p;
        SRA_ADDMUL2(t + 2 * i + 2, a + i + 2, a[i], a[i + 1], nl - i - 2, (SRA_L)(p >> SRA_LB),
                    t + i + nl);
    }
}
#else
/* Montgomery reduction of t[0..2nl) (< m * R) into r (< m); t is clobbered. */
static void SRA_FN(redc)(SRA_L *r, SRA_L *t, const SRA_L *m, SRA_L n0, int nl) {
    SRA_L top = 0;
    for (int i = 0; i < nl; i++) top = SRA_FN(redc_row)(t, m, n0, nl, i, top);
    SRA_FN(csub)(r, t + nl, top, m, nl);
}

/* r = a * b / R mod m for a, b < m; t has 2nl limbs. r may alias a or b. */
static void SRA_FN(mul)(SRA_L *r, const SRA_L *a, const SRA_L *b, const SRA_L *m, SRA_L n0, int nl,
                        SRA_L *t) {
    for (int j = 0; j < nl; j++) t[j] = 0;
    for (int i = 0; i < nl; i++) t[i + nl] = SRA_ADDMUL_ROW(t + i, b, a[i], nl);
    SRA_FN(redc)(r, t, m, n0, nl);
}

/* the cross products a[i] * a[j], i < j, into t[0..2nl) (zeroed) */
static void SRA_FN(cross)(SRA_L *t, const SRA_L *a, int nl) {
    for (int i = 0; i + 1 < nl; i++)
        t[i + nl] = SRA_ADDMUL_ROW(t + 2 * i + 1, a + i + 1, a[i], nl - i - 1);
}
#endif

#if !defined(SRA_MONT_MUL)
/* r = a^2 / R mod m: each cross product once, doubled, plus the diagonal. */
static void SRA_FN(sqr)(SRA_L *r, const SRA_L *a, const SRA_L *m, SRA_L n0, int nl, SRA_L *t) {
    for (int j = 0; j < 2 * nl; j++) t[j] = 0;
    SRA_FN(cross)(t, a, nl);
    /* 2 * cross < a^2 < 2^(2 nl LB): no bit falls off the top */
    SRA_L hi = 0;
    for (int k = 0; k < 2 * nl; k++) {
        SRA_L v = t[k];
        t[k] = (v << 1) | hi;
        hi = v >> (SRA_LB - 1);
    }
    SRA_DL c = 0;
    for (int i = 0; i < nl; i++) {
        c += (SRA_DL)a[i] * a[i] + t[2 * i];
        t[2 * i] = (SRA_L)c;
        c >>= SRA_LB;
        c += t[2 * i + 1];
        t[2 * i + 1] = (SRA_L)c;
        c >>= SRA_LB;
    }
    SRA_FN(redc)(r, t, m, n0, nl);
}
#endif

static void *SRA_FN(init)(const uint8_t *mb, const uint8_t *r2b, size_t nbytes) {
    SRA_FN(state) *s = (SRA_FN(state) *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->nl = (int)SRA_FN(nlimbs)(nbytes);
    s->nbytes = nbytes;
    s->m = (SRA_L *)calloc((size_t)s->nl * 2, sizeof(SRA_L));
    if (!s->m) {
        free(s);
        return NULL;
    }
    s->r2 = s->m + s->nl;
    SRA_FN(from_bytes)(s->m, mb, nbytes, s->nl);
    SRA_FN(from_bytes)(s->r2, r2b, nbytes, s->nl);
    /* Newton iteration for m^-1 mod 2^LB: each step doubles the correct bits */
    SRA_L inv = s->m[0]; /* correct to 3 bits for odd m */
    for (int k = 0; k < 6; k++) inv *= (SRA_L)2 - s->m[0] * inv;
    s->n0 = (SRA_L)0 - inv;
    return s;
}

static void SRA_FN(free_state)(void *p) {
    SRA_FN(state) *s = (SRA_FN(state) *)p;
    if (s) free(s->m);
    free(s);
}

/* sel = table[idx], reading every entry (at most 64) and combining them with
 * masks. Per 16 bytes of the result the OR over all entries stays in a
 * register (a NEON/SSE vector where the target has one), so an entry costs a
 * load, an AND and an OR per 16 bytes. */
typedef SRA_L SRA_FN(vec) __attribute__((vector_size(16)));
#define SRA_VL ((int)(16 / sizeof(SRA_L)))
static void SRA_FN(select)(SRA_L *sel, const SRA_L *table, int entries, int nl, unsigned idx) {
#if defined(SRA_SELECT) /* the kernel's own, where it has one for this size */
    if (SRA_SELECT(sel, table, entries, nl, idx)) return;
#endif
    SRA_FN(vec) masks[64];
    for (int x = 0; x < entries; x++) {
        SRA_L mask = (SRA_L)sra_ct_eq_mask((unsigned)x, idx);
        for (int l = 0; l < SRA_VL; l++) masks[x][l] = mask;
    }
    int j = 0;
    for (; j + 2 * SRA_VL <= nl; j += 2 * SRA_VL) { /* 32 bytes a step: one mask load for two */
        SRA_FN(vec) v0 = {0}, v1 = {0}, r0, r1;
        const SRA_L *row = table + j;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 4
#endif
        for (int x = 0; x < entries; x++, row += nl) {
            memcpy(&r0, row, sizeof r0);
            memcpy(&r1, row + SRA_VL, sizeof r1);
            v0 |= r0 & masks[x];
            v1 |= r1 & masks[x];
        }
        memcpy(sel + j, &v0, sizeof v0);
        memcpy(sel + j + SRA_VL, &v1, sizeof v1);
    }
    for (; j < nl; j++) {
        SRA_L v = 0;
        for (int x = 0; x < entries; x++) v |= table[(size_t)x * nl + j] & masks[x][0];
        sel[j] = v;
    }
}
#undef SRA_VL

/* One exponentiation with scratch `w` (see pow for its size). */
static void SRA_FN(pow1)(const SRA_FN(state) *s, const uint8_t *base, const uint8_t *e,
                         size_t ebytes, uint8_t *out, size_t nbytes, SRA_L *w, int win) {
    const int nl = s->nl, entries = 1 << win;
    SRA_L *table = w, *acc = table + (size_t)entries * nl, *sel = acc + nl, *t = sel + nl;
    const SRA_L *m = s->m;
    const SRA_L n0 = s->n0;

    /* table[k] = base^k * R mod m (base is public) */
    SRA_FN(from_bytes)(sel, base, nbytes, nl);
    SRA_FN(mul)(table + nl, sel, s->r2, m, n0, nl, t);
    for (int j = 0; j < nl; j++) sel[j] = j == 0;
    SRA_FN(mul)(table, sel, s->r2, m, n0, nl, t); /* R mod m */
    for (int k = 2; k < entries; k++) {
        if (k % 2 == 0)
            SRA_FN(sqr)(table + (size_t)k * nl, table + (size_t)(k / 2) * nl, m, n0, nl, t);
        else
            SRA_FN(mul)(table + (size_t)k * nl, table + (size_t)(k - 1) * nl, table + nl, m, n0, nl, t);
    }

    size_t ebits = ebytes * 8, nwin = (ebits + (size_t)win - 1) / (size_t)win;
    for (size_t k = nwin; k-- > 0;) {
        unsigned idx = sra_ewindow(e, ebytes, k * (size_t)win, win);
        SRA_FN(select)(sel, table, entries, nl, idx);
        if (k + 1 == nwin) {
            memcpy(acc, sel, (size_t)nl * sizeof(SRA_L));
        } else {
            for (int q = 0; q < win; q++) SRA_FN(sqr)(acc, acc, m, n0, nl, t);
            SRA_FN(mul)(acc, acc, sel, m, n0, nl, t);
        }
    }
    /* out of the Montgomery domain: multiply by plain 1 */
    for (int j = 0; j < nl; j++) sel[j] = j == 0;
    SRA_FN(mul)(acc, acc, sel, m, n0, nl, t);
    SRA_FN(to_bytes)(out, acc, nbytes);
}

static int SRA_FN(pow)(const void *p, const uint8_t *bases, const uint8_t *exps, size_t estride,
                       size_t ebytes, size_t count, uint8_t *out) {
    const SRA_FN(state) *s = (const SRA_FN(state) *)p;
    int win = sra_window(ebytes * 8);
    SRA_L *w = (SRA_L *)malloc(((size_t)(1 << win) + 2 + SRA_SCRATCH) * (size_t)s->nl * sizeof(SRA_L));
    if (!w) return -1;
    for (size_t i = 0; i < count; i++)
        SRA_FN(pow1)(s, bases + i * s->nbytes, exps + i * estride, ebytes, out + i * s->nbytes,
                     s->nbytes, w, win);
    free(w);
    return 0;
}
