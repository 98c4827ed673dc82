/* sra_jacobi.c: the Jacobi symbol of multi-limb numbers, for public inputs.
 *
 * Public inputs only (incoming ciphertexts are checked with it), so this is
 * variable time. The binary algorithm for (a/b), b odd: when a is odd, make
 * a >= b by swapping (quadratic reciprocity: flip the sign when both are
 * 3 mod 4) and subtract b; halve a (flip when b = 3, 5 mod 8); at a = 0, b is
 * gcd(a, b) and the symbol is the sign when that is 1, else 0.
 *
 * Batched as in Pornin's "Optimized Binary GCD for Modular Inversion" (2020):
 * JK = 30 steps run on one 64-bit approximation of each number (its top 32
 * bits at the position of the longer one, then its exact low 32 bits),
 * recording them as a 2x2 matrix of signed factors below 2^JK that is then
 * applied to the big numbers once: [a, b] = [fa ga; fb gb] [a, b] / 2^JK,
 * over lengths that shrink as they go. The sign's rules need the low three
 * bits of b at every halving and the low two of a and b at every swap: the
 * low 32 bits of the approximations stay exact for 29 halvings, enough. The
 * comparisons on approximations can be wrong; then a or b comes out negative
 * (a negative value only ever gets subtracted from, halved or swapped, so it
 * stays negative to the end of the batch), and only then the signs tracked
 * over that batch may be wrong: the batch is dropped and the bit-at-a-time
 * algorithm finishes from the numbers before it (rare: both numbers must agree
 * in their top 32 bits). Once both fit in 64 bits the steps run exactly on
 * machine words.
 */
#include <stdlib.h>
#include <string.h>

#include "sra_core.h"

#if defined(__SIZEOF_INT128__)
typedef uint64_t jl; /* limb */
typedef __int128 jsl; /* signed accumulator of an update */
#define JLB 64        /* bits per limb */
#else /* 32-bit targets: 30-bit limbs, so an update (shift by JK = 30) is one limb a step */
typedef uint32_t jl;
typedef int64_t jsl;
#define JLB 30
#endif
#define JK 30 /* steps per batch */

static unsigned ctz64(uint64_t x) { /* x != 0 */
    return (unsigned)__builtin_ctzll(x);
}

static unsigned bitlen(uint64_t x) { return x ? 64 - (unsigned)__builtin_clzll(x) : 0; }

/* Bits [pos, pos + 64) of x (len limbs, zero beyond). */
static uint64_t bits64(const jl *x, size_t len, size_t pos) {
    uint64_t v = 0;
    size_t w = pos / JLB, s = pos % JLB;
    for (size_t k = 0; k < 4 && w + k < len; k++) { /* the limbs holding the 64 bits */
        size_t at = k * JLB;
        if (at >= s + 64) break;
        uint64_t limb = (uint64_t)x[w + k];
        v |= at >= s ? limb << (at - s) : limb >> (s - at);
    }
    return v;
}

static uint64_t low64(const jl *x, size_t len) {
#if JLB == 64
    (void)len;
    return x[0];
#else
    return bits64(x, len, 0);
#endif
}

/* The binary algorithm on exact 64-bit words (b odd); the sign in bit 0 of t. */
static int jacobi_words(uint64_t a, uint64_t b, unsigned t) {
    while (a) {
        unsigned z = ctz64(a);
        a >>= z;
        t ^= z & (unsigned)((b >> 1) ^ (b >> 2));
        if (a < b) {
            uint64_t x = a;
            a = b;
            b = x;
            t ^= (unsigned)((a & b) >> 1);
        }
        a -= b;
    }
    return b == 1 ? 1 - 2 * (int)(t & 1) : 0;
}

#if JLB == 64
/* [a, b] = [fa ga; fb gb] [a, b] / 2^k over len limbs, in place (|f| + |g| <=
 * 2^k, k < 64); returns 1 when either result is negative (then a, b are garbage). */
