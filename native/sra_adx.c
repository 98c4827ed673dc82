/* The portable 64-bit kernel with its rows written in x86-64 assembly:
 * mulx products and two independent carry chains (adcx on CF, adox on OF),
 * as in GMP's and OpenSSL's mulx code. Chosen at run time on CPUs with BMI2
 * and ADX that lack AVX-512 IFMA; no build flags needed (the assembler takes
 * the instructions whatever -march says). Same constant-time structure as
 * sra_scalar.h: the rows have fixed lengths and no data-dependent branch. */
#include "sra_core.h"

#if defined(SRA_HAVE_ADX)
#include <cpuid.h>

/* r[0..n) += x * a[0..n), returns the carry limb; n >= 1. */
static inline uint64_t adx_addmul(uint64_t *r, const uint64_t *a, uint64_t x, int n) {
    uint64_t c, lo, hi, blocks = (uint64_t)n >> 2, rest = (uint64_t)n & 3;
    __asm__ volatile(
        "xorl %k[c], %k[c]\n\t" /* c = 0 and CF = OF = 0 */
        "jrcxz 4f\n"
        "3:\n\t"
        "mulx (%[a]), %[lo], %[hi]\n\t"
        "adcx (%[r]), %[lo]\n\t"
        "adox %[c], %[lo]\n\t"
        "movq %[lo], (%[r])\n\t"
        "mulx 8(%[a]), %[lo], %[c]\n\t"
        "adcx 8(%[r]), %[lo]\n\t"
        "adox %[hi], %[lo]\n\t"
        "movq %[lo], 8(%[r])\n\t"
        "mulx 16(%[a]), %[lo], %[hi]\n\t"
        "adcx 16(%[r]), %[lo]\n\t"
        "adox %[c], %[lo]\n\t"
        "movq %[lo], 16(%[r])\n\t"
        "mulx 24(%[a]), %[lo], %[c]\n\t"
        "adcx 24(%[r]), %[lo]\n\t"
        "adox %[hi], %[lo]\n\t"
        "movq %[lo], 24(%[r])\n\t"
        "leaq 32(%[a]), %[a]\n\t"
        "leaq 32(%[r]), %[r]\n\t"
        "leaq -1(%%rcx), %%rcx\n\t" /* lea, jrcxz, mov: none touch the flags */
        "jrcxz 4f\n\t"
        "jmp 3b\n"
        "4:\n\t"
        "movq %[rest], %%rcx\n\t"
        "jrcxz 6f\n"
        "5:\n\t"
        "mulx (%[a]), %[lo], %[hi]\n\t"
        "adcx (%[r]), %[lo]\n\t"
        "adox %[c], %[lo]\n\t"
        "movq %[lo], (%[r])\n\t"
        "movq %[hi], %[c]\n\t"
        "leaq 8(%[a]), %[a]\n\t"
        "leaq 8(%[r]), %[r]\n\t"
        "leaq -1(%%rcx), %%rcx\n\t"
        "jrcxz 6f\n\t"
        "jmp 5b\n"
        "6:\n\t"
        "movl $0, %k[lo]\n\t"
        "adcx %[lo], %[c]\n\t" /* the two pending carries; the sum fits */
        "adox %[lo], %[c]\n\t"
        : [c] "=&r"(c), [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+r"(a), [r] "+r"(r), "+c"(blocks)
        : "d"(x), [rest] "r"(rest)
        : "cc", "memory");
    return c;
}

int sra_cpu_has_adx(void) {
    static int cached = -1;
    if (cached < 0) {
        unsigned a, b, c, d;
        cached = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 8)) /* BMI2 */
                 && (b & (1u << 19));                                      /* ADX */
    }
    return cached;
}

#define SRA_L uint64_t
#define SRA_DL unsigned __int128
#define SRA_LB 64
#define SRA_FN(x) sra_adx_##x
#define SRA_ADDMUL adx_addmul
#include "sra_scalar.h"

const sra_kernel sra_kernel_adx = {"adx", 1, sra_adx_rbits, sra_adx_init, sra_adx_free_state,
                                   sra_adx_pow};
#endif
