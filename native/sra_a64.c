/* The 64-bit kernel for aarch64 (arm64-v8a phones): Montgomery products and
 * squares by passes of 8 rows, in assembly.
 *
 * Numbers have a multiple of 8 limbs (the modulus is padded with zero limbs, R
 * grows with it). The product is nl/8 passes t += a[i..i+8) * b, the reduction
 * nl/8 passes t += u * m with the quotient digits u made in the pass; the square
 * takes each cross product once (the block triangles, then passes over the limbs
 * above each block), doubles and adds the squares in one pass. mul/umulh take
 * constant time on the ARM cores we know of (Cortex-A5x/A7x, Apple, Neoverse:
 * fixed latency), and nothing here branches on the data or indexes memory with
 * it. Every aarch64 CPU has these instructions (NEON included): the kernel is
 * offered on any aarch64 build and needs no capability check.
 */
#include <string.h>

#include "sra_core.h"

#if defined(SRA_HAVE_A64)

/* The passes: t[0..8c) + win + x * a[0..8c) = t' + out * 2^(64*8c) for an
 * 8-limb multiplier x, win and out 8 limbs (sra_a64_mac8; win carries in the upper
 * half of a squaring block's triangle, else zero), and the same with x = u, the 8
 * Montgomery quotient digits, computed from t on the way (sra_a64_redc8: u[k] is
 * column k times n0 once the rows before it are in), its 8 limbs above added to t.
 * A pass goes over a in chunks of 8 limbs a0..a7 (registers x13-x17, x19-x21) and,
 * per chunk, over the 8 rows: row k adds x[k] * (a0..a7) into columns
 * k..k+8 of the chunk, which sit in a window of 8 registers (x5-x12) plus the row's
 * new top column: one adds/adcs chain over the low halves (its carry goes into the
 * high half of the top product, which cannot overflow: a high half is at most
 * 2^64 - 2), then column k is final: t[k] is added to it and it is stored, its carry
 * entering the chain over the high halves, whose last adc makes the top column in
 * the register column k left. So the window keeps its registers in the same order
 * from one chunk to the next, each limb of t is loaded and stored once per 8 rows,
 * and a product costs its mul, umulh and two adds. A column cannot overflow: after
 * row k the window plus t[k] is below 2^(64*9), as (2^512 - 1) + 2^64 - 1 +
 * (2^64 - 1)(2^512 - 1) < 2^576; the window of the last chunk is exact (no carry is
 * pending after a row). No branch or address depends on the data. */
