/* The 64-bit kernel for aarch64 (arm64-v8a phones): Montgomery products two rows at
 * a time, the rows' inner loop in inline assembly.
 *
 * A pass adds x0 * a + x1 * a * 2^64 to the accumulator, loading and storing each
 * of its limbs once for both rows (paired ldp/stp, four columns a step). aarch64
 * has one carry flag, so a step runs four short adcs chains one after the other
 * (row 1's products, row 0's products, then each row sum into the accumulator);
 * each chain's carry is folded into the high limb the next step starts from, which
 * cannot overflow (see the bound in sra_scalar.h). mul/umulh take constant time on
 * the ARM cores we know of (Cortex-A5x/A7x, Apple, Neoverse: fixed latency), and
 * nothing here branches on the data. Every aarch64 CPU has these instructions:
 * the kernel is offered on any aarch64 build and needs no capability check.
 */
#include "sra_core.h"

#if defined(SRA_HAVE_A64)

/* r[0..n) + cin + x0 a + x1 a 2^64 = r' + out[0] 2^(64n) + out[1] 2^(64(n+1)). */
static inline void a64_addmul2(uint64_t *r, const uint64_t *a, uint64_t x0, uint64_t x1, int n,
                               uint64_t cin, uint64_t *out) {
    uint64_t c0 = cin, c1 = 0, ap = 0; /* ap: the limb of a before the column's */
    uint64_t steps = (uint64_t)n >> 2;
    if (steps) { /* public: n is a loop bound */
        uint64_t a0, a1, a2, a3, l0, l1, l2, l3, h0, h1, h2, h3, u0, u1, u2, u3;
        __asm__ volatile(
            "1:\n\t"
            "ldp %[a0], %[a1], [%[a]], #16\n\t"
            "ldp %[a2], %[a3], [%[a]], #16\n\t"
            /* row 1: x1 * (a[j-1], a[j], a[j+1], a[j+2]) into columns j..j+3 */
            "mul %[l0], %[ap], %[x1]\n\t"
            "umulh %[h0], %[ap], %[x1]\n\t"
            "mul %[l1], %[a0], %[x1]\n\t"
            "umulh %[h1], %[a0], %[x1]\n\t"
            "mul %[l2], %[a1], %[x1]\n\t"
            "umulh %[h2], %[a1], %[x1]\n\t"
            "mul %[l3], %[a2], %[x1]\n\t"
            "umulh %[h3], %[a2], %[x1]\n\t"
            "adds %[l0], %[l0], %[c1]\n\t"
            "adcs %[l1], %[l1], %[h0]\n\t"
            "adcs %[l2], %[l2], %[h1]\n\t"
            "adcs %[l3], %[l3], %[h2]\n\t"
            "adc %[c1], %[h3], xzr\n\t"
            /* row 0: x0 * (a[j], a[j+1], a[j+2], a[j+3]) */
            "mul %[u0], %[a0], %[x0]\n\t"
            "umulh %[h0], %[a0], %[x0]\n\t"
            "mul %[u1], %[a1], %[x0]\n\t"
            "umulh %[h1], %[a1], %[x0]\n\t"
            "mul %[u2], %[a2], %[x0]\n\t"
            "umulh %[h2], %[a2], %[x0]\n\t"
            "mul %[u3], %[a3], %[x0]\n\t"
            "umulh %[h3], %[a3], %[x0]\n\t"
            "mov %[ap], %[a3]\n\t"
            "adds %[u0], %[u0], %[c0]\n\t"
            "adcs %[u1], %[u1], %[h0]\n\t"
            "adcs %[u2], %[u2], %[h1]\n\t"
            "adcs %[u3], %[u3], %[h2]\n\t"
            "adc %[c0], %[h3], xzr\n\t"
            /* the accumulator += both row sums */
            "ldp %[a0], %[a1], [%[r]]\n\t"
            "ldp %[a2], %[a3], [%[r], #16]\n\t"
            "adds %[a0], %[a0], %[u0]\n\t"
            "adcs %[a1], %[a1], %[u1]\n\t"
            "adcs %[a2], %[a2], %[u2]\n\t"
            "adcs %[a3], %[a3], %[u3]\n\t"
            "adc %[c0], %[c0], xzr\n\t"
            "adds %[a0], %[a0], %[l0]\n\t"
            "adcs %[a1], %[a1], %[l1]\n\t"
            "adcs %[a2], %[a2], %[l2]\n\t"
            "adcs %[a3], %[a3], %[l3]\n\t"
            "adc %[c1], %[c1], xzr\n\t"
            "stp %[a0], %[a1], [%[r]], #16\n\t"
            "stp %[a2], %[a3], [%[r]], #16\n\t"
            "subs %[steps], %[steps], #1\n\t"
            "b.ne 1b\n\t"
            : [a] "+r"(a), [r] "+r"(r), [steps] "+r"(steps), [c0] "+r"(c0), [c1] "+r"(c1),
              [ap] "+r"(ap), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
              [l0] "=&r"(l0), [l1] "=&r"(l1), [l2] "=&r"(l2), [l3] "=&r"(l3), [h0] "=&r"(h0),
              [h1] "=&r"(h1), [h2] "=&r"(h2), [h3] "=&r"(h3), [u0] "=&r"(u0), [u1] "=&r"(u1),
              [u2] "=&r"(u2), [u3] "=&r"(u3)
            : [x0] "r"(x0), [x1] "r"(x1)
            : "cc", "memory");
    }
    for (int j = 0; j < (n & 3); j++) { /* the last n mod 4 columns */
        unsigned __int128 p = (unsigned __int128)x0 * a[j] + r[j] + c0;
        c0 = (uint64_t)(p >> 64);
        unsigned __int128 q = (unsigned __int128)x1 * ap + (uint64_t)p + c1;
        r[j] = (uint64_t)q;
        c1 = (uint64_t)(q >> 64);
        ap = a[j];
    }
    unsigned __int128 q = (unsigned __int128)x1 * ap + c0 + c1;
    out[0] = (uint64_t)q;
    out[1] = (uint64_t)(q >> 64);
}