static inline int update(jl *restrict a, jl *restrict b, size_t len, int64_t fa, int64_t ga, int64_t fb, int64_t gb,
                         unsigned k) {
    jsl ca = (jsl)fa * a[0] + (jsl)ga * b[0], cb = (jsl)fb * a[0] + (jsl)gb * b[0];
    jl pa = (jl)ca, pb = (jl)cb; /* their low k bits are zero */
    ca >>= JLB, cb >>= JLB;
    for (size_t i = 1; i < len; i++) {
        jl ai = a[i], bi = b[i];
        ca += (jsl)fa * ai + (jsl)ga * bi;
        cb += (jsl)fb * ai + (jsl)gb * bi;
        a[i - 1] = (pa >> k) | ((jl)ca << (JLB - k));
        b[i - 1] = (pb >> k) | ((jl)cb << (JLB - k));
        pa = (jl)ca, pb = (jl)cb;
        ca >>= JLB, cb >>= JLB;
    }
    a[len - 1] = (pa >> k) | ((jl)ca << (JLB - k));
    b[len - 1] = (pb >> k) | ((jl)cb << (JLB - k));
    return ca < 0 || cb < 0;
}
#else
/* [a, b] = [fa ga; fb gb] [a, b] / 2^30 over len 30-bit limbs, in place (|f| +
 * |g| <= 2^30); returns 1 when either result is negative (a, b are garbage). */
static int update(jl *a, jl *b, size_t len, int64_t fa64, int64_t ga64, int64_t fb64, int64_t gb64,
                  unsigned k) {
    int32_t fa = (int32_t)fa64, ga = (int32_t)ga64, fb = (int32_t)fb64, gb = (int32_t)gb64;
    (void)k;
#if defined(__arm__) && defined(__GNUC__)
    /* one smlal per product: limbs and factors are signed 32-bit values */
#define JAC_ARM_SHIFT30 /* both accumulators >>= 30, arithmetic */ \
    "lsr %[alo], %[alo], #30\n\t"                                 \
    "orr %[alo], %[alo], %[ahi], lsl #2\n\t"                      \
    "asr %[ahi], %[ahi], #30\n\t"                                 \
    "lsr %[blo], %[blo], #30\n\t"                                 \
    "orr %[blo], %[blo], %[bhi], lsl #2\n\t"                      \
    "asr %[bhi], %[bhi], #30\n\t"
    uint32_t alo, ahi, blo, bhi, x, y, n = (uint32_t)len - 1;
    __asm__ volatile(
        "ldr %[x], [%[a]]\n\t"
        "ldr %[y], [%[b]]\n\t"
        "smull %[alo], %[ahi], %[fa], %[x]\n\t"
        "smlal %[alo], %[ahi], %[ga], %[y]\n\t"
        "smull %[blo], %[bhi], %[fb], %[x]\n\t"
        "smlal %[blo], %[bhi], %[gb], %[y]\n\t"
        JAC_ARM_SHIFT30
        "cmp %[n], #0\n\t"
        "beq 2f\n"
        "1:\n\t"
        "ldr %[x], [%[a], #4]\n\t"
        "ldr %[y], [%[b], #4]\n\t"
        "smlal %[alo], %[ahi], %[fa], %[x]\n\t"
        "smlal %[alo], %[ahi], %[ga], %[y]\n\t"
        "smlal %[blo], %[bhi], %[fb], %[x]\n\t"
        "smlal %[blo], %[bhi], %[gb], %[y]\n\t"
        "bic %[x], %[alo], #0xc0000000\n\t"
        "str %[x], [%[a]], #4\n\t"
        "bic %[y], %[blo], #0xc0000000\n\t"
        "str %[y], [%[b]], #4\n\t"
        JAC_ARM_SHIFT30
        "subs %[n], %[n], #1\n\t"
        "bne 1b\n"
        "2:\n\t"
        "str %[alo], [%[a]]\n\t"
        "str %[blo], [%[b]]\n\t"
        : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n), [alo] "=&r"(alo), [ahi] "=&r"(ahi),
          [blo] "=&r"(blo), [bhi] "=&r"(bhi), [x] "=&r"(x), [y] "=&r"(y)
        : [fa] "r"(fa), [ga] "r"(ga), [fb] "r"(fb), [gb] "r"(gb)
        : "cc", "memory");
    return (int32_t)(ahi | bhi) < 0; /* the sign words of what is left */