__asm__(
    ".macro SRA_A64_ROW k, c0, c1, c2, c3, c4, c5, c6, c7, rk, redc\n"
    ".if (\\k % 2) == 0\n"
    "  ldp x26, x27, [x0, #8*\\k]\n"
    ".endif\n"
    ".if \\redc\n"
    "  add x22, \\c0, \\rk\n" /* column k as it stands: u = that * n0 */
    "  mul x22, x22, x28\n"
    "  str x22, [x2, #8*\\k]\n"
    ".else\n"
    "  ldr x22, [x2, #8*\\k]\n"
    ".endif\n"
    "  umulh x23, x21, x22\n"
    "  mul x24, x13, x22\n"
    "  mul x25, x14, x22\n"
    "  adds \\c0, \\c0, x24\n"
    "  mul x24, x15, x22\n"
    "  adcs \\c1, \\c1, x25\n"
    "  mul x25, x16, x22\n"
    "  adcs \\c2, \\c2, x24\n"
    "  mul x24, x17, x22\n"
    "  adcs \\c3, \\c3, x25\n"
    "  mul x25, x19, x22\n"
    "  adcs \\c4, \\c4, x24\n"
    "  mul x24, x20, x22\n"
    "  adcs \\c5, \\c5, x25\n"
    "  mul x25, x21, x22\n"
    "  adcs \\c6, \\c6, x24\n"
    "  adcs \\c7, \\c7, x25\n"
    "  adc x23, x23, xzr\n"
    "  adds \\c0, \\c0, \\rk\n" /* column k is final */
    "  str \\c0, [x0, #8*\\k]\n"
    "  umulh x24, x13, x22\n"
    "  umulh x25, x14, x22\n"
    "  adcs \\c1, \\c1, x24\n"
    "  umulh x24, x15, x22\n"
    "  adcs \\c2, \\c2, x25\n"
    "  umulh x25, x16, x22\n"
    "  adcs \\c3, \\c3, x24\n"
    "  umulh x24, x17, x22\n"
    "  adcs \\c4, \\c4, x25\n"
    "  umulh x25, x19, x22\n"
    "  adcs \\c5, \\c5, x24\n"
    "  umulh x24, x20, x22\n"
    "  adcs \\c6, \\c6, x25\n"
    "  adcs \\c7, \\c7, x24\n"
    "  adc \\c0, x23, xzr\n" /* column k + 8 */
    ".endm\n"
    ".macro SRA_A64_CHUNK redc\n"
    "  ldp x13, x14, [x1], #16\n"
    "  ldp x15, x16, [x1], #16\n"
    "  ldp x17, x19, [x1], #16\n"
    "  ldp x20, x21, [x1], #16\n"
    "  SRA_A64_ROW 0, x5,x6,x7,x8,x9,x10,x11,x12, x26, \\redc\n"
    "  SRA_A64_ROW 1, x6,x7,x8,x9,x10,x11,x12,x5, x27, \\redc\n"
    "  SRA_A64_ROW 2, x7,x8,x9,x10,x11,x12,x5,x6, x26, \\redc\n"
    "  SRA_A64_ROW 3, x8,x9,x10,x11,x12,x5,x6,x7, x27, \\redc\n"
    "  SRA_A64_ROW 4, x9,x10,x11,x12,x5,x6,x7,x8, x26, \\redc\n"
    "  SRA_A64_ROW 5, x10,x11,x12,x5,x6,x7,x8,x9, x27, \\redc\n"
    "  SRA_A64_ROW 6, x11,x12,x5,x6,x7,x8,x9,x10, x26, \\redc\n"
    "  SRA_A64_ROW 7, x12,x5,x6,x7,x8,x9,x10,x11, x27, \\redc\n"
    "  add x0, x0, #64\n"
    ".endm\n"
    ".macro SRA_A64_ENTER\n"
    "  stp x19, x20, [sp, #-80]!\n"
    "  stp x21, x22, [sp, #16]\n"
    "  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n"
    "  stp x27, x28, [sp, #64]\n"
    ".endm\n"
    ".macro SRA_A64_LEAVE\n"
    "  ldp x21, x22, [sp, #16]\n"
    "  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n"
    "  ldp x27, x28, [sp, #64]\n"
    "  ldp x19, x20, [sp], #80\n"
    "  ret\n"
    ".endm\n"
    ".text\n"
    ".p2align 4\n"
    ".globl sra_a64_mac8\n"
    ".hidden sra_a64_mac8\n"
    ".type sra_a64_mac8, %function\n"
    /* (t, a, x, chunks, out, win): the window starts as win[0..8) */
    "sra_a64_mac8:\n"
    "  SRA_A64_ENTER\n"
    "  mov x28, x5\n"
    "  ldp x5, x6, [x28]\n"
    "  ldp x7, x8, [x28, #16]\n"
    "  ldp x9, x10, [x28, #32]\n"
    "  ldp x11, x12, [x28, #48]\n"
    "1:\n"
    "  SRA_A64_CHUNK 0\n"
    "  subs x3, x3, #1\n"
    "  b.ne 1b\n"
    "  stp x5, x6, [x4]\n"
    "  stp x7, x8, [x4, #16]\n"
    "  stp x9, x10, [x4, #32]\n"
    "  stp x11, x12, [x4, #48]\n"
    "  SRA_A64_LEAVE\n"
    ".size sra_a64_mac8, .-sra_a64_mac8\n"
    ".p2align 4\n"
    ".globl sra_a64_redc8\n"
    ".hidden sra_a64_redc8\n"
    ".type sra_a64_redc8, %function\n"
    /* (t, m, u, chunks, top, n0) -> top: the first chunk makes u; then the window is
     * added to the 8 limbs of t above the pass, with top (0 or 1) as carry-in (cmp
     * sets the carry flag when top >= 1), and the carry out is returned */
    "sra_a64_redc8:\n"
    "  SRA_A64_ENTER\n"
    "  mov x28, x5\n"
    "  mov x5, xzr\n  mov x6, xzr\n  mov x7, xzr\n  mov x8, xzr\n"
    "  mov x9, xzr\n  mov x10, xzr\n  mov x11, xzr\n  mov x12, xzr\n"
    "  SRA_A64_CHUNK 1\n"
    "  subs x3, x3, #1\n"
    "  b.eq 2f\n"
    "1:\n"
    "  SRA_A64_CHUNK 0\n"
    "  subs x3, x3, #1\n"
    "  b.ne 1b\n"
    "2:\n"
    "  ldp x13, x14, [x0]\n"
    "  ldp x15, x16, [x0, #16]\n"
    "  ldp x17, x19, [x0, #32]\n"
    "  ldp x20, x21, [x0, #48]\n"
    "  cmp x4, #1\n"
    "  adcs x5, x5, x13\n"
    "  adcs x6, x6, x14\n"
    "  adcs x7, x7, x15\n"
    "  adcs x8, x8, x16\n"
    "  adcs x9, x9, x17\n"
    "  adcs x10, x10, x19\n"
    "  adcs x11, x11, x20\n"
    "  adcs x12, x12, x21\n"
    "  stp x5, x6, [x0]\n"
    "  stp x7, x8, [x0, #16]\n"
    "  stp x9, x10, [x0, #32]\n"
    "  stp x11, x12, [x0, #48]\n"
    "  cset x0, cs\n"
    "  SRA_A64_LEAVE\n"
    ".size sra_a64_redc8, .-sra_a64_redc8\n"
    ".p2align 4\n"
    ".globl sra_a64_tri8\n"
    ".hidden sra_a64_tri8\n"
    ".type sra_a64_tri8, %function\n"
    /* (t, a, win): the products a[k] a[l], k < l < 8, each once (columns 1..14, in
     * x11-x17, x19-x25: row k's low halves in one chain, its carry into the high half of
     * its top product, then the high halves); columns 1..7 added to t[1..8), the carry
     * on through the rest, which goes to win[0..8) */
    "sra_a64_tri8:\n"
    "  SRA_A64_ENTER\n"
    "  ldp x3, x4, [x1]\n"
    "  ldp x5, x6, [x1, #16]\n"
    "  ldp x7, x8, [x1, #32]\n"
    "  ldp x9, x10, [x1, #48]\n"
    "  mul x11, x3, x4\n"
    "  mul x12, x3, x5\n"
    "  mul x13, x3, x6\n"
    "  mul x14, x3, x7\n"
    "  mul x15, x3, x8\n"
    "  mul x16, x3, x9\n"
    "  mul x17, x3, x10\n"
    "  umulh x26, x3, x4\n"
    "  adds x12, x12, x26\n"
    "  umulh x26, x3, x5\n"
    "  adcs x13, x13, x26\n"
    "  umulh x26, x3, x6\n"
    "  adcs x14, x14, x26\n"
    "  umulh x26, x3, x7\n"
    "  adcs x15, x15, x26\n"
    "  umulh x26, x3, x8\n"
    "  adcs x16, x16, x26\n"
    "  umulh x26, x3, x9\n"
    "  adcs x17, x17, x26\n"
    "  umulh x27, x3, x10\n"
    "  adc x19, x27, xzr\n"
    "  umulh x28, x4, x10\n"
    "  mul x26, x4, x5\n"
    "  adds x13, x13, x26\n"
    "  mul x26, x4, x6\n"
    "  adcs x14, x14, x26\n"
    "  mul x26, x4, x7\n"
    "  adcs x15, x15, x26\n"
    "  mul x26, x4, x8\n"
    "  adcs x16, x16, x26\n"
    "  mul x26, x4, x9\n"
    "  adcs x17, x17, x26\n"
    "  mul x26, x4, x10\n"
    "  adcs x19, x19, x26\n"
    "  adc x28, x28, xzr\n"
    "  umulh x27, x4, x5\n"
    "  adds x14, x14, x27\n"
    "  umulh x27, x4, x6\n"
    "  adcs x15, x15, x27\n"
    "  umulh x27, x4, x7\n"
    "  adcs x16, x16, x27\n"
    "  umulh x27, x4, x8\n"
    "  adcs x17, x17, x27\n"
    "  umulh x27, x4, x9\n"
    "  adcs x19, x19, x27\n"
    "  adc x20, x28, xzr\n"
    "  umulh x28, x5, x10\n"
    "  mul x26, x5, x6\n"
    "  adds x15, x15, x26\n"
    "  mul x26, x5, x7\n"
    "  adcs x16, x16, x26\n"
    "  mul x26, x5, x8\n"
    "  adcs x17, x17, x26\n"
    "  mul x26, x5, x9\n"
    "  adcs x19, x19, x26\n"
    "  mul x26, x5, x10\n"
    "  adcs x20, x20, x26\n"
    "  adc x28, x28, xzr\n"
    "  umulh x27, x5, x6\n"
    "  adds x16, x16, x27\n"
    "  umulh x27, x5, x7\n"
    "  adcs x17, x17, x27\n"
    "  umulh x27, x5, x8\n"
    "  adcs x19, x19, x27\n"
    "  umulh x27, x5, x9\n"
    "  adcs x20, x20, x27\n"
    "  adc x21, x28, xzr\n"
    "  umulh x28, x6, x10\n"
    "  mul x26, x6, x7\n"
    "  adds x17, x17, x26\n"
    "  mul x26, x6, x8\n"
    "  adcs x19, x19, x26\n"
    "  mul x26, x6, x9\n"
    "  adcs x20, x20, x26\n"
    "  mul x26, x6, x10\n"
    "  adcs x21, x21, x26\n"
    "  adc x28, x28, xzr\n"
    "  umulh x27, x6, x7\n"
    "  adds x19, x19, x27\n"
    "  umulh x27, x6, x8\n"
    "  adcs x20, x20, x27\n"
    "  umulh x27, x6, x9\n"
    "  adcs x21, x21, x27\n"
    "  adc x22, x28, xzr\n"
    "  umulh x28, x7, x10\n"
    "  mul x26, x7, x8\n"
    "  adds x20, x20, x26\n"
    "  mul x26, x7, x9\n"
    "  adcs x21, x21, x26\n"
    "  mul x26, x7, x10\n"
    "  adcs x22, x22, x26\n"
    "  adc x28, x28, xzr\n"
    "  umulh x27, x7, x8\n"
    "  adds x21, x21, x27\n"
    "  umulh x27, x7, x9\n"
    "  adcs x22, x22, x27\n"
    "  adc x23, x28, xzr\n"
    "  umulh x28, x8, x10\n"
    "  mul x26, x8, x9\n"
    "  adds x22, x22, x26\n"
    "  mul x26, x8, x10\n"
    "  adcs x23, x23, x26\n"
    "  adc x28, x28, xzr\n"
    "  umulh x27, x8, x9\n"
    "  adds x23, x23, x27\n"
    "  adc x24, x28, xzr\n"
    "  umulh x28, x9, x10\n"
    "  mul x26, x9, x10\n"
    "  adds x24, x24, x26\n"
    "  adc x28, x28, xzr\n"
    "  mov x25, x28\n"
    "  ldr x3, [x0, #8]\n"
    "  ldp x4, x5, [x0, #16]\n"
    "  ldp x6, x7, [x0, #32]\n"
    "  ldp x8, x9, [x0, #48]\n"
    "  adds x11, x11, x3\n"
    "  adcs x12, x12, x4\n"
    "  adcs x13, x13, x5\n"
    "  adcs x14, x14, x6\n"
    "  adcs x15, x15, x7\n"
    "  adcs x16, x16, x8\n"
    "  adcs x17, x17, x9\n"
    "  adcs x19, x19, xzr\n"
    "  adcs x20, x20, xzr\n"
    "  adcs x21, x21, xzr\n"
    "  adcs x22, x22, xzr\n"
    "  adcs x23, x23, xzr\n"
    "  adcs x24, x24, xzr\n"
    "  adcs x25, x25, xzr\n"
    "  adc x1, xzr, xzr\n"
    "  str x11, [x0, #8]\n"
    "  stp x12, x13, [x0, #16]\n"
    "  stp x14, x15, [x0, #32]\n"
    "  stp x16, x17, [x0, #48]\n"
    "  stp x19, x20, [x2]\n"
    "  stp x21, x22, [x2, #16]\n"
    "  stp x23, x24, [x2, #32]\n"
    "  stp x25, x1, [x2, #48]\n"
    "  SRA_A64_LEAVE\n"
    ".size sra_a64_tri8, .-sra_a64_tri8\n");

