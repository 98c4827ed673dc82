/* Exact blackjack analysis (see handeval_analysis.h).
 *
 * Dealer: a dynamic programme over the *multisets* of cards the dealer draws
 * (the probability of an ordering depends only on its multiset, and whether a
 * multiset is still drawing depends only on its total), about 1,500 states over
 * all up cards instead of ~60,000 card sequences.  The tree of states per up card
 * is built once.
 *
 * Player: values memoised per multiset of the player's cards (hash table), the
 * dealer distribution cached per multiset of removed cards.
 *
 * Peek is handled exactly in "joint measure": every value is E[payoff * 1{no dealer
 * blackjack}], the player's draws use unconditional probabilities (the hole card is
 * exchangeable with the cards the player draws), and the dealer's distribution
 * drops the blackjack orderings.  Dividing by P(no blackjack) gives the conditional
 * EV the player sees after the peek; comparing actions needs no division.
 */
#include "handeval_analysis.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ dealer tree */

#define DT_MAX 400

typedef struct {
    int n;
    unsigned char used[DT_MAX][BJ_NRANK];
    unsigned char size[DT_MAX];
    short next[DT_MAX][BJ_NRANK]; /* >= 0: node; < 0: -(bucket + 1) */
    /* the same, flattened for the branch-free evaluation: target slot in an array of
     * n nodes followed by the 7 buckets and a sink (a dropped natural) */
    short slot[DT_MAX][BJ_NRANK];
    short slot_peek[DT_MAX][BJ_NRANK];
    double usedd[DT_MAX][BJ_NRANK];
    int maxsize;
    /* compact form: the edges that do not bust (rank, slot), and the busting ranks,
     * which are always a suffix thr..9 (only hard hands bust, by high cards), folded
     * into one multiply with suffix sums */
    unsigned char ne[DT_MAX];
    unsigned char er[DT_MAX][BJ_NRANK];
    short es[DT_MAX][BJ_NRANK];
    short es_peek[DT_MAX][BJ_NRANK];
    unsigned char thr[DT_MAX];
    double utail[DT_MAX];
} dtree;

static dtree g_trees[2][BJ_NRANK];
static pthread_once_t g_trees_once = PTHREAD_ONCE_INIT;

static int dealer_total(int up, const unsigned char *used, int *soft) {
    int hard = up + 1, ace = (up == 0);
    for (int r = 0; r < BJ_NRANK; r++) {
        hard += (r + 1) * used[r];
        if (r == 0 && used[0]) ace = 1;
    }
    *soft = ace && hard + 10 <= 21;
    return *soft ? hard + 10 : hard;
}

static void build_tree(dtree *t, int up, int h17) {
    memset(t, 0, sizeof *t);
    t->n = 1;
    for (int i = 0; i < t->n; i++) {
        for (int r = 0; r < BJ_NRANK; r++) {
            unsigned char u[BJ_NRANK];
            memcpy(u, t->used[i], BJ_NRANK);
            u[r]++;
            int soft, tot = dealer_total(up, u, &soft);
            if (t->size[i] == 0 && ((up == 0 && r == 9) || (up == 9 && r == 0))) {
                t->next[i][r] = -(BJ_DBJ + 1);
            } else if (tot > 21) {
                t->next[i][r] = -(BJ_DBUST + 1);
            } else if (tot >= 17 && !(h17 && soft && tot == 17)) {
                t->next[i][r] = -(tot - 17 + 1);
            } else {
                int j;
                for (j = 0; j < t->n; j++)
                    if (memcmp(t->used[j], u, BJ_NRANK) == 0) break;
                if (j == t->n) {
                    if (t->n >= DT_MAX) abort(); /* cannot happen: at most 364 states */
                    memcpy(t->used[j], u, BJ_NRANK);
                    t->size[j] = t->size[i] + 1;
                    t->n++;
                }
                t->next[i][r] = (short)j;
            }
        }
    }
    for (int i = 0; i < t->n; i++) {
        for (int r = 0; r < BJ_NRANK; r++) {
            int nx = t->next[i][r];
            t->slot[i][r] = (short)(nx >= 0 ? nx : t->n + (-nx - 1));
            t->slot_peek[i][r] = (short)(nx == -(BJ_DBJ + 1) ? t->n + BJ_NOUT : t->slot[i][r]);
            t->usedd[i][r] = t->used[i][r];
        }
        if (t->size[i] > t->maxsize) t->maxsize = t->size[i];
        int thr = BJ_NRANK;
        while (thr > 0 && t->next[i][thr - 1] == -(BJ_DBUST + 1)) thr--;
        for (int r = 0; r < thr; r++)
            if (t->next[i][r] == -(BJ_DBUST + 1)) abort(); /* busting ranks: a suffix */
        t->thr[i] = (unsigned char)thr;
        t->utail[i] = 0;
        for (int r = thr; r < BJ_NRANK; r++) t->utail[i] += t->used[i][r];
        t->ne[i] = 0;
        for (int r = 0; r < thr; r++) {
            int k = t->ne[i]++;
            t->er[i][k] = (unsigned char)r;
            t->es[i][k] = t->slot[i][r];
            t->es_peek[i][k] = t->slot_peek[i][r];
        }
    }
}

