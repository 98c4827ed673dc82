/* sra_core.h: constant-time Montgomery exponentiation for one fixed odd modulus.
 *
 * Numbers cross this interface as little-endian byte strings of the modulus'
 * byte length (nbytes); exponents as little-endian byte strings of a common
 * length (ebytes), which fixes the number of squarings and multiplications.
 * Each kernel keeps its own limb representation and Montgomery radix R:
 *
 *   SRA_K_C32     portable C, 32-bit limbs, 64-bit products (every target)
 *   SRA_K_C64     portable C, 64-bit limbs, unsigned __int128 products
 *   SRA_K_ADX     the same with x86-64 mulx/adcx/adox rows (BMI2 + ADX CPUs)
 *   SRA_K_IFMA    x86-64 AVX-512 IFMA, 52-bit digits, one number per call
 *   SRA_K_IFMA8   x86-64 AVX-512 IFMA, 52-bit digits, 8 numbers in 8 lanes
 *   SRA_K_A64     aarch64: 8-row passes in assembly, 8-limb blocks (every aarch64 CPU)
 *   SRA_K_NEON    32-bit ARM NEON: 28-bit digits, vmlal.u32 on 64-bit columns (CPUs with NEON)
 *
 * The Python boundary (sra.pyx) chooses the kernels with sra_plan, computes
 * R^2 mod m for each (one big-int division, done once per context) and calls
 * sra_pow_batch, which may run without the GIL.
 */
#ifndef SRA_CORE_H
#define SRA_CORE_H

#include <stddef.h>
#include <stdint.h>

enum { SRA_K_C32 = 0, SRA_K_C64 = 1, SRA_K_IFMA = 2, SRA_K_IFMA8 = 3, SRA_K_ADX = 4, SRA_K_A64 = 5,
       SRA_K_NEON = 6 };

/* A kernel: init/free per context, and pow over at most `lanes` numbers. */
typedef struct sra_kernel {
    const char *name;
    int lanes;
    /* Montgomery radix R = 2^rbits for an nbytes-byte modulus. */
    size_t (*rbits)(size_t nbytes);
    /* m and r2 = R^2 mod m are nbytes little-endian; NULL when out of memory. */
    void *(*init)(const uint8_t *m, const uint8_t *r2, size_t nbytes);
    void (*free)(void *state);
    /* out[i] = bases[i]^exps[i] mod m for i < count <= lanes; bases and out are
     * count * nbytes; exps[i] starts at exps + i * estride (estride 0: one shared
     * exponent) and is ebytes long. Returns 0, or -1 when out of memory. */
    int (*pow)(const void *state, const uint8_t *bases, const uint8_t *exps, size_t estride,
               size_t ebytes, size_t count, uint8_t *out);
} sra_kernel;

/* Is kernel `id` compiled in and supported by this CPU? */
int sra_kernel_available(int id);
const char *sra_kernel_name(int id);
size_t sra_kernel_rbits(int id, size_t nbytes);

/* Kernels for a context: request -1 = best available, otherwise a kernel id
 * used for everything (SRA_K_IFMA8 pairs with SRA_K_IFMA). Writes the single
 * and batch kernel ids; returns -1 when the request is not available. */
int sra_plan(int request, size_t nbytes, int *single_id, int *batch_id);

typedef struct sra_ctx sra_ctx;

sra_ctx *sra_ctx_new(int single_id, int batch_id, const uint8_t *m, const uint8_t *r2_single,
                     const uint8_t *r2_batch, size_t nbytes);
void sra_ctx_free(sra_ctx *ctx);

/* count exponentiations over `threads` POSIX threads (1: the calling thread);
 * work a thread could not be started for is done on the calling thread.
 * Same layout as sra_kernel.pow. Returns 0, or -1 when out of memory. */
int sra_pow_batch(const sra_ctx *ctx, const uint8_t *bases, const uint8_t *exps, size_t estride,
                  size_t ebytes, size_t count, uint8_t *out, int threads);

/* Jacobi symbol (a/n) for odd n > 0 and 0 <= a < n, both nbytes little-endian.
 * Public inputs: variable time. Returns -1, 0 or 1; -2 when out of memory.
 * sra_jacobi_binary is the bit-at-a-time algorithm sra_jacobi falls back on. */
int sra_jacobi(const uint8_t *a, const uint8_t *n, size_t nbytes);
int sra_jacobi_binary(const uint8_t *a, const uint8_t *n, size_t nbytes);

/* Window width for an exponent of ebits bits (public). */
int sra_window(size_t ebits);

/* Bits [pos, pos + w) of the little-endian exponent e of ebytes bytes (bits past
 * the end are 0). The position is public; the bits are not, and are only
 * combined with shifts and masks. */
static inline unsigned sra_ewindow(const uint8_t *e, size_t ebytes, size_t pos, int w) {
    unsigned v = 0;
    for (int t = 0; t < w; t++) {
        size_t p = pos + (size_t)t;
        if ((p >> 3) < ebytes) /* public: depends on the position only */
            v |= (unsigned)((e[p >> 3] >> (p & 7)) & 1) << t;
    }
    return v;
}

/* All-ones when a == b, else 0, without a branch (a, b < 2^31). */
static inline uint64_t sra_ct_eq_mask(unsigned a, unsigned b) {
    uint64_t x = (uint64_t)(a ^ b);
    unsigned bit = (unsigned)((x - 1) >> 63);
#if defined(__GNUC__)
    __asm__("" : "+r"(bit)); /* hide the value so the compiler cannot branch on it */
#endif
    return (uint64_t)0 - (uint64_t)bit;
}

extern const sra_kernel sra_kernel_c32;
#if defined(__SIZEOF_INT128__)
extern const sra_kernel sra_kernel_c64;
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__SIZEOF_INT128__) && !defined(SRA_NO_ADX)
#define SRA_HAVE_ADX 1
extern const sra_kernel sra_kernel_adx;
int sra_cpu_has_adx(void);
#endif
#if defined(__aarch64__) && defined(__GNUC__) && defined(__SIZEOF_INT128__) && !defined(SRA_NO_A64)
#define SRA_HAVE_A64 1
extern const sra_kernel sra_kernel_a64;
#endif
/* 32-bit ARM with a floating-point ABI (NEON needs the VFP registers): sra_neon.c is
 * built with NEON, everything else without; the kernel is offered when the CPU has it. */
#if defined(__arm__) && !defined(__aarch64__) && defined(__GNUC__) && !defined(__SOFTFP__) && \
    defined(__ARM_ARCH) && __ARM_ARCH >= 7 && !defined(SRA_NO_NEON)
#define SRA_HAVE_NEON 1
extern const sra_kernel sra_kernel_neon;
int sra_cpu_has_neon(void);
/* The largest modulus (bytes) the NEON kernel's 64-bit columns hold. */
size_t sra_neon_max_nbytes(void);
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(SRA_NO_IFMA)
#define SRA_HAVE_IFMA 1
extern const sra_kernel sra_kernel_ifma;
extern const sra_kernel sra_kernel_ifma8;
int sra_cpu_has_ifma(void);
#endif

#endif