void sra_a64_mac8(uint64_t *t, const uint64_t *a, const uint64_t *x, size_t chunks, uint64_t *out,
                  const uint64_t *win) __attribute__((visibility("hidden")));
uint64_t sra_a64_redc8(uint64_t *t, const uint64_t *m, uint64_t *u, size_t chunks, uint64_t top,
                       uint64_t n0) __attribute__((visibility("hidden")));
void sra_a64_tri8(uint64_t *t, const uint64_t *a, uint64_t *win) __attribute__((visibility("hidden")));

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
/* Montgomery reduction of t[0..2nl) (< m R) into r (< m), 8 rows a pass; t is
 * clobbered. Each pass leaves 8 limbs above its columns, added to t with the carry
 * the passes before left there. */
static void a64_redc(uint64_t *r, uint64_t *t, const uint64_t *m, uint64_t n0, int nl) {
    uint64_t top = 0, u[8];
    for (int i = 0; i < nl; i += 8) top = sra_a64_redc8(t + i, m, u, (size_t)nl / 8, top, n0);
    a64_csub(r, t + nl, top, m, nl);
}

/* sel = table[idx] for nl >= 16 (a multiple of 8; at most 64 entries), reading every
 * entry: per 128 bytes of the result (the last 128 overlapping the ones before when
 * nl is an odd multiple of 8) the entries are folded into NEON registers with bit
 * (insert the bits where the mask is set), the mask all-ones for entry idx alone, so
 * an entry costs its loads and one instruction per 16 bytes. Returns 0, doing
 * nothing, for smaller numbers: the portable select of sra_scalar.h does those. */