static void build_all_trees(void) {
    for (int h = 0; h < 2; h++)
        for (int up = 0; up < BJ_NRANK; up++) build_tree(&g_trees[h][up], up, h);
}

static const dtree *get_tree(int up, int h17) {
    pthread_once(&g_trees_once, build_all_trees);
    return &g_trees[h17 ? 1 : 0][up];
}

/* Dealer outcome mass from composition c (total N).  drop_bj: leave the blackjack
 * orderings out (peek, joint measure). */
static void dealer_eval(const dtree *t, const double *c, double N, int infinite, int drop_bj,
                        double *out) {
    double f[DT_MAX + BJ_NOUT + 1];
    double inv[32], ctail[BJ_NRANK + 1];
    const int n = t->n;
    memset(f, 0, sizeof(double) * (n + BJ_NOUT + 1));
    for (int s = 0; s <= t->maxsize; s++)
        inv[s] = infinite ? 1.0 / N : (N - s > 0 ? 1.0 / (N - s) : 0);
    ctail[BJ_NRANK] = 0;
    for (int r = BJ_NRANK - 1; r >= 0; r--) ctail[r] = ctail[r + 1] + c[r];
    f[0] = 1.0;
    const short(*es)[BJ_NRANK] = drop_bj ? t->es_peek : t->es;
    double bust = 0;
    /* A reachable state never used more cards of a rank than the shoe holds, so
     * c[r] - used >= 0 wherever f > 0: no clamping needed. */
    for (int i = 0; i < n; i++) {
        const double s = f[i] * inv[t->size[i]];
        if (s == 0.0) continue;
        const unsigned char *er = t->er[i];
        const short *sl = es[i];
        const int ne = t->ne[i];
        if (infinite) {
            for (int k = 0; k < ne; k++) f[sl[k]] += s * c[er[k]];
            bust += s * ctail[t->thr[i]];
        } else {
            const double *u = t->usedd[i];
            for (int k = 0; k < ne; k++) f[sl[k]] += s * (c[er[k]] - u[er[k]]);
            bust += s * (ctail[t->thr[i]] - t->utail[i]);
        }
    }
    memcpy(out, f + n, sizeof(double) * BJ_NOUT);
    out[BJ_DBUST] += bust;
}

void bj_dealer_probs(int up, const double counts[BJ_NRANK], int h17, int peek, int infinite,
                     double out[BJ_NOUT]) {
    double N = 0;
    for (int r = 0; r < BJ_NRANK; r++) N += counts[r];
    if (up < 0 || up >= BJ_NRANK || N <= 0) {
        for (int b = 0; b < BJ_NOUT; b++) out[b] = NAN;
        return;
    }
    dealer_eval(get_tree(up, h17), counts, N, infinite, peek, out);
    if (peek) {
        double s = 0;
        for (int b = 0; b < BJ_NOUT; b++) s += out[b];
        if (s > 0)
            for (int b = 0; b < BJ_NOUT; b++) out[b] /= s;
    }
}

int bj_pair_index(int a, int b) {
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    /* rows a = 0..9, each with 10 - a entries */
    return a * BJ_NRANK - a * (a - 1) / 2 + (b - a);
}

/* ------------------------------------------------------------------ hash table */

typedef struct {
    uint64_t *keys;
    double *vals;
    size_t cap, count;
    int width;
} htab;

#define HT_USED (1ULL << 63)

static int ht_init(htab *h, size_t cap, int width) {
    h->cap = cap;
    h->count = 0;
    h->width = width;
    h->keys = calloc(cap, sizeof(uint64_t));
    h->vals = malloc(cap * width * sizeof(double));
    return h->keys && h->vals ? 0 : -1;
}

static void ht_free(htab *h) {
    free(h->keys);
    free(h->vals);
    h->keys = NULL;
    h->vals = NULL;
}

static void ht_clear(htab *h) {
    memset(h->keys, 0, h->cap * sizeof(uint64_t));
    h->count = 0;
}

static inline size_t ht_hash(uint64_t k, size_t cap) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

static int ht_grow(htab *h);

/* Slot for key (inserted if absent, *found tells); NULL on allocation failure. */
static double *ht_slot(htab *h, uint64_t key, int *found) {
    key |= HT_USED;
    if (2 * (h->count + 1) > h->cap && ht_grow(h)) return NULL;
    size_t i = ht_hash(key, h->cap);
    while (h->keys[i]) {
        if (h->keys[i] == key) {
            *found = 1;
            return h->vals + i * h->width;
        }
        i = (i + 1) & (h->cap - 1);
    }
    h->keys[i] = key;
    h->count++;
    *found = 0;
    return h->vals + i * h->width;
}

