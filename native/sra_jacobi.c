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
#define JLB 64
#else /* 32-bit targets: 32-bit limbs, 64-bit products */
typedef uint32_t jl;
typedef int64_t jsl;
#define JLB 32
#endif
#define JK 30 /* steps per batch */

static unsigned ctz64(uint64_t x) { /* x != 0 */
    return (unsigned)__builtin_ctzll(x);
}

static unsigned bitlen(jl x) { return x ? JLB - (unsigned)(JLB == 64 ? __builtin_clzll(x) : __builtin_clz((unsigned)x)) : 0; }

/* Bits [pos, pos + 64) of x (len limbs, zero beyond). */
static uint64_t bits64(const jl *x, size_t len, size_t pos) {
    uint64_t v = 0;
    size_t w = pos / JLB, s = pos % JLB;
    for (size_t k = 0; k < 3 && w + k < len; k++) { /* the limbs holding the 64 bits */
        size_t at = k * JLB;
        if (at >= s + 64) break;
        uint64_t limb = (uint64_t)x[w + k];
        v |= at >= s ? limb << (at - s) : limb >> (s - at);
    }
    return v;
}

static uint64_t low64(const jl *x, size_t len) {
    uint64_t v = x[0];
    if (JLB == 32 && len > 1) v |= (uint64_t)x[1] << 32;
    return v;
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

/* [na, nb] = [fa ga; fb gb] [a, b] / 2^k over len limbs (|f| + |g| <= 2^k,
 * k < JLB); returns 1 when either result is negative (then na, nb are garbage). */
static inline int update(jl *na, jl *nb, const jl *a, const jl *b, size_t len, int64_t fa,
                         int64_t ga, int64_t fb, int64_t gb, unsigned k) {
    jsl ca = (jsl)fa * a[0] + (jsl)ga * b[0], cb = (jsl)fb * a[0] + (jsl)gb * b[0];
    jl pa = (jl)ca, pb = (jl)cb; /* their low k bits are zero */
    ca >>= JLB, cb >>= JLB;
    for (size_t i = 1; i < len; i++) {
        jl ai = a[i], bi = b[i];
        ca += (jsl)fa * ai + (jsl)ga * bi;
        cb += (jsl)fb * ai + (jsl)gb * bi;
        na[i - 1] = (pa >> k) | ((jl)ca << (JLB - k));
        nb[i - 1] = (pb >> k) | ((jl)cb << (JLB - k));
        pa = (jl)ca, pb = (jl)cb;
        ca >>= JLB, cb >>= JLB;
    }
    na[len - 1] = (pa >> k) | ((jl)ca << (JLB - k));
    nb[len - 1] = (pb >> k) | ((jl)cb << (JLB - k));
    return ca < 0 || cb < 0;
}

/* JK steps on the approximations xa, xb (see the top of the file): the rows
 * (fa, ga), (fb, gb) of their matrix, and the sign's flips into bit 0 of *t. */
static void steps(uint64_t xa, uint64_t xb, unsigned *t, int64_t f[4]) {
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

/* (a/b) for b odd, both len limbs in buffers of 2 len (the second halves are
 * scratch); a and b are clobbered. 2 when a batch failed (then a, b hold the
 * numbers before it and *t their sign). */
static int jacobi_batched(jl *a0, jl *b0, size_t len, unsigned *t) {
    const size_t len0 = len;
    jl *a = a0, *b = b0, *na = a0 + len, *nb = b0 + len;
    unsigned sign = *t;
    for (;;) {
        while (len > 1 && a[len - 1] == 0 && b[len - 1] == 0) len--;
        if (a[len - 1] == 0) { /* a = 0 (the input, or a = b met): b is the gcd */
            size_t i = 0;
            while (i < len && a[i] == 0) i++;
            if (i == len) {
                int one = b[0] == 1;
                for (i = 1; i < len; i++) one &= b[i] == 0;
                return one ? 1 - 2 * (int)(sign & 1) : 0;
            }
        }
        unsigned n = bitlen(a[len - 1]) > bitlen(b[len - 1]) ? bitlen(a[len - 1]) : bitlen(b[len - 1]);
        size_t nbits = (len - 1) * JLB + n;
        if (nbits <= 64) return jacobi_words(low64(a, len), low64(b, len), sign);
        uint64_t xa = ((bits64(a, len, nbits - 32) & 0xffffffffu) << 32) | (low64(a, len) & 0xffffffffu);
        uint64_t xb = ((bits64(b, len, nbits - 32) & 0xffffffffu) << 32) | (low64(b, len) & 0xffffffffu);
        unsigned tb = sign, k = JK;
        int64_t f[4];
        steps(xa, xb, &tb, f);
#if JLB == 64
        if (second_round(a, b, len, nbits, &tb, f)) k = 2 * JK;
#endif
        if (k == JK ? update(na, nb, a, b, len, f[0], f[1], f[2], f[3], JK)
                    : update(na, nb, a, b, len, f[0], f[1], f[2], f[3], 2 * JK)) {
            if (a != a0) memcpy(a0, a, len * sizeof(jl));
            if (b != b0) memcpy(b0, b, len * sizeof(jl));
            memset(a0 + len, 0, (len0 - len) * sizeof(jl)); /* what the trimming dropped is 0 */
            memset(b0 + len, 0, (len0 - len) * sizeof(jl));
            *t = sign;
            return 2;
        }
        jl *x = a;
        a = na, na = x;
        x = b, b = nb, nb = x;
        sign = tb;
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

static void load(jl *x, const uint8_t *b, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++) x[i / (JLB / 8)] |= (jl)b[i] << (8 * (i % (JLB / 8)));
}

static void store(uint8_t *b, const jl *x, size_t nbytes) {
    for (size_t i = 0; i < nbytes; i++) b[i] = (uint8_t)(x[i / (JLB / 8)] >> (8 * (i % (JLB / 8))));
}

int sra_jacobi(const uint8_t *ab, const uint8_t *nb, size_t nbytes) {
    size_t len = (nbytes + JLB / 8 - 1) / (JLB / 8);
    jl *a = (jl *)calloc(4 * len, sizeof(jl));
    if (!a) return -2;
    jl *b = a + 2 * len;
    load(a, ab, nbytes);
    load(b, nb, nbytes);
    unsigned t = 0;
    int r = jacobi_batched(a, b, len, &t);
    if (r == 2) { /* a batch misjudged an order: finish one bit at a time */
        uint8_t *bytes = (uint8_t *)malloc(2 * nbytes);
        if (bytes) {
            store(bytes, a, nbytes);
            store(bytes + nbytes, b, nbytes);
            r = sra_jacobi_binary(bytes, bytes + nbytes, nbytes);
            r = r == -2 ? -2 : (t & 1) ? -r : r;
            free(bytes);
        } else {
            r = -2;
        }
    }
    free(a);
    return r;
}
