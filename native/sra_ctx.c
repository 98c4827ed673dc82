/* sra_ctx.c: kernel choice, contexts and the threaded batch driver. */
#include <stdlib.h>
#include <string.h>

#if !defined(_WIN32)
#include <pthread.h>
#define SRA_THREADS 1
#endif

#include "sra_core.h"

#if defined(SRA_HAVE_NEON) && defined(__linux__) /* Linux and Android */
#include <sys/auxv.h>
#ifndef HWCAP_NEON
#define HWCAP_NEON (1 << 12) /* the kernel's bit for ARM; glibc calls it HWCAP_ARM_NEON */
#endif
/* Here, not in sra_neon.c, which is built for NEON: this runs on any ARM CPU. */
int sra_cpu_has_neon(void) { return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0; }
#elif defined(SRA_HAVE_NEON)
int sra_cpu_has_neon(void) { return 0; } /* no way to ask: the portable kernel */
#endif

/* More threads than this only cost memory and start-up time. */
#define SRA_MAX_THREADS 256

static const sra_kernel *kernel_of(int id) {
    switch (id) {
    case SRA_K_C32: return &sra_kernel_c32;
#if defined(__SIZEOF_INT128__)
    case SRA_K_C64: return &sra_kernel_c64;
#endif
#if defined(SRA_HAVE_ADX)
    case SRA_K_ADX: return sra_cpu_has_adx() ? &sra_kernel_adx : NULL;
#endif
#if defined(SRA_HAVE_A64)
    case SRA_K_A64: return &sra_kernel_a64;
#endif
#if defined(SRA_HAVE_NEON)
    case SRA_K_NEON: return sra_cpu_has_neon() ? &sra_kernel_neon : NULL;
#endif
#if defined(SRA_HAVE_IFMA)
    case SRA_K_IFMA: return sra_cpu_has_ifma() ? &sra_kernel_ifma : NULL;
    case SRA_K_IFMA8: return sra_cpu_has_ifma() ? &sra_kernel_ifma8 : NULL;
#endif
    default: return NULL;
    }
}

int sra_kernel_available(int id) { return kernel_of(id) != NULL; }

const char *sra_kernel_name(int id) {
    const sra_kernel *k = kernel_of(id);
    return k ? k->name : "";
}

size_t sra_kernel_rbits(int id, size_t nbytes) {
    const sra_kernel *k = kernel_of(id);
    return k ? k->rbits(nbytes) : 0;
}

/* The IFMA kernels hold up to 64 digits of 52 bits (4m < R): 415 bytes. */
#define IFMA_MAX_NBYTES 415
/* Below this size the portable 64-bit kernel is as fast. */
#define IFMA_MIN_NBYTES 32

int sra_plan(int request, size_t nbytes, int *single_id, int *batch_id) {
    if (request >= 0) {
        if (!sra_kernel_available(request)) return -1;
        if ((request == SRA_K_IFMA || request == SRA_K_IFMA8) && nbytes > IFMA_MAX_NBYTES) return -1;
#if defined(SRA_HAVE_NEON)
        if (request == SRA_K_NEON && nbytes > sra_neon_max_nbytes()) return -1;
#endif
        *single_id = request == SRA_K_IFMA8 ? SRA_K_IFMA : request;
        *batch_id = request;
        return 0;
    }
#if defined(SRA_HAVE_IFMA)
    if (sra_kernel_available(SRA_K_IFMA) && nbytes >= IFMA_MIN_NBYTES && nbytes <= IFMA_MAX_NBYTES) {
        *single_id = SRA_K_IFMA;
        *batch_id = SRA_K_IFMA8;
        return 0;
    }
#endif
#if defined(SRA_HAVE_ADX)
    if (sra_kernel_available(SRA_K_ADX)) {
        *single_id = *batch_id = SRA_K_ADX;
        return 0;
    }
#endif
#if defined(SRA_HAVE_NEON)
    if (sra_kernel_available(SRA_K_NEON) && nbytes <= sra_neon_max_nbytes()) {
        *single_id = *batch_id = SRA_K_NEON;
        return 0;
    }
#endif
#if defined(SRA_HAVE_A64)
    *single_id = *batch_id = SRA_K_A64;
#elif defined(__SIZEOF_INT128__)
    *single_id = *batch_id = SRA_K_C64;
#else
    *single_id = *batch_id = SRA_K_C32;
#endif
    return 0;
}

int sra_window(size_t ebits) {
    /* table of 2^w entries against ebits/w multiplications */
    if (ebits <= 16) return 2;
    if (ebits <= 128) return 3;
    if (ebits <= 640) return 4;
    if (ebits <= 2560) return 5;
    return 6;
}