static int ht_grow(htab *h) {
    htab n;
    if (ht_init(&n, h->cap * 2, h->width)) {
        ht_free(&n);
        return -1;
    }
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->keys[i]) continue;
        size_t j = ht_hash(h->keys[i], n.cap);
        while (n.keys[j]) j = (j + 1) & (n.cap - 1);
        n.keys[j] = h->keys[i];
        memcpy(n.vals + j * n.width, h->vals + i * h->width, sizeof(double) * h->width);
        n.count++;
    }
    ht_free(h);
    *h = n;
    return 0;
}

/* ------------------------------------------------------------------ player */

typedef struct {
    const bj_rules *r;
    int up;
    const dtree *dt;
    double base[BJ_NRANK]; /* composition the player's cards come from (up card removed) */
    double N;
    int bjrank;  /* hole card rank that gives the dealer a natural, -1 if none */
    int peekm;   /* joint measure with the dealer's naturals left out */
    int bj_in_d; /* ENHC lose-all: natural kept as a dealer outcome */
    int P;       /* rank of the pair being split (-1: none) */
    int ext0;    /* extra pair cards removed in split context (besides hand and k) */
    int oom;
    htab dc, vc, ec; /* dealer, best play (H, k), split play (H, s, e) */
} pctx;

static inline uint64_t pack(const int *H) {
    uint64_t k = 0;
    for (int r = 0; r < BJ_NRANK; r++) k |= (uint64_t)(H[r] & 63) << (6 * r);
    return k;
}

static inline int hand_total(const int *H, int *soft, int *ncards) {
    int hard = 0, n = 0;
    for (int r = 0; r < BJ_NRANK; r++) {
        hard += (r + 1) * H[r];
        n += H[r];
    }
    *ncards = n;
    *soft = H[0] > 0 && hard + 10 <= 21;
    return *soft ? hard + 10 : hard;
}

/* composition after removing R; returns the number of cards */
static inline double comp_of(const pctx *x, const int *R, double *c) {
    double N = x->N;
    if (x->r->infinite) {
        memcpy(c, x->base, sizeof(double) * BJ_NRANK);
        return N;
    }
    for (int r = 0; r < BJ_NRANK; r++) {
        c[r] = x->base[r] - R[r];
        N -= R[r];
    }
    return N;
}

static inline double p_draw(const pctx *x, const int *R, int r) {
    if (x->r->infinite) return x->base[r] / x->N;
    int n = 0;
    for (int i = 0; i < BJ_NRANK; i++) n += R[i];
    double q = x->base[r] - R[r];
    double den = x->N - n;
    return q > 0 && den > 0 ? q / den : 0.0;
}

/* probability that the hole card gives the dealer a natural, given R removed */
static inline double p_bj(const pctx *x, const int *R) {
    return x->bjrank >= 0 ? p_draw(x, R, x->bjrank) : 0.0;
}

static inline double w_of(const pctx *x, const int *R) { return x->peekm ? 1.0 - p_bj(x, R) : 1.0; }

static const double *dealer_for(pctx *x, const int *R) {
    int found;
    /* infinite deck: one composition for every hand */
    double *v = ht_slot(&x->dc, x->r->infinite ? 0 : pack(R), &found);
    if (!v) {
        x->oom = 1;
        return NULL;
    }
    if (!found) {
        double c[BJ_NRANK];
        double N = comp_of(x, R, c);
        dealer_eval(x->dt, c, N, x->r->infinite, !x->bj_in_d, v);
    }
    return v;
}

static double stand_ev(pctx *x, int t, const int *R, double stake) {
    const double *d = dealer_for(x, R);
    if (!d) return 0;
    double e = d[BJ_DBUST];
    for (int b = 0; b < 5; b++) {
        int tot = 17 + b;
        e += t > tot ? d[b] : (t < tot ? -d[b] : 0.0);
    }
    e *= stake;
    if (x->bj_in_d) e -= stake * d[BJ_DBJ];
    return e;
}

static double t7_value(pctx *x, const int *R, double stake, int split) {
    double pb = p_bj(x, R);
    if (x->r->enhc && !x->r->obo) return 1.5 * stake;
    if (x->r->enhc) /* obo: played in joint measure, the root charges -1 on a natural */
        return 1.5 * stake * (1 - pb) + (1.5 * stake + (split ? 0 : 1)) * pb;
    return 1.5 * stake * w_of(x, R);
}

static inline int is777(const int *H) {
    if (H[6] != 3) return 0;
    for (int r = 0; r < BJ_NRANK; r++)
        if (r != 6 && H[r]) return 0;
    return 1;
}

