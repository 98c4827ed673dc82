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