#else
    int64_t ca = (int64_t)fa * (int32_t)a[0] + (int64_t)ga * (int32_t)b[0];
    int64_t cb = (int64_t)fb * (int32_t)a[0] + (int64_t)gb * (int32_t)b[0];
    ca >>= JLB, cb >>= JLB; /* the low 30 bits are zero */
    for (size_t i = 1; i < len; i++) {
        int32_t ai = (int32_t)a[i], bi = (int32_t)b[i];
        ca += (int64_t)fa * ai + (int64_t)ga * bi;
        cb += (int64_t)fb * ai + (int64_t)gb * bi;
        a[i - 1] = (jl)(ca & 0x3fffffff);
        b[i - 1] = (jl)(cb & 0x3fffffff);
        ca >>= JLB, cb >>= JLB;
    }
    a[len - 1] = (jl)ca; /* below 2^30 unless negative: neither grows */
    b[len - 1] = (jl)cb;
    return ca < 0 || cb < 0;
#endif
}
#endif

/* JK steps on the approximations xa, xb (see the top of the file): the rows
 * (fa, ga), (fb, gb) of their matrix, and the sign's flips into bit 0 of *t. */
static void steps(uint64_t xa, uint64_t xb, unsigned *t, int64_t f[4]) {
#if defined(__arm__) && defined(__GNUC__)
    /* 32-bit ARM: the approximations in register pairs, the factors apart (each
     * fits 32 bits); the halvings' count comes from the low word alone, since
     * the sentinel bit sits there */
    uint32_t al = (uint32_t)xa, ah = (uint32_t)(xa >> 32), bl = (uint32_t)xb,
             bh = (uint32_t)(xb >> 32), lim = (uint32_t)1 << JK, tb = *t,
             bf = (bl ^ (bl >> 1)) >> 1, z, tmp;
    int32_t fa = 1, ga = 0, fb = 0, gb = 1;
    __asm__("b 2f\n"
            "1:\n\t"
            "cmp %[al], %[bl]\n\t"
            "sbcs %[tmp], %[ah], %[bh]\n\t"
            "bhs 3f\n\t"
            "and %[tmp], %[al], %[bl]\n\t"
            "eor %[tb], %[tb], %[tmp], lsr #1\n\t"
            "mov %[tmp], %[al]\n\t"
            "mov %[al], %[bl]\n\t"
            "mov %[bl], %[tmp]\n\t"
            "mov %[tmp], %[ah]\n\t"
            "mov %[ah], %[bh]\n\t"
            "mov %[bh], %[tmp]\n\t"
            "mov %[tmp], %[fa]\n\t"
            "mov %[fa], %[fb]\n\t"
            "mov %[fb], %[tmp]\n\t"
            "mov %[tmp], %[ga]\n\t"
            "mov %[ga], %[gb]\n\t"
            "mov %[gb], %[tmp]\n\t"
            "eor %[bf], %[bl], %[bl], lsr #1\n\t"
            "lsr %[bf], %[bf], #1\n"
            "3:\n\t"
            "subs %[al], %[al], %[bl]\n\t"
            "sbc %[ah], %[ah], %[bh]\n\t"
            "sub %[fa], %[fa], %[fb]\n\t"
            "sub %[ga], %[ga], %[gb]\n"
            "2:\n\t"
            "orr %[tmp], %[al], %[lim]\n\t"
            "rbit %[tmp], %[tmp]\n\t"
            "clz %[z], %[tmp]\n\t"
            "lsr %[al], %[al], %[z]\n\t"
            "rsb %[tmp], %[z], #32\n\t"
            "lsl %[tmp], %[ah], %[tmp]\n\t" /* 0 when z = 0 (a shift by 32) */
            "orr %[al], %[al], %[tmp]\n\t"
            "lsr %[ah], %[ah], %[z]\n\t"
            "lsr %[lim], %[lim], %[z]\n\t"
            "lsl %[fb], %[fb], %[z]\n\t"
            "lsl %[gb], %[gb], %[z]\n\t"
            "and %[tmp], %[bf], %[z]\n\t"
            "eor %[tb], %[tb], %[tmp]\n\t"
            "cmp %[lim], #1\n\t"
            "bne 1b\n"
            : [al] "+r"(al), [ah] "+r"(ah), [bl] "+r"(bl), [bh] "+r"(bh), [lim] "+r"(lim),
              [tb] "+r"(tb), [bf] "+r"(bf), [fa] "+r"(fa), [ga] "+r"(ga), [fb] "+r"(fb),
              [gb] "+r"(gb), [z] "=&r"(z), [tmp] "=&r"(tmp)
            :
            : "cc");
    f[0] = fa, f[1] = ga, f[2] = fb, f[3] = gb;
    *t = tb;
#else
    /* the rows packed as f + g 2^32 (|f|, |g| <= 2^JK): one subtraction, shift
     * or swap moves both */
    uint64_t ra = 1, rb = (uint64_t)1 << 32;
    uint64_t lim = (uint64_t)1 << JK; /* a sentinel bit: the halvings left */
    uint64_t tb = *t, bf = (xb ^ (xb >> 1)) >> 1; /* bit 0 of bf: b = 3, 5 mod 8 */
#if defined(__aarch64__) && defined(__GNUC__)
    /* the loop below, without GCC's if-conversion (it computes both paths) */
    uint64_t z, tmp;
    __asm__("b 2f\n"
            "1:\n\t"
            "cmp %[xa], %[xb]\n\t"
            "b.hs 3f\n\t"
            "and %[tmp], %[xa], %[xb]\n\t"
            "eor %[tb], %[tb], %[tmp], lsr #1\n\t"
            "mov %[tmp], %[xa]\n\t"
            "mov %[xa], %[xb]\n\t"
            "mov %[xb], %[tmp]\n\t"
            "mov %[tmp], %[ra]\n\t"
            "mov %[ra], %[rb]\n\t"
            "mov %[rb], %[tmp]\n\t"
            "eor %[bf], %[xb], %[xb], lsr #1\n\t"
            "lsr %[bf], %[bf], #1\n"
            "3:\n\t"
            "sub %[xa], %[xa], %[xb]\n\t"
            "sub %[ra], %[ra], %[rb]\n"
            "2:\n\t"
            "orr %[tmp], %[xa], %[lim]\n\t"
            "rbit %[tmp], %[tmp]\n\t"
            "clz %[z], %[tmp]\n\t"
            "lsr %[xa], %[xa], %[z]\n\t"
            "lsr %[lim], %[lim], %[z]\n\t"
            "lsl %[rb], %[rb], %[z]\n\t"
            "and %[tmp], %[bf], %[z]\n\t"
            "eor %[tb], %[tb], %[tmp]\n\t"
            "cmp %[lim], #1\n\t"
            "b.ne 1b\n"
            : [xa] "+r"(xa), [xb] "+r"(xb), [ra] "+r"(ra), [rb] "+r"(rb), [lim] "+r"(lim),
              [tb] "+r"(tb), [bf] "+r"(bf), [z] "=&r"(z), [tmp] "=&r"(tmp)
            :
            : "cc");
#else
    for (;;) {
        unsigned z = ctz64(xa | lim);
        xa >>= z;
        lim >>= z;
        rb <<= z;
        tb ^= bf & z; /* an odd number of halvings flips when b = 3, 5 mod 8 */
        if (lim == 1) break;
        if (xa < xb) {
            uint64_t x = xa;
            xa = xb, xb = x;
            x = ra, ra = rb, rb = x;
            tb ^= (xa & xb) >> 1; /* both 3 mod 4 */
            bf = (xb ^ (xb >> 1)) >> 1;
        }
        xa -= xb;
        ra -= rb;
    }
#endif
    f[0] = (int32_t)(uint32_t)ra, f[2] = (int32_t)(uint32_t)rb;
    f[1] = ((int64_t)ra - f[0]) / ((int64_t)1 << 32), f[3] = ((int64_t)rb - f[2]) / ((int64_t)1 << 32);
    *t = (unsigned)tb;
#endif
}

