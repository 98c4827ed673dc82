# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Hand evaluation for both games over compact card codes (0-51).

Plain-Python reference: :mod:`app.hands`. Keep the two in step.
"""

from cpython.long cimport PyLong_AsLong

cdef int OCZKO_VALUE[13]
OCZKO_VALUE[:] = [11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 3, 4]
cdef int BJ_VALUE[13]
BJ_VALUE[:] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]


cdef inline int _rank(object code) except -1:
    cdef long c
    if type(code) is not int:
        raise ValueError(f"card code must be an integer 0-51, not {code!r}")
    c = PyLong_AsLong(code)
    if c < 0 or c > 51:
        raise ValueError(f"card code must be an integer 0-51, not {code!r}")
    return <int>(c >> 2)


def oczko_total(hand) -> int:
    """Oczko total: aces always count 11, J 2, Q 3, K 4."""
    cdef int total = 0
    for code in hand:
        total += OCZKO_VALUE[_rank(code)]
    return total


def is_persian(hand) -> bool:
    """Exactly two cards, both aces."""
    cdef int n = 0, aces = 0
    for code in hand:
        aces += _rank(code) == 0
        n += 1
    return n == 2 and aces == 2


def bj_total(hand) -> tuple:
    """Casino total and softness ``(total, soft)``; one ace counts 11 if that does not bust."""
    cdef int hard = 0, aces = 0, r
    for code in hand:
        r = _rank(code)
        hard += BJ_VALUE[r]
        if r == 0:
            aces += 1
    if aces and hard + 10 <= 21:
        return (hard + 10, True)
    return (hard, False)


def is_blackjack(hand) -> bool:
    """Two cards totalling 21."""
    total = bj_total(hand)[0]
    return len(hand) == 2 and total == 21


def is_triple_seven(hand) -> bool:
    """Exactly three sevens."""
    cdef int n = 0, sevens = 0
    for code in hand:
        sevens += _rank(code) == 6
        n += 1
    return n == 3 and sevens == 3


# ---------------------------------------------------------------------------
# Exact blackjack analysis and the Monte-Carlo simulator (C in native/handeval_*.c).
# Plain-Python reference: app.strategy.reference.  Ranks here are *value* indexes
# 0-9 (ace, two, ..., nine, ten-valued); rules are the tuple RULE_FIELDS describes.

from libc.math cimport NAN
from libc.stdlib cimport free, malloc

cdef extern from "handeval_analysis.h" nogil:
    ctypedef struct bj_rules:
        int infinite, h17, enhc, obo, double_on, das, max_hands, rsa, hsa
        int surrender, triple_seven, split_by_rank
        double bj_pays
    void bj_dealer_probs(int up, const double *counts, int h17, int peek, int infinite,
                         double *out)
    int bj_hand_evs(const bj_rules *r, int up, const double *unseen, const int *hand,
                    int hands_now, int split_rank, int pair_ok, double *ev)
    double bj_game_ev(const bj_rules *r, const double *shoe, int threads, double *evs,
                      double *probs, double *multi, double *parts)

cdef extern from "handeval_sim.h" nogil:
    ctypedef struct bj_sim_result:
        double hands, rounds, total, total_sq, seconds
        double insurance_total, bust_bet_total
    int bj_simulate(const bj_rules *r, int decks, double penetration, const unsigned char *act2,
                    const unsigned char *multi, unsigned long long hands, unsigned long long seed,
                    int threads, bj_sim_result *out)

#: Order of the values in a rules tuple.
RULE_FIELDS = ("infinite", "h17", "enhc", "obo", "double_on", "das", "max_hands", "rsa",
               "hsa", "surrender", "triple_seven", "split_by_rank", "bj_pays")


cdef int _rules(object t, bj_rules *r) except -1:
    if len(t) != 13:
        raise ValueError(f"rules must be a tuple of 13 values {RULE_FIELDS}")
    r.infinite, r.h17, r.enhc, r.obo, r.double_on, r.das = [int(v) for v in t[:6]]
    r.max_hands, r.rsa, r.hsa, r.surrender, r.triple_seven, r.split_by_rank = [
        int(v) for v in t[6:12]]
    r.bj_pays = float(t[12])
    if r.double_on not in (0, 1, 2) or not 1 <= r.max_hands <= 8 or r.bj_pays < 0:
        raise ValueError("bad rules: double_on 0-2, max_hands 1-8, bj_pays >= 0")
    return 0


cdef int _counts(object seq, double *out, bint whole=True) except -1:
    # a finite shoe holds whole cards; the infinite-deck mode takes probabilities
    if len(seq) != 10:
        raise ValueError("a composition has 10 counts (ace, 2-9, ten-valued)")
    for i in range(10):
        out[i] = float(seq[i])
        if not out[i] >= 0 or out[i] > 1e9:
            raise ValueError(f"counts must be >= 0, not {seq[i]!r}")
        if whole and out[i] != <double><long long>out[i]:
            raise ValueError(f"a finite shoe holds whole cards, not {seq[i]!r}")
    return 0


def dealer_probs(int up, counts, bint h17=False, bint peek=False, bint infinite=False) -> tuple:
    """Dealer's final (17, 18, 19, 20, 21, bust, blackjack) probabilities.

    ``up`` is the up card's value index (0 ace .. 9 ten), ``counts`` the cards left;
    ``peek``: conditioned on no dealer blackjack.
    """
    cdef double c[10]
    cdef double out[7]
    if not 0 <= up <= 9:
        raise ValueError(f"up card index must be 0-9, not {up}")
    _counts(counts, c, not infinite)
    if sum(counts) <= 0:
        raise ValueError("the composition is empty")
    with nogil:
        bj_dealer_probs(up, c, h17, peek, infinite, out)
    return tuple(out[i] for i in range(7))


def hand_evs(rules, int up, unseen, hand, int hands_now=1, int split_rank=-1,
             bint pair_ok=True) -> tuple:
    """EV of (stand, hit, double, split, surrender) for ``hand`` (10 counts); NaN = illegal."""
    cdef bj_rules r
    cdef double c[10]
    cdef int h[10]
    cdef double ev[5]
    cdef int rc
    _rules(rules, &r)
    _counts(unseen, c, not r.infinite)
    if len(hand) != 10:
        raise ValueError("a hand has 10 counts")
    for i in range(10):
        h[i] = int(hand[i])
    if not 0 <= up <= 9:
        raise ValueError(f"up card index must be 0-9, not {up}")
    with nogil:
        rc = bj_hand_evs(&r, up, c, h, hands_now, split_rank, pair_ok, ev)
    if rc:
        raise ValueError("bad hand or composition")
    return tuple(ev[i] for i in range(5))


def game_ev(rules, shoe, int threads=1) -> tuple:
    """Expected return of the game with composition-dependent optimal play.

    Returns ``(ev, evs, probs, multi, parts)``: ``evs`` 10*55*5 action EVs (up card,
    initial hand index, action), ``probs`` 10*55 deal probabilities, ``multi``
    10*2*32*3 multi-card hit/stand material, ``parts`` (naturals, dealer-BJ, play,
    P(natural)).
    """
    cdef bj_rules r
    cdef double s[10]
    cdef double parts[4]
    cdef double ev
    _rules(rules, &r)
    _counts(shoe, s, not r.infinite)
    cdef double *evs = <double *>malloc(2750 * sizeof(double))
    cdef double *probs = <double *>malloc(550 * sizeof(double))
    cdef double *multi = <double *>malloc(1920 * sizeof(double))
    if not evs or not probs or not multi:
        free(evs); free(probs); free(multi)
        raise MemoryError()
    try:
        with nogil:
            ev = bj_game_ev(&r, s, threads, evs, probs, multi, parts)
        if ev != ev:
            raise ValueError("cannot analyse this shoe (too few cards?)")
        return (ev, [evs[i] for i in range(2750)], [probs[i] for i in range(550)],
                [multi[i] for i in range(1920)], tuple(parts[i] for i in range(4)))
    finally:
        free(evs); free(probs); free(multi)


def simulate(rules, int decks, double penetration, bytes act2, bytes multi,
             unsigned long long hands, unsigned long long seed=1, int threads=1) -> dict:
    """Play ``hands`` rounds through a shuffled shoe with the given strategy tables.

    ``act2``: 10*55*5 bytes, per up card and initial hand the actions in order of
    preference; ``multi``: 10*2*32 bytes, 1 = hit a 3+-card hand of (soft, total).
    """
    cdef bj_rules r
    cdef bj_sim_result res
    cdef int rc
    _rules(rules, &r)
    if len(act2) != 2750 or len(multi) != 640:
        raise ValueError("strategy tables have the wrong size")
    if not 1 <= decks <= 8 or not 0.1 <= penetration <= 0.95 or hands < 1:
        raise ValueError("decks 1-8, penetration 0.1-0.95, hands >= 1")
    cdef const unsigned char *a = act2
    cdef const unsigned char *m = multi
    with nogil:
        rc = bj_simulate(&r, decks, penetration, a, m, hands, seed, threads, &res)
    if rc:
        raise MemoryError("simulation failed to start")
    return {"hands": res.hands, "rounds": res.rounds, "total": res.total,
            "total_sq": res.total_sq, "seconds": res.seconds,
            "insurance_total": res.insurance_total, "bust_bet_total": res.bust_bet_total}