struct sra_ctx {
    const sra_kernel *single, *batch;
    void *single_state, *batch_state;
    size_t nbytes;
    size_t tail_max; /* part-full lane groups of up to this many go one by one */
};

sra_ctx *sra_ctx_new(int single_id, int batch_id, const uint8_t *m, const uint8_t *r2_single,
                     const uint8_t *r2_batch, size_t nbytes) {
    sra_ctx *c = (sra_ctx *)calloc(1, sizeof *c);
    if (!c) return NULL;
    c->single = kernel_of(single_id);
    c->batch = kernel_of(batch_id);
    c->nbytes = nbytes;
    /* Measured with the IFMA kernels: a group of 8 costs about 2.5 single
     * operations up to 1200 bits, about 6-7 at 2048 and 3072 bits (the single
     * kernel keeps everything in registers there). */
    c->tail_max = nbytes <= 150 ? 2 : 5;
    if (!c->single || !c->batch) goto fail;
    c->single_state = c->single->init(m, r2_single, nbytes);
    if (!c->single_state) goto fail;
    if (c->batch == c->single) {
        c->batch_state = c->single_state;
    } else {
        c->batch_state = c->batch->init(m, r2_batch, nbytes);
        if (!c->batch_state) goto fail;
    }
    return c;
fail:
    sra_ctx_free(c);
    return NULL;
}

void sra_ctx_free(sra_ctx *c) {
    if (!c) return;
    if (c->batch_state && c->batch_state != c->single_state) c->batch->free(c->batch_state);
    if (c->single_state) c->single->free(c->single_state);
    free(c);
}

/* One thread's share: elements [lo, hi). Lane groups go to the batch kernel;
 * a short tail goes one by one to the single kernel when that is cheaper than
 * a part-empty lane group (see tail_max). */
typedef struct {
    const sra_ctx *c;
    const uint8_t *bases, *exps;
    size_t estride, ebytes, lo, hi;
    uint8_t *out;
    int rc;
} job;

static int run_range(const sra_ctx *c, const uint8_t *bases, const uint8_t *exps, size_t estride,
                     size_t ebytes, size_t lo, size_t hi, uint8_t *out) {
    size_t nb = c->nbytes, lanes = (size_t)c->batch->lanes, i = lo;
    while (i < hi) {
        size_t n = hi - i;
        const sra_kernel *k = c->batch;
        const void *st = c->batch_state;
        if (lanes > 1 && n <= c->tail_max) {
            k = c->single;
            st = c->single_state;
        }
        if (n > (size_t)k->lanes) n = (size_t)k->lanes;
        if (k->pow(st, bases + i * nb, exps + i * estride, estride, ebytes, n, out + i * nb))
            return -1;
        i += n;
    }
    return 0;
}

#if defined(SRA_THREADS)
static void *run_job(void *p) {
    job *j = (job *)p;
    j->rc = run_range(j->c, j->bases, j->exps, j->estride, j->ebytes, j->lo, j->hi, j->out);
    return NULL;
}
#endif

int sra_pow_batch(const sra_ctx *c, const uint8_t *bases, const uint8_t *exps, size_t estride,
                  size_t ebytes, size_t count, uint8_t *out, int threads) {
    if (count == 0) return 0;
    if (threads < 1) threads = 1;
    if (threads > SRA_MAX_THREADS) threads = SRA_MAX_THREADS;
    if ((size_t)threads > count) threads = (int)count;
#if defined(SRA_THREADS)
    if (threads > 1) {
        job *jobs = (job *)calloc((size_t)threads, sizeof(job));
        pthread_t *tids = (pthread_t *)calloc((size_t)threads, sizeof(pthread_t));
        int rc = 0;
        if (!jobs || !tids) {
            free(jobs);
            free(tids);
            return run_range(c, bases, exps, estride, ebytes, 0, count, out);
        }
        for (int t = 0; t < threads; t++) {
            jobs[t] = (job){c, bases, exps, estride, ebytes, count * (size_t)t / (size_t)threads,
                            count * (size_t)(t + 1) / (size_t)threads, out, 0};
        }
        int started = 0;
        /* thread 0's share runs on the calling thread */
        for (int t = 1; t < threads; t++) {
            if (pthread_create(&tids[t], NULL, run_job, &jobs[t]) != 0) break;
            started = t;
        }
        run_job(&jobs[0]);
        for (int t = 1; t <= started; t++) pthread_join(tids[t], NULL);
        for (int t = started + 1; t < threads; t++) run_job(&jobs[t]); /* not started: do it here */
        for (int t = 0; t < threads; t++) rc |= jobs[t].rc;
        free(jobs);
        free(tids);
        return rc ? -1 : 0;
    }
#endif
    return run_range(c, bases, exps, estride, ebytes, 0, count, out);
}