static inline void make_R(const pctx *x, const int *H, int k, int split, int *R) {
    memcpy(R, H, sizeof(int) * BJ_NRANK);
    if (split && x->P >= 0) R[x->P] += x->ext0 + k;
}

/* Value of a hand that may only hit or stand (memoised); also stores stand/hit. */
static double play_v(pctx *x, int *H, int k, int split) {
    int soft, n, R[BJ_NRANK];
    int t = hand_total(H, &soft, &n);
    make_R(x, H, k, split, R);
    if (t > 21) return -w_of(x, R);
    if (x->r->triple_seven && is777(H)) return t7_value(x, R, 1.0, split);
    uint64_t key = pack(H) | (split ? (uint64_t)(k + 1) << 60 : 0);
    int found;
    double *v = ht_slot(&x->vc, key, &found);
    if (!v) {
        x->oom = 1;
        return 0;
    }
    if (found) return v[0];
    double st = stand_ev(x, t, R, 1.0), hit = -INFINITY;
    if (t < 21) {
        hit = 0;
        for (int r = 0; r < BJ_NRANK; r++) {
            double p = p_draw(x, R, r);
            if (p <= 0) continue;
            H[r]++;
            hit += p * play_v(x, H, k, split);
            H[r]--;
        }
    }
    /* the table may have grown: look the slot up again */
    v = ht_slot(&x->vc, key, &found);
    if (!v) {
        x->oom = 1;
        return 0;
    }
    v[0] = st > hit ? st : hit;
    v[1] = st;
    v[2] = hit;
    return v[0];
}

static double hit_v(pctx *x, int *H, int k, int split) {
    int R[BJ_NRANK];
    make_R(x, H, k, split, R);
    double hit = 0;
    for (int r = 0; r < BJ_NRANK; r++) {
        double p = p_draw(x, R, r);
        if (p <= 0) continue;
        H[r]++;
        hit += p * play_v(x, H, k, split);
        H[r]--;
    }
    return hit;
}

static double double_v(pctx *x, int *H, int k, int split) {
    int R[BJ_NRANK];
    make_R(x, H, k, split, R);
    double e = 0;
    for (int r = 0; r < BJ_NRANK; r++) {
        double p = p_draw(x, R, r);
        if (p <= 0) continue;
        H[r]++;
        R[r]++;
        int soft, n, t = hand_total(H, &soft, &n);
        double v;
        if (t > 21)
            v = -2.0 * w_of(x, R);
        else if (x->r->triple_seven && is777(H))
            v = t7_value(x, R, 2.0, split);
        else
            v = stand_ev(x, t, R, 2.0);
        H[r]--;
        R[r]--;
        e += p * v;
    }
    return e;
}

static int double_allowed(const bj_rules *r, const int *H) {
    int soft, n, t = hand_total(H, &soft, &n);
    if (n != 2) return 0;
    if (r->double_on == 0) return 1;
    if (soft) return 0;
    return r->double_on == 1 ? (t >= 9 && t <= 11) : (t >= 10 && t <= 11);
}

/* ------------------------------------------------------------------ splits
 *
 * Definition.  A pair P split into hands: each hand gets its second card when its turn
 * comes; a second card P starts a new hand while the box has fewer than M hands (the
 * player resplits whenever the rules allow), otherwise it stays in the hand.  Each hand
 * is played on its own cards and on s, the number of pair cards split since the split
 * began (strategy sigma_s: the best play for the shoe less the pair cards dealt and the
 * hand's own cards); the other hands' other cards are not used for decisions.  The value
 * is the exact expectation of that way of playing with every hand drawing from the shoe
 * as the earlier hands really left it.
 *
 * Computation.  The probability of a deal depends only on the multiset of cards it uses,
 * so the cards may be drawn in any order that respects what decides what: an earlier hand
 * whose second card is unconstrained can be played after the later hands and drops out of
 * their expectation.  The only constraint is "that second card was not P" (else it would
 * have been resplit): 1{not P} = 1 - 1{P}, so what follows such a card is worth
 * F(e) - p_e(P) F(e+1), with e the pair cards out of the shoe the later hands draw from.
 * F(h, m, e): the m hands still waiting for their second card, h hands in the box:
 *   h <  M: X_s(e) + F(h, m-1, e) + p_e(P) [F(h+1, m+1, e+1) - F(h, m-1, e+1)]
 *   h == M: X_s(e) + Y_s(e) + F(h, m-1, e)
 * s = h - h0; X_s(e) / Y_s(e): second card not P / P, weighted by its probability, the
 * hand played by sigma_s on the shoe with e pair cards out.  Without resplits this is
 * 2 X_0(0) + 2 Y_0(0): both hands are worth the same. */

#define SP_MAXE 20

