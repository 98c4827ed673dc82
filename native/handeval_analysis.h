/* Exact blackjack analysis: dealer outcome probabilities, player EVs, house edge.
 *
 * Ranks are indexed by value: 0 = ace, 1 = two, ..., 8 = nine, 9 = ten-valued.
 * A composition is 10 card counts (doubles so that the infinite-deck mode can
 * hold probabilities).  Everything here is pure C with no Python objects, so the
 * Cython wrapper calls it with the GIL released.
 */
#ifndef BLU21_HANDEVAL_ANALYSIS_H
#define BLU21_HANDEVAL_ANALYSIS_H

#define BJ_NRANK 10
/* dealer outcome buckets */
enum { BJ_D17 = 0, BJ_D18, BJ_D19, BJ_D20, BJ_D21, BJ_DBUST, BJ_DBJ, BJ_NOUT };
/* player actions */
enum { BJ_STAND = 0, BJ_HIT, BJ_DOUBLE, BJ_SPLIT, BJ_SURRENDER, BJ_NACT };
/* number of distinct initial two-card hands by value (10 * 11 / 2) */
#define BJ_NPAIRS 55

typedef struct {
    int infinite;      /* draw probabilities never change (infinite deck) */
    int h17;           /* dealer hits soft 17 */
    int enhc;          /* no hole card (European); otherwise American peek */
    int obo;           /* ENHC: a dealer blackjack takes the original bet only */
    int double_on;     /* 0 any two cards, 1 hard 9-11, 2 hard 10-11 */
    int das;           /* double after split */
    int max_hands;     /* hands a box may split into (1 = no splitting) */
    int rsa;           /* resplit aces */
    int hsa;           /* hit (and double) split aces */
    int surrender;     /* late surrender (peek, or ENHC obo: as if after the peek) */
    int triple_seven;  /* three sevens pay 3:2 at once */
    int split_by_rank; /* ten-valued cards split only when of the same rank */
    double bj_pays;    /* net payout of a natural, e.g. 1.5 or 1.2 */
} bj_rules;

/* Index of the initial hand (a <= b, value indexes 0-9) in the 55-entry tables. */
int bj_pair_index(int a, int b);

/* Dealer final-total probabilities for up card `up` (0-9) drawing from `counts`
 * (the cards left after the up card and all known cards are removed).
 * out[7] = P(17), P(18), P(19), P(20), P(21), P(bust), P(blackjack).
 * peek != 0: the dealer has peeked and has no blackjack: the result is conditioned
 * on that (sums to 1 with out[6] = 0). */
void bj_dealer_probs(int up, const double counts[BJ_NRANK], int h17, int peek, int infinite,
                     double out[BJ_NOUT]);

/* EV of every action for a player hand `hand` (counts by value) against `up`,
 * where `unseen` are the cards the player has not seen (hand and up card removed).
 * hands_now: 1 for the original hand, >= 2 for a hand of a split into that many hands
 * (no natural, DAS rules, resplit only while hands_now < max_hands); split_rank: the
 * value index of the pair that was split (split aces take one card); pair_ok: the two
 * cards may be split under the table's rank/value rule.
 * ev[a] is NaN for an illegal action.  In peek mode (ace/ten up) the EVs are
 * conditioned on the dealer not having a blackjack (he has peeked).
 * Returns 0, or -1 on bad input. */
int bj_hand_evs(const bj_rules *r, int up, const double unseen[BJ_NRANK],
                const int hand[BJ_NRANK], int hands_now, int split_rank, int pair_ok,
                double ev[BJ_NACT]);

/* Overall expected return per initial unit bet of the full `shoe` under `r`,
 * with composition-dependent optimal play of each initial hand (split hands: played on
 * their own cards and the number of pair cards split, each drawing from the shoe the
 * earlier hands left; see the splits section of handeval_analysis.c).
 * Optional outputs (may be NULL):
 *   evs[10][55][5]: conditional EV of each action (NaN if illegal) per up card and hand;
 *   probs[10][55]: probability of that deal;
 *   multi[10][2][32][3]: for hands of 3+ cards by (soft, total): weight, sum w*stand,
 *                        sum w*hit (to derive a total-dependent hit/stand rule);
 *   parts[4]: EV from naturals, from dealer-BJ losses, from play, P(player natural).
 * threads: worker threads over the up cards (<= 0: one).
 * Returns the expected return (negative = house edge). */
double bj_game_ev(const bj_rules *r, const double shoe[BJ_NRANK], int threads, double *evs,
                  double *probs, double *multi, double *parts);

#endif
