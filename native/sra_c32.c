/* Portable Montgomery kernel with 32-bit limbs and uint64_t products: the path
 * for targets without a 128-bit integer type (32-bit ARM). */
#include "sra_core.h"

#if defined(__arm__) && defined(__GNUC__) && defined(__ARM_ARCH) && __ARM_ARCH >= 6 && \
    (defined(__ARM_ARCH_ISA_ARM) || (defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB >= 2))
/* 32-bit ARM: umaal computes hi:lo = a * b + lo + hi in one instruction, exactly
 * the step of a row (GCC does not find it by itself: it emits umlal, adds, adc). */
static inline uint32_t arm_addmul(uint32_t *r, const uint32_t *a, uint32_t x, int n) {
    uint32_t c = 0;
    for (int j = 0; j < n; j++) {
        uint32_t lo = r[j];
        __asm__("umaal %0, %1, %2, %3" : "+r"(lo), "+r"(c) : "r"(a[j]), "r"(x));
        r[j] = lo;
    }
    return c;
}
#define SRA_ADDMUL arm_addmul

/* Two rows per pass (see SRA_ADDMUL2 in sra_scalar.h): column j takes x0 a[j] and
 * x1 a[j-1], each umaal with its own carry, so every limb of r is loaded and
 * stored once for both rows. Two columns a step, with the limb of a the next
 * step's x1 product needs kept in a register. */
static inline void arm_addmul2(uint32_t *r, const uint32_t *a, uint32_t x0, uint32_t x1, int n,
                               uint32_t cin, uint32_t *out) {
    uint32_t c0 = cin, c1 = 0, ap = 0;
    int j = 0;
    for (; j + 1 < n; j += 2) {
        uint32_t a0 = a[j], a1 = a[j + 1], t0 = r[j], t1 = r[j + 1];
        __asm__("umaal %0, %1, %2, %3" : "+r"(t0), "+r"(c0) : "r"(a0), "r"(x0));
        __asm__("umaal %0, %1, %2, %3" : "+r"(t0), "+r"(c1) : "r"(ap), "r"(x1));
        __asm__("umaal %0, %1, %2, %3" : "+r"(t1), "+r"(c0) : "r"(a1), "r"(x0));
        __asm__("umaal %0, %1, %2, %3" : "+r"(t1), "+r"(c1) : "r"(a0), "r"(x1));
        r[j] = t0;
        r[j + 1] = t1;
        ap = a1;
    }
    if (j < n) {
        uint32_t t0 = r[j];
        __asm__("umaal %0, %1, %2, %3" : "+r"(t0), "+r"(c0) : "r"(a[j]), "r"(x0));
        __asm__("umaal %0, %1, %2, %3" : "+r"(t0), "+r"(c1) : "r"(ap), "r"(x1));
        r[j] = t0;
        ap = a[j];
    }
    /* column n: x1 a[n-1] + c0 + c1 */
    __asm__("umaal %0, %1, %2, %3" : "+r"(c0), "+r"(c1) : "r"(ap), "r"(x1));
    out[0] = c0;
    out[1] = c1;
}
#define SRA_ADDMUL2 arm_addmul2
#endif

#define SRA_L uint32_t
#define SRA_DL uint64_t
#define SRA_LB 32
#define SRA_FN(x) sra_c32_##x
#include "sra_scalar.h"

const sra_kernel sra_kernel_c32 = {"c32", 1, sra_c32_rbits, sra_c32_init, sra_c32_free_state,
                                   sra_c32_pow};