/* Ties.  A split hand is played by sigma_s but paid on the shoe with e pair cards out,
 * so when two plays are worth the same under sigma_s (exact ties happen on small
 * shoes, e.g. stand = hit = -19/45), which one is taken changes the value, and float
 * rounding must not pick it.  The rule (docs/strategy.md, also in the Python reference
 * and the referee): stand unless hitting is better by more than SP_TIE, and double only
 * if that is better than the best of stand and hit by more than SP_TIE. */
#define SP_TIE 1e-12

static inline uint64_t pack5(const int *H) {
    /* a hand holds at most 21 cards of a value: 5 bits each */
    uint64_t k = 0;
    for (int r = 0; r < BJ_NRANK; r++) k |= (uint64_t)(H[r] & 31) << (5 * r);
    return k;
}

/* play_v's entry for (H, s): [best, stand, hit] of a hand that may hit or stand */
static const double *play_entry(pctx *x, int *H, int s) {
    play_v(x, H, s, 1);
    int found;
    double *v = ht_slot(&x->vc, pack(H) | (uint64_t)(s + 1) << 60, &found);
    if (!v) x->oom = 1;
    return v && found ? v : NULL;
}

/* value of hand H (hit/stand only) played by sigma_s on the shoe with e pair cards out */
static double play_eval(pctx *x, int *H, int s, int e) {
    if (s == e) return play_v(x, H, s, 1);
    int soft, n, R[BJ_NRANK];
    int t = hand_total(H, &soft, &n);
    make_R(x, H, e, 1, R);
    if (t > 21) return -w_of(x, R);
    if (x->r->triple_seven && is777(H)) return t7_value(x, R, 1.0, 1);
    uint64_t key = pack5(H) | (uint64_t)s << 50 | (uint64_t)e << 54;
    int found;
    double *v = ht_slot(&x->ec, key, &found);
    if (!v) {
        x->oom = 1;
        return 0;
    }
    if (found) return v[0];
    const double *d = play_entry(x, H, s);
    double val;
    if (!d || t >= 21 || d[2] <= d[1] + SP_TIE) {
        val = stand_ev(x, t, R, 1.0);
    } else {
        val = 0;
        for (int r = 0; r < BJ_NRANK; r++) {
            double p = p_draw(x, R, r);
            if (p <= 0) continue;
            H[r]++;
            val += p * play_eval(x, H, s, e);
            H[r]--;
        }
    }
    v = ht_slot(&x->ec, key, &found); /* the table may have grown */
    if (!v) {
        x->oom = 1;
        return 0;
    }
    v[0] = val;
    return val;
}

/* value of a two-card split hand H played by sigma_s on the shoe with e pair cards out */
static double split_hand_eval(pctx *x, int *H, int s, int e) {
    int soft, n, R[BJ_NRANK];
    int t = hand_total(H, &soft, &n);
    if (x->P == 0 && !x->r->hsa) { /* split aces take one card */
        make_R(x, H, e, 1, R);
        return stand_ev(x, t, R, 1.0);
    }
    if (x->r->das && t < 21 && double_allowed(x->r, H) &&
        double_v(x, H, s, 1) > play_v(x, H, s, 1) + SP_TIE)
        return double_v(x, H, e, 1);
    return play_eval(x, H, s, e);
}

typedef struct {
    pctx *x;
    int M, h0;
    double X[8][SP_MAXE], Y[8][SP_MAXE], pP[SP_MAXE];
    unsigned char have[8][SP_MAXE];
    double F[9][10][SP_MAXE];
    unsigned char haveF[9][10][SP_MAXE];
} splitctx;

static void split_terms(splitctx *c, int s, int e) {
    pctx *x = c->x;
    int P = x->P, R[BJ_NRANK] = {0}, H[BJ_NRANK] = {0};
    R[P] = 2 + e; /* the pair itself and e more pair cards are out */
    H[P] = 1;
    double X = 0;
    for (int r = 0; r < BJ_NRANK; r++) {
        if (r == P) continue;
        double p = p_draw(x, R, r);
        if (p <= 0) continue;
        H[r] = 1;
        X += p * split_hand_eval(x, H, s, e);
        H[r] = 0;
    }
    double pp = p_draw(x, R, P);
    H[P] = 2;
    c->X[s][e] = X;
    c->pP[e] = pp;
    c->Y[s][e] = pp > 0 ? pp * split_hand_eval(x, H, s, e) : 0.0;
    c->have[s][e] = 1;
}

static double split_F(splitctx *c, int h, int m, int e) {
    if (m == 0 || e >= SP_MAXE) return 0.0; /* e < 2M + 1 <= 17: never cut */
    if (c->haveF[h][m][e]) return c->F[h][m][e];
    int s = h - c->h0;
    if (!c->have[s][e]) split_terms(c, s, e);
    double p = c->pP[e], v = c->X[s][e] + split_F(c, h, m - 1, e);
    if (h < c->M) {
        if (p > 0) v += p * (split_F(c, h + 1, m + 1, e + 1) - split_F(c, h, m - 1, e + 1));
    } else {
        v += c->Y[s][e];
    }
    c->F[h][m][e] = v;
    c->haveF[h][m][e] = 1;
    return v;
}