#if JLB == 64
static unsigned bitlen128(unsigned __int128 x) {
    uint64_t hi = (uint64_t)(x >> 64);
    return hi ? 64 + bitlen(hi) : bitlen((uint64_t)x);
}

/* A second round of JK steps after the first (matrix f), on approximations of
 * the numbers it leads to: their top bits from the top 96 bits of a and b
 * (the error of leaving out the rest stays in the low 32 bits of that
 * window), their low bits exact from the low 64. Both rounds' matrix into f,
 * for one update by 2^(2 JK); 0 (f untouched) when the window is too short
 * or says a result is negative (the first round's update then finds out). */
static int second_round(const jl *a, const jl *b, size_t len, size_t nbits, unsigned *t,
                        int64_t f[4]) {
    if (nbits < 128) return 0;
    size_t pos = nbits - 96;
    __int128 a96 = (__int128)(((unsigned __int128)(bits64(a, len, pos + 64) & 0xffffffffu) << 64) |
                              bits64(a, len, pos));
    __int128 b96 = (__int128)(((unsigned __int128)(bits64(b, len, pos + 64) & 0xffffffffu) << 64) |
                              bits64(b, len, pos));
    __int128 wa = ((__int128)f[0] * a96 + (__int128)f[1] * b96) >> JK;
    __int128 wb = ((__int128)f[2] * a96 + (__int128)f[3] * b96) >> JK;
    if (wa < 0 || wb < 0) return 0;
    unsigned top = bitlen128((unsigned __int128)(wa > wb ? wa : wb));
    if (top < 64) return 0; /* cancelled down to the window's rounding error */
    uint64_t la = ((uint64_t)f[0] * a[0] + (uint64_t)f[1] * b[0]) >> JK; /* exact mod 2^34 */
    uint64_t lb = ((uint64_t)f[2] * a[0] + (uint64_t)f[3] * b[0]) >> JK;
    uint64_t xa = (((uint64_t)(wa >> (top - 32)) & 0xffffffffu) << 32) | (la & 0xffffffffu);
    uint64_t xb = (((uint64_t)(wb >> (top - 32)) & 0xffffffffu) << 32) | (lb & 0xffffffffu);
    int64_t g[4];
    steps(xa, xb, t, g);
    int64_t fa = g[0] * f[0] + g[1] * f[2], ga = g[0] * f[1] + g[1] * f[3];
    int64_t fb = g[2] * f[0] + g[3] * f[2], gb = g[2] * f[1] + g[3] * f[3];
    f[0] = fa, f[1] = ga, f[2] = fb, f[3] = gb;
    return 1;
}
#endif