typedef uint64_t a64_v2 __attribute__((vector_size(16)));
static int a64_select(uint64_t *sel, const uint64_t *table, int entries, int nl, unsigned idx) {
    if (nl < 16) return 0;
    a64_v2 masks[64];
    for (int x = 0; x < entries; x++) {
        uint64_t mask = sra_ct_eq_mask((unsigned)x, idx);
        masks[x] = (a64_v2){mask, mask};
    }
    const uint64_t stride = (uint64_t)nl * 8;
    for (int j = 0; j < nl; j += 16) {
        if (j + 16 > nl) j = nl - 16;
        const uint64_t *row = table + j;
        const a64_v2 *mk = masks;
        uint64_t k = (uint64_t)entries;
        __asm__ volatile(
            "movi v0.16b, #0\n\tmovi v1.16b, #0\n\tmovi v2.16b, #0\n\tmovi v3.16b, #0\n\t"
            "movi v4.16b, #0\n\tmovi v5.16b, #0\n\tmovi v6.16b, #0\n\tmovi v7.16b, #0\n"
            "1:\n\t"
            "ldr q16, [%[mk]], #16\n\t"
            "ldp q17, q18, [%[row]]\n\t"
            "ldp q19, q20, [%[row], #32]\n\t"
            "bit v0.16b, v17.16b, v16.16b\n\t"
            "bit v1.16b, v18.16b, v16.16b\n\t"
            "ldp q21, q22, [%[row], #64]\n\t"
            "bit v2.16b, v19.16b, v16.16b\n\t"
            "bit v3.16b, v20.16b, v16.16b\n\t"
            "ldp q17, q18, [%[row], #96]\n\t"
            "bit v4.16b, v21.16b, v16.16b\n\t"
            "bit v5.16b, v22.16b, v16.16b\n\t"
            "add %[row], %[row], %[stride]\n\t"
            "bit v6.16b, v17.16b, v16.16b\n\t"
            "bit v7.16b, v18.16b, v16.16b\n\t"
            "subs %[k], %[k], #1\n\t"
            "b.ne 1b\n\t"
            "stp q0, q1, [%[out]]\n\t"
            "stp q2, q3, [%[out], #32]\n\t"
            "stp q4, q5, [%[out], #64]\n\t"
            "stp q6, q7, [%[out], #96]\n\t"
            : [row] "+r"(row), [mk] "+r"(mk), [k] "+r"(k)
            : [stride] "r"(stride), [out] "r"(sel + j)
            : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18",
              "v19", "v20", "v21", "v22");
    }
    return 1;
}

