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
#endif

#define SRA_L uint32_t
#define SRA_DL uint64_t
#define SRA_LB 32
#define SRA_FN(x) sra_c32_##x
#include "sra_scalar.h"

const sra_kernel sra_kernel_c32 = {"c32", 1, sra_c32_rbits, sra_c32_init, sra_c32_free_state,
                                   sra_c32_pow};