/* Value (joint measure) of splitting the pair P into two hands when the box will then
 * hold h0 hands; the hands already in the box are not part of it. */
static double split_ev(pctx *x, int P, int h0) {
    splitctx *c = calloc(1, sizeof *c);
    if (!c) {
        x->oom = 1;
        return 0;
    }
    c->x = x;
    x->P = P;
    x->ext0 = 1;
    c->M = (P == 0 && !x->r->rsa) ? 2 : x->r->max_hands;
    c->h0 = h0 > c->M ? c->M : h0; /* resplit from a hint at the limit: no further resplit */
    ht_clear(&x->vc);
    ht_clear(&x->ec);
    double v = split_F(c, c->h0, 2, 0);
    free(c);
    return v;
}

static int pctx_init(pctx *x, const bj_rules *r, int up, const double *base) {
    memset(x, 0, sizeof *x);
    x->r = r;
    x->up = up;
    x->dt = get_tree(up, r->h17);
    x->N = 0;
    for (int i = 0; i < BJ_NRANK; i++) {
        x->base[i] = base[i];
        x->N += base[i];
    }
    x->bjrank = up == 0 ? 9 : (up == 9 ? 0 : -1);
    x->peekm = x->bjrank >= 0 && (!r->enhc || r->obo);
    x->bj_in_d = r->enhc && !r->obo;
    x->P = -1;
    if (ht_init(&x->dc, 1 << 13, BJ_NOUT) || ht_init(&x->vc, 1 << 13, 3) ||
        ht_init(&x->ec, 1 << 10, 1)) {
        ht_free(&x->dc);
        ht_free(&x->vc);
        ht_free(&x->ec);
        return -1;
    }
    return 0;
}

static void pctx_free(pctx *x) {
    ht_free(&x->dc);
    ht_free(&x->vc);
    ht_free(&x->ec);
}

/* joint/unconditional -> the EV the player sees */
static double shown(const pctx *x, const int *R, double v) {
    if (isnan(v)) return v;
    if (x->peekm && !x->r->enhc) return v / (1.0 - p_bj(x, R));
    if (x->peekm) return v - p_bj(x, R); /* ENHC original bets only */
    return v;
}

int bj_hand_evs(const bj_rules *r, int up, const double unseen[BJ_NRANK], const int hand[BJ_NRANK],
                int hands_now, int split_rank, int pair_ok, double ev[BJ_NACT]) {
    double base[BJ_NRANK];
    int H[BJ_NRANK], n = 0;
    for (int a = 0; a < BJ_NACT; a++) ev[a] = NAN;
    if (up < 0 || up >= BJ_NRANK || hands_now < 1) return -1;
    for (int i = 0; i < BJ_NRANK; i++) {
        if (hand[i] < 0 || unseen[i] < 0) return -1;
        H[i] = hand[i];
        n += H[i];
        base[i] = unseen[i] + (r->infinite ? 0 : H[i]);
    }
    if (n < 1) return -1;
    pctx x;
    if (pctx_init(&x, r, up, base)) return -1;
    int split = hands_now >= 2;
    x.P = split ? split_rank : -1;
    x.ext0 = 0;
    int soft, nc, t = hand_total(H, &soft, &nc);
    int R[BJ_NRANK];
    memcpy(R, H, sizeof R);
    if (t > 21) {
        ev[BJ_STAND] = shown(&x, R, -w_of(&x, R));
    } else if (!split && nc == 2 && t == 21) {
        ev[BJ_STAND] = shown(&x, R, r->bj_pays * (1.0 - p_bj(&x, R)));
        if (x.peekm && !r->enhc) ev[BJ_STAND] = r->bj_pays;
    } else if (r->triple_seven && is777(H)) {
        ev[BJ_STAND] = shown(&x, R, t7_value(&x, R, 1.0, split));
    } else {
        int one_card = split && split_rank == 0 && !r->hsa && nc >= 2;
        ev[BJ_STAND] = shown(&x, R, stand_ev(&x, t, R, 1.0));
        if (t < 21 && !one_card) ev[BJ_HIT] = shown(&x, R, hit_v(&x, H, 0, split));
        if (nc == 2 && t < 21 && !one_card && (!split || r->das) && double_allowed(r, H))
            ev[BJ_DOUBLE] = shown(&x, R, double_v(&x, H, 0, split));
        if (nc == 2 && !split && r->surrender && (!r->enhc || r->obo))
            ev[BJ_SURRENDER] = shown(&x, R, -0.5 * w_of(&x, R));
        int P = -1;
        for (int i = 0; i < BJ_NRANK; i++)
            if (H[i] == 2) P = i;
        if (nc == 2 && P >= 0 && pair_ok && r->max_hands >= 2) {
            int M = (P == 0 && !r->rsa) ? 2 : r->max_hands;
            if (hands_now < M && (hands_now == 1 || P != 0 || r->rsa)) {
                double v = split_ev(&x, P, hands_now + 1);
                /* hands already split off are not part of this value: scale to the
                 * new pair only (the DP starts from two pending hands) */
                x.P = split ? split_rank : -1;
                ev[BJ_SPLIT] = shown(&x, R, v);
            }
        }
    }
    int oom = x.oom;
    pctx_free(&x);
    return oom ? -1 : 0;
}