static const uint64_t a64_zero8[8];

/* r = a b / R mod m (r may alias a or b); t: 2 nl limbs. */
static void a64_mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                         uint64_t n0, int nl, uint64_t *t) {
    memset(t, 0, (size_t)nl * sizeof *t);
    for (int i = 0; i < nl; i += 8)
        sra_a64_mac8(t + i, b, a + i, (size_t)nl / 8, t + i + nl, a64_zero8);
    a64_redc(r, t, m, n0, nl);
}

/* r = a^2 / R mod m; t: 2 nl limbs. Each product a[i] a[j], i < j, once, in blocks of
 * 8 rows: the block's own triangle (a64_tri8), whose upper half starts the window of
 * the pass over the limbs above the block; then doubled, plus the squares a[i]^2. */
static void a64_mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t n0, int nl,
                         uint64_t *t) {
    uint64_t w[8];
    memset(t, 0, (size_t)nl * 2 * sizeof *t);
    for (int i = 0; i < nl; i += 8) {
        if (i + 8 < nl) {
            sra_a64_tri8(t + 2 * i, a + i, w);
            sra_a64_mac8(t + 2 * i + 8, a + i + 8, a + i, (size_t)(nl - i - 8) / 8, t + i + nl, w);
        } else { /* the last block: t[2i+8..2i+16) is still zero */
            sra_a64_tri8(t + 2 * i, a + i, t + 2 * i + 8);
        }
    }
    a64_double_add_squares(t, a, nl); /* 2 cross + squares = a^2 < 2^(128 nl) */
    a64_redc(r, t, m, n0, nl);
}

#define SRA_SELECT a64_select
#define SRA_LIMB_ALIGN 8
#define SRA_SCRATCH 2
#define SRA_MONT_MUL a64_mont_mul
#define SRA_MONT_SQR a64_mont_sqr

#define SRA_L uint64_t
#define SRA_DL unsigned __int128
#define SRA_LB 64
#define SRA_FN(x) sra_a64_##x
#include "sra_scalar.h"

const sra_kernel sra_kernel_a64 = {"a64", 1, sra_a64_rbits, sra_a64_init, sra_a64_free_state,
                                   sra_a64_pow};
#endif
