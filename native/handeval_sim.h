/* Monte-Carlo blackjack simulator: a strategy played through a real shoe with a
 * cut card.  xoshiro256** per thread (seeded by splitmix64), pthreads, no Python. */
#ifndef BLU21_HANDEVAL_SIM_H
#define BLU21_HANDEVAL_SIM_H

#include "handeval_analysis.h"

typedef struct {
    double hands;           /* rounds played (one box, one initial bet each) */
    double rounds;          /* same as hands: kept for clarity of the API */
    double total;           /* sum of the main bet's results, in initial bets */
    double total_sq;        /* sum of squared round results (standard error) */
    double seconds;         /* wall-clock time of the simulation */
    double insurance_total; /* result of a 1-unit insurance bet on every ace up card */
    double bust_bet_total;  /* result of a 1-unit dealer-busts bet (5:2) every round */
} bj_sim_result;

/* act2[(up * 55 + pair) * 5 + j]: the j-th preferred action (BJ_STAND..BJ_SURRENDER,
 * 255 = none) for the two-card hand `pair` (bj_pair_index) against `up`;
 * multi[(up * 2 + soft) * 32 + total]: 1 = hit a hand of 3+ cards.
 * Returns 0, or -1 if the threads or memory could not be had. */
int bj_simulate(const bj_rules *r, int decks, double penetration, const unsigned char *act2,
                const unsigned char *multi, unsigned long long hands, unsigned long long seed,
                int threads, bj_sim_result *out);

#endif