/* (a/b) for b odd, both len limbs (clobbered); the sign starts in bit 0 of t.
 * 2 when a batch misjudged an order (then a and b are garbage). */
static int jacobi_batched(jl *a, jl *b, size_t len, unsigned t) {
    for (;;) {
        while (len > 1 && a[len - 1] == 0 && b[len - 1] == 0) len--;
        if (a[len - 1] == 0) { /* a = 0 (the input, or a = b met): b is the gcd */
            size_t i = 0;
            while (i < len && a[i] == 0) i++;
            if (i == len) {
                int one = b[0] == 1;
                for (i = 1; i < len; i++) one &= b[i] == 0;
                return one ? 1 - 2 * (int)(t & 1) : 0;
            }
        }
        unsigned n = bitlen(a[len - 1]) > bitlen(b[len - 1]) ? bitlen(a[len - 1]) : bitlen(b[len - 1]);
        size_t nbits = (len - 1) * JLB + n;
        if (nbits <= 64) return jacobi_words(low64(a, len), low64(b, len), t);
        uint64_t xa = ((bits64(a, len, nbits - 32) & 0xffffffffu) << 32) | (low64(a, len) & 0xffffffffu);
        uint64_t xb = ((bits64(b, len, nbits - 32) & 0xffffffffu) << 32) | (low64(b, len) & 0xffffffffu);
        unsigned k = JK;
        int64_t f[4];
        steps(xa, xb, &t, f);
#if JLB == 64
        if (second_round(a, b, len, nbits, &t, f)) k = 2 * JK;
#endif
        /* the shift as a constant in each call, so the update's shifts fold */
        if (k == JK ? update(a, b, len, f[0], f[1], f[2], f[3], JK)
                    : update(a, b, len, f[0], f[1], f[2], f[3], 2 * JK))
            return 2;
    }
}

static size_t trim(const uint64_t *x, size_t len) {
    while (len > 0 && x[len - 1] == 0) len--;
    return len;
}

