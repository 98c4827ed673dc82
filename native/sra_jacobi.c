/* sra_jacobi.c: the Jacobi symbol of multi-limb numbers (binary algorithm).
 *
 * Public inputs only (incoming ciphertexts are checked with it), so this is
 * variable time. Binary method: strip factors of two from a, flipping the sign
 * when n = 3 or 5 mod 8; make a >= n, swapping with quadratic reciprocity (flip
 * when both are 3 mod 4); subtract. Every pass removes at least one bit, and
 * the lengths shrink as it goes.
 */
#include <stdlib.h>
#include <string.h>

#include "sra_core.h"

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

static unsigned ctz64(uint64_t x) { /* x != 0 */
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

int sra_jacobi(const uint8_t *ab, const uint8_t *nb, size_t nbytes) {
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
