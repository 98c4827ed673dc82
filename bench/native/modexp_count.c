/* modexp_count.c: one 2048-bit modexp workload for instruction counting, ours and the peers'.
 *
 *   modexp_count MODE REPS [INPUT]
 *
 * MODE is sra-<kernel> (native/sra_*.c, any kernel this CPU runs), batch-<kernel> (52 values
 * with one exponent over 4 POSIX threads through sra_pow_batch, the driver behind
 * MontContext.pow_batch: the batch spread of tools/armcount.py), gmp (mpz_powm), gmp-sec
 * (mpz_powm_sec), openssl (BN_mod_exp_mont_consttime), jacobi-sra or jacobi-gmp (52 Jacobi
 * symbols of 2048-bit values modulo ffdhe2048 per rep). REPS exponentiations (or Jacobi
 * batches) run after the set-up, so the count of a REPS run minus that of a 0 run, over
 * REPS, is the cost of one (tools/armcount.py does that). INPUT 0 or 1 picks one of two
 * base/exponent pairs of the same size: the constant-time trace check (tools/armcount.py
 * trace) records the sra run between ct_trace_begin and ct_trace_end for both and compares;
 * -DCT_LEAK_BRANCH or -DCT_LEAK_INDEX plant a secret-dependent branch or table index there.
 * Peers are compiled in with -DWITH_GMP / -DWITH_OPENSSL; modexp_data.h (ffdhe2048, R^2 mod
 * m, the inputs and the expected results) is written by bench/native/modexp_data.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modexp_data.h"
#include "sra_core.h"

#if defined(WITH_GMP)
#include <gmp.h>
#endif
#if defined(WITH_OPENSSL)
#include <openssl/bn.h>
#endif

/* The window tools/qemu-plugins/trace.c records (its begin= and end= addresses). */
__attribute__((noinline)) void ct_trace_begin(void) { __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void ct_trace_end(void) { __asm__ volatile("" ::: "memory"); }

/* The secret inputs, copied here so both inputs are read from the same addresses. */
static uint8_t base_in[NB], exp_in[NB];

static int fail(const char *what) {
    fprintf(stderr, "modexp_count: %s\n", what);
    return 2;
}

/* Big-endian copy of a little-endian number (GMP and OpenSSL import big-endian). */
static void reverse(uint8_t *dst, const uint8_t *src, size_t n) {
    for (size_t i = 0; i < n; i++) dst[i] = src[n - 1 - i];
}

/* R^2 mod m for a kernel's radix R = 2^rbits (modexp_data.h has each kernel's). */
static const uint8_t *r2_for(int id) {
    for (size_t i = 0; i < sizeof R2_RBITS / sizeof R2_RBITS[0]; i++)
        if (R2_RBITS[i] == sra_kernel_rbits(id, NB)) return R2S[i];
    return NULL;
}

/* The context for a kernel named `name`, or NULL (and a message) when there is none. */
static sra_ctx *sra_context(const char *name) {
    for (int id = 0; id < 16; id++) {
        if (!sra_kernel_available(id) || strcmp(sra_kernel_name(id), name) != 0) continue;
        int single, batch;
        if (sra_plan(id, NB, &single, &batch) != 0 || !r2_for(single) || !r2_for(batch)) break;
        sra_ctx *ctx = sra_ctx_new(single, batch, M, r2_for(single), r2_for(batch), NB);
        if (!ctx) fail("out of memory");
        return ctx;
    }
    fail("no such kernel on this CPU (or no R^2 for its radix)");
    return NULL;
}

static int run_batch(const char *name, long reps) {
    static uint8_t out[NJAC][NB];
    sra_ctx *ctx = sra_context(name);
    if (!ctx) return 2;
    for (long r = 0; r < reps; r++)
        if (sra_pow_batch(ctx, JAC[0], EXPS[0], 0, NB, NJAC, out[0], 4) != 0)
            return fail("out of memory");
    sra_ctx_free(ctx);
    if (reps > 0 && memcmp(out, BATCH_WANT, sizeof out) != 0) return fail("wrong batch result");
    return 0;
}

static int run_sra(const char *name, long reps, int input) {
    sra_ctx *ctx = sra_context(name);
    if (!ctx) return 2;
    uint8_t out[NB];
    memcpy(base_in, BASES[input], NB);
    memcpy(exp_in, EXPS[input], NB);
    ct_trace_begin();
    for (long r = 0; r < reps; r++)
        if (sra_pow_batch(ctx, base_in, exp_in, 0, NB, 1, out, 1) != 0) return fail("out of memory");
#if defined(CT_LEAK_BRANCH) /* planted leaks: the trace check must see them */
    if (exp_in[1] & 4) puts("a secret-dependent branch");
#elif defined(CT_LEAK_INDEX)
    static volatile uint8_t table[16];
    table[exp_in[0] & 15]++;
#endif
    ct_trace_end();
    sra_ctx_free(ctx);
    if (reps > 0 && memcmp(out, WANT[input], NB) != 0) return fail("wrong result");
    printf("sra-%s ok\n", name);
    return 0;
}

static int run_sra_jacobi(void) {
    int sum = 0;
    for (int i = 0; i < NJAC; i++) sum += sra_jacobi(JAC[i], M, NB);
    if (sum != JAC_SUM) return fail("wrong Jacobi symbols");
    return 0;
}

#if defined(WITH_GMP)
static void gmp_import(mpz_t x, const uint8_t *le) { mpz_import(x, NB, -1, 1, 0, 0, le); }

static int run_gmp(long reps, int input, int sec) {
    mpz_t m, b, e, r, want;
    mpz_inits(m, b, e, r, want, NULL);
    gmp_import(m, M);
    gmp_import(b, BASES[input]);
    gmp_import(e, EXPS[input]);
    gmp_import(want, WANT[input]);
    for (long i = 0; i < reps; i++) (sec ? mpz_powm_sec : mpz_powm)(r, b, e, m);
    int ok = reps == 0 || mpz_cmp(r, want) == 0;
    mpz_clears(m, b, e, r, want, NULL);
    return ok ? 0 : fail("wrong GMP result");
}

static int run_gmp_jacobi(void) {
    mpz_t m, a;
    int sum = 0;
    mpz_inits(m, a, NULL);
    gmp_import(m, M);
    for (int i = 0; i < NJAC; i++) {
        gmp_import(a, JAC[i]);
        sum += mpz_jacobi(a, m);
    }
    mpz_clears(m, a, NULL);
    return sum == JAC_SUM ? 0 : fail("wrong GMP Jacobi symbols");
}
#endif

#if defined(WITH_OPENSSL)
static int run_openssl(long reps, int input) {
    uint8_t be[NB];
    BN_CTX *bc = BN_CTX_new();
    BN_MONT_CTX *mont = BN_MONT_CTX_new();
    BIGNUM *m = BN_new(), *b = BN_new(), *e = BN_new(), *r = BN_new(), *want = BN_new();
    reverse(be, M, NB);
    BN_bin2bn(be, NB, m);
    reverse(be, BASES[input], NB);
    BN_bin2bn(be, NB, b);
    reverse(be, EXPS[input], NB);
    BN_bin2bn(be, NB, e);
    reverse(be, WANT[input], NB);
    BN_bin2bn(be, NB, want);
    BN_set_flags(e, BN_FLG_CONSTTIME);
    BN_MONT_CTX_set(mont, m, bc);
    int ok = 1;
    for (long i = 0; i < reps; i++) ok &= BN_mod_exp_mont_consttime(r, b, e, m, bc, mont);
    ok = ok && (reps == 0 || BN_cmp(r, want) == 0);
    BN_free(m), BN_free(b), BN_free(e), BN_free(r), BN_free(want);
    BN_MONT_CTX_free(mont);
    BN_CTX_free(bc);
    return ok ? 0 : fail("wrong OpenSSL result");
}
#endif

int main(int argc, char **argv) {
    if (argc < 3) return fail("usage: modexp_count MODE REPS [INPUT]");
    const char *mode = argv[1];
    long reps = strtol(argv[2], NULL, 10);
    int input = argc > 3 ? atoi(argv[3]) : 0;
    if (input < 0 || input > 1 || reps < 0) return fail("bad REPS or INPUT");
    if (strncmp(mode, "sra-", 4) == 0) return run_sra(mode + 4, reps, input);
    if (strncmp(mode, "batch-", 6) == 0) return run_batch(mode + 6, reps);
    if (strcmp(mode, "jacobi-sra") == 0) {
        for (long r = 0; r < reps; r++)
            if (run_sra_jacobi()) return 2;
        return 0;
    }
#if defined(WITH_GMP)
    if (strcmp(mode, "gmp") == 0) return run_gmp(reps, input, 0);
    if (strcmp(mode, "gmp-sec") == 0) return run_gmp(reps, input, 1);
    if (strcmp(mode, "jacobi-gmp") == 0) {
        for (long r = 0; r < reps; r++)
            if (run_gmp_jacobi()) return 2;
        return 0;
    }
#endif
#if defined(WITH_OPENSSL)
    if (strcmp(mode, "openssl") == 0) return run_openssl(reps, input);
#endif
    (void)reverse;
    return fail("unknown mode (or its library not compiled in)");
}