static int cmp(const uint64_t *a, size_t la, const uint64_t *b, size_t lb) {
    if (la != lb) return la < lb ? -1 : 1;
    for (size_t i = la; i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}


/* The binary algorithm, one bit at a time (always terminates): strip factors
 * of two from a, flipping the sign when n = 3 or 5 mod 8; make a >= n, swapping
 * with quadratic reciprocity (flip when both are 3 mod 4); subtract, with the
 * subtraction and the shift fused into one pass over the limbs. */
int sra_jacobi_binary(const uint8_t *ab, const uint8_t *nb, size_t nbytes) {
    size_t len = (nbytes + 7) / 8;
    uint64_t *buf = (uint64_t *)calloc(2 * len + 2, sizeof(uint64_t));
    if (!buf) return -2;
    uint64_t *a = buf, *n = buf + len + 1;
    for (size_t i = 0; i < nbytes; i++) {
        a[i / 8] |= (uint64_t)ab[i] << (8 * (i % 8));
        n[i / 8] |= (uint64_t)nb[i] << (8 * (i % 8));
    }
    size_t la = trim(a, len), ln = trim(n, len);
    int t = 1;
    while (la > 0) {
        /* a = a / 2^z with z its trailing zero bits (first pass, and after a
         * difference whose low word was 0) */
        size_t w = 0;
        while (a[w] == 0) w++;
        unsigned z = ctz64(a[w]);
        if (w > 0 || z > 0) { /* rare after the first pass */
            size_t k = la - w;
            if (z == 0) {
                memmove(a, a + w, k * sizeof(uint64_t));
            } else {
                for (size_t i = 0; i < k; i++)
                    a[i] = (a[i + w] >> z) | (i + w + 1 < la ? a[i + w + 1] << (64 - z) : 0);
            }
            for (size_t i = k; i < la; i++) a[i] = 0;
            la = trim(a, k);
            /* (2/n) = -1 iff n = 3, 5 mod 8; the bits of 64 w + z count */
            if (((64 * w + z) & 1) && ((n[0] & 7) == 3 || (n[0] & 7) == 5)) t = -t;
        }
        int c = cmp(a, la, n, ln);
        if (c == 0) break; /* a = n: gcd > 1 unless n = 1 */
        if (c < 0) {
            uint64_t *p = a;
            a = n;
            n = p;
            size_t l = la;
            la = ln;
            ln = l;
            if ((a[0] & 3) == 3 && (n[0] & 3) == 3) t = -t;
        }
        /* a = (a - n) / 2^z in one pass: a > n, both odd, so a - n is even and
         * non-zero; z comes from the low word (when that is 0, the next pass
         * of the loop strips the zero words) */
        uint64_t d0 = a[0] - n[0];
        unsigned s = d0 ? ctz64(d0) : 0;
        uint64_t borrow = a[0] < n[0], prev = d0;
        if (s == 0) { /* the low word is 0: keep it, the next pass shifts */
            a[0] = 0;
            for (size_t i = 1; i < la; i++) {
                uint64_t y = i < ln ? n[i] : 0, x = a[i];
                a[i] = x - y - borrow;
                borrow = (x < y) | ((x == y) & borrow);
            }
        } else {
            size_t i = 1;
            for (; i < ln; i++) {
                uint64_t x = a[i], y = n[i], d = x - y - borrow;
                borrow = (x < y) | ((x == y) & borrow);
                a[i - 1] = (prev >> s) | (d << (64 - s));
                prev = d;
            }
            for (; i < la; i++) {
                uint64_t x = a[i], d = x - borrow;
                borrow &= x == 0;
                a[i - 1] = (prev >> s) | (d << (64 - s));
                prev = d;
            }
            a[la - 1] = prev >> s;
        }
        la = trim(a, la);
        if ((s & 1) && ((n[0] & 7) == 3 || (n[0] & 7) == 5)) t = -t;
    }
    int result = (ln == 1 && n[0] == 1) ? t : 0;
    free(buf);
    return result;
}

/* x[0..) = the little-endian bytes b as JLB-bit limbs (x zeroed) */
static void load(jl *x, const uint8_t *b, size_t nbytes) {
#if JLB == 64
    for (size_t i = 0; i < nbytes; i++) x[i / 8] |= (jl)b[i] << (8 * (i % 8));
#else
    uint64_t acc = 0;
    unsigned have = 0;
    for (size_t i = 0; i < nbytes; i++) {
        acc |= (uint64_t)b[i] << have;
        have += 8;
        if (have >= JLB) {
            *x++ = (jl)(acc & (((uint64_t)1 << JLB) - 1));
            acc >>= JLB;
            have -= JLB;
        }
    }
    if (have) *x = (jl)acc;
#endif
}

int sra_jacobi(const uint8_t *ab, const uint8_t *nb, size_t nbytes) {
    size_t len = (8 * nbytes + JLB - 1) / JLB;
    jl *a = (jl *)calloc(2 * len, sizeof(jl));
    if (!a) return -2;
    load(a, ab, nbytes);
    load(a + len, nb, nbytes);
    int r = jacobi_batched(a, a + len, len, 0);
    free(a);
    /* a batch misjudged an order (rare): the bit-at-a-time algorithm, from the start */
    return r == 2 ? sra_jacobi_binary(ab, nb, nbytes) : r;
}