/* ------------------------------------------------------------------ whole game */

typedef struct {
    const bj_rules *r;
    const double *shoe;
    double Nshoe;
    double *evs, *probs, *multi;
    double ev_up[BJ_NRANK];
    double parts_up[BJ_NRANK][4];
    int err[BJ_NRANK];
    int next_up;
    pthread_mutex_t mu;
} gamejob;

static double hand_prob(const double *base, double N, const int *H, int n, int infinite) {
    /* probability that the first n cards drawn form the multiset H */
    double p = 1;
    int drawn = 0;
    for (int r = 0; r < BJ_NRANK; r++) {
        for (int j = 0; j < H[r]; j++) {
            double q = infinite ? base[r] / N : (base[r] - j) / (N - drawn);
            if (q <= 0) return 0;
            p *= q * (double)(drawn + 1) / (double)(j + 1);
            drawn++;
        }
    }
    (void)n;
    return p;
}

static void game_up(gamejob *g, int up) {
    const bj_rules *r = g->r;
    double base[BJ_NRANK];
    memcpy(base, g->shoe, sizeof base);
    double Nb = g->Nshoe;
    double pu = g->shoe[up] / g->Nshoe;
    if (!r->infinite) {
        base[up] -= 1;
        Nb -= 1;
    }
    if (pu <= 0 || base[up] < 0) return;
    pctx x;
    if (pctx_init(&x, r, up, base)) {
        g->err[up] = 1;
        return;
    }
    double best_ns[BJ_NPAIRS], evs[BJ_NPAIRS][BJ_NACT], pr[BJ_NPAIRS];
    double ev_total = 0, ev_nat = 0, ev_dbj = 0, p_nat = 0;
    for (int a = 0; a < BJ_NRANK; a++) {
        for (int b = a; b < BJ_NRANK; b++) {
            int i = bj_pair_index(a, b);
            int H[BJ_NRANK] = {0};
            H[a]++;
            H[b]++;
            double p;
            if (r->infinite)
                p = pu * (base[a] / Nb) * (base[b] / Nb) * (a == b ? 1 : 2);
            else
                p = pu * (base[a] / Nb) * ((base[b] - (a == b)) / (Nb - 1)) * (a == b ? 1 : 2);
            if (p < 0) p = 0;
            pr[i] = p;
            for (int k = 0; k < BJ_NACT; k++) evs[i][k] = NAN;
            best_ns[i] = NAN;
            if (p == 0) continue;
            int soft, n, t = hand_total(H, &soft, &n);
            if (t == 21) {
                double v = r->bj_pays * (1.0 - p_bj(&x, H));
                evs[i][BJ_STAND] = v;
                best_ns[i] = v;
                continue;
            }
            double st = stand_ev(&x, t, H, 1.0);
            double hit = hit_v(&x, H, 0, 0);
            double best = st > hit ? st : hit;
            evs[i][BJ_STAND] = st;
            evs[i][BJ_HIT] = hit;
            if (double_allowed(r, H)) {
                double d = double_v(&x, H, 0, 0);
                evs[i][BJ_DOUBLE] = d;
                if (d > best) best = d;
            }
            if (r->surrender && (!r->enhc || r->obo)) {
                double s = -0.5 * w_of(&x, H);
                evs[i][BJ_SURRENDER] = s;
                if (s > best) best = s;
            }
            best_ns[i] = best;
        }
    }
    /* total-dependent hit/stand material from the multi-card hands */
    if (g->multi) {
        double *m = g->multi + (size_t)up * 2 * 32 * 3;
        for (size_t s = 0; s < x.vc.cap; s++) {
            uint64_t key = x.vc.keys[s];
            if (!key) continue;
            key &= ~HT_USED;
            if (key >> 60) continue;
            int H[BJ_NRANK];
            for (int q = 0; q < BJ_NRANK; q++) H[q] = (int)((key >> (6 * q)) & 63);
            int soft, n, t = hand_total(H, &soft, &n);
            if (n < 3 || t > 21) continue;
            double wgt = hand_prob(base, Nb, H, n, r->infinite);
            double *v = x.vc.vals + s * 3;
            double *o = m + ((size_t)soft * 32 + t) * 3;
            o[0] += wgt;
            o[1] += wgt * v[1];
            o[2] += wgt * (isinf(v[2]) ? v[1] : v[2]);
        }
    }
    /* splits */
    for (int P = 0; P < BJ_NRANK && r->max_hands >= 2; P++) {
        int i = bj_pair_index(P, P);
        if (pr[i] == 0) continue;
        evs[i][BJ_SPLIT] = split_ev(&x, P, 2);
        x.P = -1;
    }
    for (int a = 0; a < BJ_NRANK; a++) {
        for (int b = a; b < BJ_NRANK; b++) {
            int i = bj_pair_index(a, b);
            if (pr[i] == 0) continue;
            int H[BJ_NRANK] = {0};
            H[a]++;
            H[b]++;
            double best = best_ns[i];
            int nat = (a == 0 && b == 9);
            if (!isnan(evs[i][BJ_SPLIT])) {
                double sp = evs[i][BJ_SPLIT];
                double ps = 1.0;
                if (r->split_by_rank && a == 9) {
                    /* ten-valued pair: the same rank with probability ps (tens spread evenly) */
                    double n = base[9];
                    ps = r->infinite ? 0.25 : (n > 1 ? (n / 4 - 1) / (n - 1) : 0);
                    if (ps < 0) ps = 0;
                }
                if (sp > best) best = ps * sp + (1 - ps) * best;
            }
            double pb = p_bj(&x, H);
            double v = best;
            if (nat) {
                ev_nat += pr[i] * v;
                p_nat += pr[i];
            } else if (x.peekm) {
                v -= pb; /* the dealer's natural takes the original bet */
                ev_dbj -= pr[i] * pb;
            }
            ev_total += pr[i] * v;
            if (g->evs) {
                double *o = g->evs + ((size_t)up * BJ_NPAIRS + i) * BJ_NACT;
                for (int k = 0; k < BJ_NACT; k++) o[k] = nat ? NAN : shown(&x, H, evs[i][k]);
                if (nat) o[BJ_STAND] = shown(&x, H, evs[i][BJ_STAND]);
                if (nat && x.peekm && !r->enhc) o[BJ_STAND] = r->bj_pays;
            }
            if (g->probs) g->probs[up * BJ_NPAIRS + i] = pr[i];
        }
    }
    g->ev_up[up] = ev_total;
    g->parts_up[up][0] = ev_nat;
    g->parts_up[up][1] = ev_dbj;
    g->parts_up[up][2] = ev_total - ev_nat - ev_dbj;
    g->parts_up[up][3] = p_nat;
    if (x.oom) g->err[up] = 1;
    pctx_free(&x);
}

