/* Monte-Carlo blackjack simulator (see handeval_sim.h). */
#define _POSIX_C_SOURCE 199309L
#include "handeval_sim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint64_t s[4];
} xoshiro;

static uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t xo_next(xoshiro *g) {
    uint64_t *s = g->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* 32-bit random numbers, two per xoshiro step */
typedef struct {
    xoshiro g;
    uint64_t buf;
    int have;
} rng32;

static inline uint32_t r32(rng32 *g) {
    if (g->have) {
        g->have = 0;
        return (uint32_t)g->buf;
    }
    g->buf = xo_next(&g->g);
    g->have = 1;
    return (uint32_t)(g->buf >> 32);
}

/* uniform in [0, n) (Lemire's multiply-shift with rejection: no modulo bias) */
static inline uint32_t below(rng32 *g, uint32_t n) {
    uint64_t m = (uint64_t)r32(g) * n;
    uint32_t l = (uint32_t)m;
    if (l < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (l < t) {
            m = (uint64_t)r32(g) * n;
            l = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

typedef struct {
    const bj_rules *r;
    const unsigned char *act2, *multi;
    int decks;
    double pen;
    unsigned long long hands;
    uint64_t seed;
    double total, total_sq, ins, bust;
    int fail;
} simjob;

typedef struct {
    unsigned char *cards;
    int n, cut;
} shoe_t;

/* The shoe is shuffled lazily: each card dealt is drawn uniformly from the cards not
 * yet dealt (an incremental Fisher-Yates), so a reshuffle is just pos = 0 and only
 * the cards actually dealt cost a random number.
 * restrict: the card bytes alias nothing else, so the compiler may keep the shoe's
 * and the generator's state in registers across the byte stores */
static inline int draw_(unsigned char *restrict cards, int *restrict pos, int n,
                        rng32 *restrict g) {
    int i = *pos;
    if (i >= n) i = 0; /* ran dry mid-round (tiny shoes only) */
    *pos = i + 1;
    int j = i + (int)below(g, (uint32_t)(n - i));
    unsigned char c = cards[j];
    cards[j] = cards[i];
    cards[i] = c;
    return c;
}

#define draw(S) draw_(cards, &pos, n_cards, &g)

typedef struct {
    int hard, aces, n, sevens, first, second;
    double stake;
    int done; /* 0 live, 1 busted, 2 paid (triple seven), 3 standing */
} hand_t;

static inline int htot(const hand_t *h, int *soft) {
    *soft = h->aces && h->hard + 10 <= 21;
    return *soft ? h->hard + 10 : h->hard;
}

static inline void add(hand_t *h, int c) {
    h->hard += c + 1;
    h->aces += c == 0;
    h->sevens += c == 6;
    if (h->n == 0) h->first = c;
    if (h->n == 1) h->second = c;
    h->n++;
}

static int dbl_ok(const bj_rules *r, const hand_t *h) {
    int soft, t = htot(h, &soft);
    if (h->n != 2) return 0;
    if (r->double_on == 0) return 1;
    if (soft) return 0;
    return r->double_on == 1 ? (t >= 9 && t <= 11) : (t >= 10 && t <= 11);
}

static void *sim_worker(void *arg) {
    simjob *J = arg;
    const bj_rules *r = J->r;
    rng32 g;
    uint64_t sm = J->seed;
    for (int i = 0; i < 4; i++) g.g.s[i] = splitmix64(&sm);
    g.have = 0;
    shoe_t s;
    s.n = 52 * J->decks;
    s.cards = malloc((size_t)s.n);
    if (!s.cards) {
        J->fail = 1;
        return NULL;
    }
    int k = 0;
    for (int d = 0; d < J->decks; d++)
        for (int c = 0; c < 52; c++) {
            int rank = c / 4; /* 0 ace .. 12 king */
            s.cards[k++] = (unsigned char)(rank >= 9 ? 9 : rank);
        }
    s.cut = (int)(J->pen * s.n);
    unsigned char *restrict cards = s.cards;
    const int n_cards = s.n, cut = s.cut;
    int pos = 0;
    const int M = r->max_hands;
    const int h17 = r->h17, t7 = r->triple_seven;
    unsigned char pidx[BJ_NRANK][BJ_NRANK];
    for (int a = 0; a < BJ_NRANK; a++)
        for (int b = 0; b < BJ_NRANK; b++) pidx[a][b] = (unsigned char)bj_pair_index(a, b);
    double tot = 0, tsq = 0, ins = 0, bust = 0;
    hand_t hs[8];
    for (unsigned long long round = 0; round < J->hands; round++) {
        if (pos >= cut) pos = 0; /* the cut card: reshuffle (lazily) */
        int p1 = draw(&s), up = draw(&s), p2 = draw(&s);
        int hole = -1;
        int peek = !r->enhc;
        if (peek) hole = draw(&s);
        double res = 0;
        int dealer_bj_possible = (up == 0 || up == 9);
        /* insurance on every ace (separate bet, 2:1) */
        int pnat = (p1 == 0 && p2 == 9) || (p1 == 9 && p2 == 0);
        if (peek) {
            int dbj = dealer_bj_possible && ((up == 0 && hole == 9) || (up == 9 && hole == 0));
            if (up == 0) ins += dbj ? 2.0 : -1.0;
            if (dbj) {
                res = pnat ? 0.0 : -1.0;
                bust -= 1.0;
                tot += res;
                tsq += res * res;
                continue;
            }
        }
        int nh = 1;
        memset(&hs[0], 0, sizeof(hand_t));
        hs[0].stake = 1;
        add(&hs[0], p1);
        add(&hs[0], p2);
        int natural_paid = 0;
        if (pnat) {
            natural_paid = 1;
            hs[0].done = 3;
        }
        double surrendered = 0;
        for (int h = 0; h < nh && !natural_paid; h++) {
            hand_t *H = &hs[h];
            int split = nh > 1 || H->n == 1;
            if (H->n == 1) add(H, draw(&s)); /* second card of a split hand */
            int pair_rank = split ? hs[0].first : -1;
            for (;;) {
                int soft, t = htot(H, &soft);
                if (t > 21) {
                    H->done = 1;
                    break;
                }
                if (t7 && H->sevens == 3 && H->n == 3) {
                    H->done = 2;
                    break;
                }
                if (t == 21) {
                    H->done = 3;
                    break;
                }
                int act = BJ_STAND;
                if (H->n == 2) {
                    int one_card = split && pair_rank == 0 && !r->hsa;
                    if (one_card && !(H->first == 0 && H->second == 0 && r->rsa && nh < M)) {
                        H->done = 3;
                        break;
                    }
                    const unsigned char *pref = J->act2 + ((size_t)up * BJ_NPAIRS +
                                                           pidx[H->first][H->second]) * 5;
                    for (int j = 0; j < 5; j++) {
                        int a = pref[j];
                        if (a == 255) break;
                        if (a == BJ_STAND) { act = a; break; }
                        if (a == BJ_HIT) {
                            if (one_card) continue;
                            act = a;
                            break;
                        }
                        if (a == BJ_DOUBLE) {
                            if (one_card || (split && !r->das) || !dbl_ok(r, H)) continue;
                            act = a;
                            break;
                        }
                        if (a == BJ_SPLIT) {
                            int lim = (H->first == 0 && !r->rsa) ? (split ? 0 : 2) : M;
                            if (H->first != H->second || nh >= lim || nh >= 8) continue;
                            /* split by rank: two ten-valued cards of different ranks
                             * are not a pair (the shoe only holds values; draw the
                             * ranks: same rank with probability 1/4 as the tens are
                             * spread evenly) */
                            if (r->split_by_rank && H->first == 9 && below(&g, 4) != 0)
                                continue;
                            act = a;
                            break;
                        }
                        if (a == BJ_SURRENDER) {
                            if (split || (!peek && !r->obo) || !r->surrender) continue;
                            act = a;
                            break;
                        }
                    }
                } else {
                    act = J->multi[((size_t)up * 2 + soft) * 32 + t] ? BJ_HIT : BJ_STAND;
                }
                if (act == BJ_STAND) {
                    H->done = 3;
                    break;
                } else if (act == BJ_HIT) {
                    add(H, draw(&s));
                } else if (act == BJ_DOUBLE) {
                    H->stake *= 2;
                    add(H, draw(&s));
                    int soft2, t2 = htot(H, &soft2);
                    if (t2 > 21)
                        H->done = 1;
                    else if (r->triple_seven && H->n == 3 && H->sevens == 3)
                        H->done = 2;
                    else
                        H->done = 3;
                    break;
                } else if (act == BJ_SURRENDER) {
                    surrendered = 1;
                    H->done = 4;
                    break;
                } else { /* split: this hand keeps the first card, a new one gets the other */
                    hand_t *N = &hs[nh++];
                    memset(N, 0, sizeof *N);
                    N->stake = 1;
                    add(N, H->first);
                    int c = H->first;
                    memset(H, 0, sizeof *H);
                    H->stake = 1;
                    add(H, c);
                    add(H, draw(&s));
                    split = 1;
                    pair_rank = c;
                }
            }
        }
        if (!peek) hole = draw(&s);
        int dbj = (up == 0 && hole == 9) || (up == 9 && hole == 0);
        if (!peek && up == 0) ins += dbj ? 2.0 : -1.0;
        /* the dealer always plays his hand out (the dealer-busts bet stays live) */
        int dhard = up + hole + 2, dace = (up == 0) | (hole == 0);
        int dsoft = dace && dhard + 10 <= 21, dt = dsoft ? dhard + 10 : dhard;
        if (!dbj) {
            while (dt < 17 || (h17 && dsoft && dt == 17)) {
                int c = draw(&s);
                dhard += c + 1;
                dace |= c == 0;
                dsoft = dace && dhard + 10 <= 21;
                dt = dsoft ? dhard + 10 : dhard;
            }
        }
        bust += dt > 21 ? 2.5 : -1.0;
        if (surrendered) { /* ENHC original bets only: as if after the peek */
            res = dbj ? -1.0 : -0.5;
        } else if (natural_paid) {
            res = dbj ? 0.0 : r->bj_pays;
        } else if (dbj) { /* ENHC: the dealer's natural */
            if (r->obo) {
                res = -1.0;
                for (int h = 0; h < nh; h++)
                    if (hs[h].done == 2) res += 1.5 * hs[h].stake + (nh > 1 ? 0 : 1);
            } else {
                for (int h = 0; h < nh; h++)
                    res += hs[h].done == 2 ? 1.5 * hs[h].stake : -hs[h].stake;
            }
        } else {
            for (int h = 0; h < nh; h++) {
                hand_t *H = &hs[h];
                if (H->done == 1) {
                    res -= H->stake;
                } else if (H->done == 2) {
                    res += 1.5 * H->stake;
                } else {
                    int soft, t = htot(H, &soft);
                    if (dt > 21 || t > dt)
                        res += H->stake;
                    else if (t < dt)
                        res -= H->stake;
                }
            }
        }
        tot += res;
        tsq += res * res;
    }
    free(s.cards);
    J->total = tot;
    J->total_sq = tsq;
    J->ins = ins;
    J->bust = bust;
    return NULL;
}

int bj_simulate(const bj_rules *r, int decks, double penetration, const unsigned char *act2,
                const unsigned char *multi, unsigned long long hands, unsigned long long seed,
                int threads, bj_sim_result *out) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (threads < 1) threads = 1;
    if (threads > 256) threads = 256;
    simjob *jobs = calloc((size_t)threads, sizeof(simjob));
    pthread_t *tid = calloc((size_t)threads, sizeof(pthread_t));
    if (!jobs || !tid) {
        free(jobs);
        free(tid);
        return -1;
    }
    uint64_t sm = seed;
    for (int t = 0; t < threads; t++) {
        jobs[t].r = r;
        jobs[t].act2 = act2;
        jobs[t].multi = multi;
        jobs[t].decks = decks;
        jobs[t].pen = penetration;
        jobs[t].hands = hands / threads + ((unsigned long long)t < hands % threads);
        jobs[t].seed = splitmix64(&sm);
    }
    int started = 0, fail = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[t], NULL, sim_worker, &jobs[t]) != 0) {
            fail = 1;
            break;
        }
        started = t;
    }
    if (!fail) sim_worker(&jobs[0]);
    for (int t = 1; t <= started; t++) pthread_join(tid[t], NULL);
    memset(out, 0, sizeof *out);
    for (int t = 0; t < threads; t++) {
        if (jobs[t].fail) fail = 1;
        out->total += jobs[t].total;
        out->total_sq += jobs[t].total_sq;
        out->insurance_total += jobs[t].ins;
        out->bust_bet_total += jobs[t].bust;
    }
    out->hands = out->rounds = (double)hands;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    free(jobs);
    free(tid);
    return fail ? -1 : 0;
}