/* t[0..2n) = 2 t + sum a[i]^2 2^(128 i), one carry chain through the whole pass
 * (the loop's sub and cbnz leave the flags alone); the caller knows nothing
 * falls off the top. n >= 1. */
static inline void a64_double_add_squares(uint64_t *t, const uint64_t *a, int n) {
    uint64_t k = (uint64_t)n, hi = 0, ai, t0, t1, lo, sq;
    __asm__ volatile(
        "cmn xzr, xzr\n" /* carry clear */
        "1:\n\t"
        "ldr %[ai], [%[a]], #8\n\t"
        "ldp %[t0], %[t1], [%[t]]\n\t"
        "mul %[lo], %[ai], %[ai]\n\t"
        "umulh %[sq], %[ai], %[ai]\n\t"
        "extr %[ai], %[t0], %[hi], #63\n\t" /* (t0 << 1) | top bit of the limb below */
        "extr %[hi], %[t1], %[t0], #63\n\t"
        "adcs %[ai], %[ai], %[lo]\n\t"
        "adcs %[lo], %[hi], %[sq]\n\t"
        "mov %[hi], %[t1]\n\t"
        "stp %[ai], %[lo], [%[t]], #16\n\t"
        "sub %[k], %[k], #1\n\t"
        "cbnz %[k], 1b\n\t"
        : [t] "+r"(t), [a] "+r"(a), [k] "+r"(k), [hi] "+r"(hi), [ai] "=&r"(ai), [t0] "=&r"(t0),
          [t1] "=&r"(t1), [lo] "=&r"(lo), [sq] "=&r"(sq)
        :
        : "cc", "memory");
}

/* r = t - m when top is set or t >= m, else t (t < 2m): one sbcs
 * chain into r (which must not overlap t), then csel on the flags it left, which the loop's sub and cbnz
 * keep. Pairs of limbs (ldp/stp), an odd last limb alone. n >= 1. */
static inline void a64_csub(uint64_t *r, const uint64_t *t, uint64_t top, const uint64_t *m, int n) {
    uint64_t pairs = (uint64_t)n >> 1, odd = (uint64_t)n & 1, k, x0, x1, y0, y1;
    __asm__ volatile(
        "cmp xzr, xzr\n\t" /* carry set: no borrow yet */
        "mov %[k], %[pairs]\n\t"
        "cbz %[k], 2f\n"
        "1:\n\t"
        "ldp %[x0], %[x1], [%[t]], #16\n\t"
        "ldp %[y0], %[y1], [%[m]], #16\n\t"
        "sbcs %[x0], %[x0], %[y0]\n\t"
        "sbcs %[x1], %[x1], %[y1]\n\t"
        "stp %[x0], %[x1], [%[r]], #16\n\t"
        "sub %[k], %[k], #1\n\t"
        "cbnz %[k], 1b\n"
        "2:\n\t"
        "cbz %[odd], 3f\n\t"
        "ldr %[x0], [%[t]], #8\n\t"
        "ldr %[y0], [%[m]], #8\n\t"
        "sbcs %[x0], %[x0], %[y0]\n\t"
        "str %[x0], [%[r]], #8\n"
        "3:\n\t"
        "cset %[x0], cs\n\t" /* no borrow */
        "orr %[x0], %[x0], %[top]\n\t"
        "add %[k], %[odd], %[pairs], lsl #1\n\t"
        "sub %[r], %[r], %[k], lsl #3\n\t"
        "sub %[t], %[t], %[k], lsl #3\n\t"
        "cmp %[x0], #1\n\t" /* eq: keep t - m */
        "mov %[k], %[pairs]\n\t"
        "cbz %[k], 5f\n"
        "4:\n\t"
        "ldp %[x0], %[x1], [%[t]], #16\n\t"
        "ldp %[y0], %[y1], [%[r]]\n\t"
        "csel %[x0], %[y0], %[x0], eq\n\t"
        "csel %[x1], %[y1], %[x1], eq\n\t"
        "stp %[x0], %[x1], [%[r]], #16\n\t"
        "sub %[k], %[k], #1\n\t"
        "cbnz %[k], 4b\n"
        "5:\n\t"
        "cbz %[odd], 6f\n\t"
        "ldr %[x0], [%[t]]\n\t"
        "ldr %[y0], [%[r]]\n\t"
        "csel %[x0], %[y0], %[x0], eq\n\t"
        "str %[x0], [%[r]]\n"
        "6:\n\t"
        : [r] "+r"(r), [t] "+r"(t), [m] "+r"(m), [k] "=&r"(k), [x0] "=&r"(x0), [x1] "=&r"(x1),
          [y0] "=&r"(y0), [y1] "=&r"(y1)
        : [pairs] "r"(pairs), [odd] "r"(odd), [top] "r"(top)
        : "cc", "memory");
}
#define SRA_CSUB a64_csub
#define SRA_DOUBLE_ADD_SQUARES a64_double_add_squares

#define SRA_L uint64_t
#define SRA_DL unsigned __int128
#define SRA_LB 64
#define SRA_FN(x) sra_a64_##x
#define SRA_ADDMUL2 a64_addmul2
#include "sra_scalar.h"

const sra_kernel sra_kernel_a64 = {"a64", 1, sra_a64_rbits, sra_a64_init, sra_a64_free_state,
                                   sra_a64_pow};
#endif