static void *game_worker(void *arg) {
    gamejob *g = arg;
    for (;;) {
        pthread_mutex_lock(&g->mu);
        /* the slow up cards (2-6, ace) first for balance */
        int up = g->next_up < BJ_NRANK ? g->next_up++ : -1;
        pthread_mutex_unlock(&g->mu);
        if (up < 0) break;
        static const int order[BJ_NRANK] = {1, 2, 0, 3, 4, 5, 6, 7, 8, 9};
        game_up(g, order[up]);
    }
    return NULL;
}

double bj_game_ev(const bj_rules *r, const double shoe[BJ_NRANK], int threads, double *evs,
                  double *probs, double *multi, double *parts) {
    gamejob g;
    memset(&g, 0, sizeof g);
    g.r = r;
    g.shoe = shoe;
    for (int i = 0; i < BJ_NRANK; i++) {
        if (!(shoe[i] >= 0)) return NAN;
        g.Nshoe += shoe[i];
    }
    if (r->infinite ? !(g.Nshoe > 0) : g.Nshoe < 8) return NAN;
    g.evs = evs;
    g.probs = probs;
    g.multi = multi;
    if (evs)
        for (size_t i = 0; i < (size_t)BJ_NRANK * BJ_NPAIRS * BJ_NACT; i++) evs[i] = NAN;
    if (probs) memset(probs, 0, sizeof(double) * BJ_NRANK * BJ_NPAIRS);
    if (multi) memset(multi, 0, sizeof(double) * BJ_NRANK * 2 * 32 * 3);
    pthread_mutex_init(&g.mu, NULL);
    if (threads < 1) threads = 1;
    if (threads > BJ_NRANK) threads = BJ_NRANK;
    pthread_t tid[BJ_NRANK];
    int started = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, game_worker, &g) == 0) started++;
    game_worker(&g);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&g.mu);
    double ev = 0;
    if (parts) memset(parts, 0, sizeof(double) * 4);
    for (int up = 0; up < BJ_NRANK; up++) {
        if (g.err[up]) return NAN;
        ev += g.ev_up[up];
        if (parts)
            for (int k = 0; k < 4; k++) parts[k] += g.parts_up[up][k];
    }
    return ev;
}
