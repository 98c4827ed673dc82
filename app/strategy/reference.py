"""Plain-Python reference of the native analysis (``app.native.handeval``).

Same definitions as the C code, written the obvious way so that tests can compare
the two on small shoes (the dealer here walks card *sequences*; the C code runs a
dynamic programme over card multisets).  Slow: for one-deck or few-card cases.

Value indexes 0-9 (ace .. ten-valued); rules are the tuple of
:data:`app.native.handeval.RULE_FIELDS`; compositions are 10 counts.

>>> d = dealer_probs(5, [4, 4, 4, 4, 4, 3, 4, 4, 4, 16])   # a six up, one deck
>>> round(d[5], 4)                                         # the dealer busts
0.4208
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from app.strategy.rules import AnalysisRules

STAND, HIT, DOUBLE, SPLIT, SURRENDER = range(5)
NAN = float("nan")
# A split hand decided on one shoe and paid on another: exact ties between plays
# (stand = hit on small shoes) must not be broken by rounding.  Stand unless hitting is
# better by more than this; double only if better than the best other play by more.
SPLIT_TIE = 1e-12


class Rules(NamedTuple):
    infinite: int
    h17: int
    enhc: int
    obo: int
    double_on: int
    das: int
    max_hands: int
    rsa: int
    hsa: int
    surrender: int
    triple_seven: int
    split_by_rank: int
    bj_pays: float


def _total(cards: Sequence[int]) -> tuple[int, bool]:
    """(total, soft) of a multiset given as 10 counts."""
    hard = sum((r + 1) * n for r, n in enumerate(cards))
    soft = cards[0] > 0 and hard + 10 <= 21
    return (hard + 10 if soft else hard), soft


def dealer_probs(
    up: int, counts: Sequence[float], h17: bool = False, peek: bool = False, infinite: bool = False
) -> tuple[float, ...]:
    """(17, 18, 19, 20, 21, bust, blackjack) probabilities by walking every card sequence."""
    out = [0.0] * 7
    c = [float(x) for x in counts]
    n_total = sum(c)

    def walk(hard: int, ace: bool, ncards: int, p: float, removed: int) -> None:
        soft = ace and hard + 10 <= 21
        t = hard + 10 if soft else hard
        if ncards == 2 and t == 21:
            if not peek:
                out[6] += p
            return
        if t > 21:
            out[5] += p
            return
        if t >= 17 and not (h17 and soft and t == 17):
            out[t - 17] += p
            return
        n = n_total if infinite else n_total - removed
        for r in range(10):
            if c[r] <= 0:
                continue
            q = c[r] / n
            if not infinite:
                c[r] -= 1
            walk(hard + r + 1, ace or r == 0, ncards + 1, p * q, removed + 1)
            if not infinite:
                c[r] += 1

    walk(up + 1, up == 0, 1, 1.0, 0)
    if peek:
        s = sum(out)
        out = [x / s for x in out]
    return tuple(out)


class _Ctx:
    """One up card and one base composition: the state of the C ``pctx``."""

    def __init__(self, rules: Rules, up: int, base: Sequence[float]) -> None:
        self.r = rules
        self.up = up
        self.base = [float(x) for x in base]
        self.n = sum(self.base)
        self.bjrank = 9 if up == 0 else (0 if up == 9 else -1)
        self.peekm = self.bjrank >= 0 and (not rules.enhc or rules.obo)
        self.bj_in_d = bool(rules.enhc and not rules.obo)
        self.pair = -1
        self.ext0 = 0
        self.dcache: dict[tuple[int, ...], tuple[float, ...]] = {}
        self.vcache: dict[tuple[tuple[int, ...], int], float] = {}

    def p_draw(self, removed: Sequence[int], r: int) -> float:
        if self.r.infinite:
            return self.base[r] / self.n
        q = self.base[r] - removed[r]
        den = self.n - sum(removed)
        return q / den if q > 0 and den > 0 else 0.0

    def p_bj(self, removed: Sequence[int]) -> float:
        return self.p_draw(removed, self.bjrank) if self.bjrank >= 0 else 0.0

    def w(self, removed: Sequence[int]) -> float:
        return 1.0 - self.p_bj(removed) if self.peekm else 1.0

    def dealer(self, removed: Sequence[int]) -> tuple[float, ...]:
        key = tuple(removed)
        if key not in self.dcache:
            comp = (
                self.base
                if self.r.infinite
                else [b - x for b, x in zip(self.base, removed, strict=True)]
            )
            d = list(dealer_probs(self.up, comp, bool(self.r.h17), False, bool(self.r.infinite)))
            if not self.bj_in_d:
                d[6] = 0.0  # joint measure: the dealer's naturals are left out
            self.dcache[key] = tuple(d)
        return self.dcache[key]

    def stand(self, t: int, removed: Sequence[int], stake: float) -> float:
        d = self.dealer(removed)
        e = d[5] + sum((d[b] if t > 17 + b else -d[b] if t < 17 + b else 0.0) for b in range(5))
        e *= stake
        if self.bj_in_d:
            e -= stake * d[6]
        return e

    def t7(self, removed: Sequence[int], stake: float, split: bool) -> float:
        pb = self.p_bj(removed)
        if self.r.enhc and not self.r.obo:
            return 1.5 * stake
        if self.r.enhc:
            return 1.5 * stake * (1 - pb) + (1.5 * stake + (0 if split else 1)) * pb
        return 1.5 * stake * self.w(removed)

    def removed(self, hand: Sequence[int], k: int, split: bool) -> list[int]:
        rem = list(hand)
        if split and self.pair >= 0:
            rem[self.pair] += self.ext0 + k
        return rem


def _is777(h: Sequence[int]) -> bool:
    return h[6] == 3 and sum(h) == 3


def _play(x: _Ctx, hand: list[int], k: int, split: bool) -> float:
    t, _ = _total(hand)
    rem = x.removed(hand, k, split)
    if t > 21:
        return -x.w(rem)
    if x.r.triple_seven and _is777(hand):
        return x.t7(rem, 1.0, split)
    key = (tuple(hand), k if split else -1)
    if key in x.vcache:
        return x.vcache[key]
    st = x.stand(t, rem, 1.0)
    v = st
    if t < 21:
        v = max(st, _hit(x, hand, k, split))
    x.vcache[key] = v
    return v


def _hit(x: _Ctx, hand: list[int], k: int, split: bool) -> float:
    rem = x.removed(hand, k, split)
    e = 0.0
    for r in range(10):
        p = x.p_draw(rem, r)
        if p > 0:
            hand[r] += 1
            e += p * _play(x, hand, k, split)
            hand[r] -= 1
    return e


def _double(x: _Ctx, hand: list[int], k: int, split: bool) -> float:
    rem = x.removed(hand, k, split)
    e = 0.0
    for r in range(10):
        p = x.p_draw(rem, r)
        if p <= 0:
            continue
        hand[r] += 1
        rem[r] += 1
        t, _ = _total(hand)
        if t > 21:
            v = -2.0 * x.w(rem)
        elif x.r.triple_seven and _is777(hand):
            v = x.t7(rem, 2.0, split)
        else:
            v = x.stand(t, rem, 2.0)
        hand[r] -= 1
        rem[r] -= 1
        e += p * v
    return e


def _double_ok(rules: Rules, hand: Sequence[int]) -> bool:
    t, soft = _total(hand)
    if sum(hand) != 2:
        return False
    if rules.double_on == 0:
        return True
    if soft:
        return False
    return 9 <= t <= 11 if rules.double_on == 1 else 10 <= t <= 11


def _policy_value(x: _Ctx, hand: list[int], s: int, e: int) -> float:
    """A split hand that may hit or stand: decided as on the shoe with ``s`` pair cards
    out, paid on the shoe with ``e`` pair cards out."""
    t, _ = _total(hand)
    rem = x.removed(hand, e, True)
    if t > 21:
        return -x.w(rem)
    if x.r.triple_seven and _is777(hand):
        return x.t7(rem, 1.0, True)
    stand_here = x.stand(t, rem, 1.0)
    if t >= 21:
        return stand_here
    rem_s = x.removed(hand, s, True)
    if _hit(x, hand, s, True) <= x.stand(t, rem_s, 1.0) + SPLIT_TIE:
        return stand_here
    total = 0.0
    for r in range(10):
        p = x.p_draw(rem, r)
        if p > 0:
            hand[r] += 1
            total += p * _policy_value(x, hand, s, e)
            hand[r] -= 1
    return total


def _second_card_value(x: _Ctx, hand: list[int], s: int, e: int) -> float:
    """A split hand of two cards: played as the best play with ``s`` pair cards out
    says, paid on the shoe with ``e`` pair cards out."""
    t, _ = _total(hand)
    if x.pair == 0 and not x.r.hsa:  # split aces: one card each
        return x.stand(t, x.removed(hand, e, True), 1.0)
    doubles = x.r.das and t < 21 and _double_ok(x.r, hand)
    if doubles and _double(x, hand, s, True) > _play(x, hand, s, True) + SPLIT_TIE:
        return _double(x, hand, e, True)
    return _policy_value(x, hand, s, e)


def _split_ev(x: _Ctx, pair: int, h0: int) -> float:
    """Value of splitting ``pair`` into two hands when the box then holds ``h0`` hands.

    Each hand plays on its own cards and on the number of pair cards split since the
    split began; it draws from the shoe as the earlier hands left it.  The chance of a
    deal depends only on the cards it uses, so an earlier hand whose second card is
    unconstrained can be dealt last and drops out of a later hand's expectation; a
    second card known not to be a pair card (else it would have been resplit) is
    expanded as 1 - 1{pair card}.  Here every sequence of second-card events up to a
    hand's own (resplit / last card while the box may grow / last card at the limit) is
    enumerated and that hand's value is summed with those signed weights.
    """
    x.pair = pair
    x.ext0 = 1
    limit = 2 if pair == 0 and not x.r.rsa else x.r.max_hands
    h0 = min(h0, limit)
    cache: dict[tuple[int, int], tuple[float, float]] = {}

    def own(s: int, e: int) -> tuple[float, float]:
        """(second card not a pair card, second card a pair card): probability-weighted
        value of one hand played by strategy ``s`` on the shoe with ``e`` pair cards out."""
        if (s, e) not in cache:
            rem = [0] * 10
            rem[pair] = 2 + e
            other = 0.0
            for r in range(10):
                p = x.p_draw(rem, r)
                if r != pair and p > 0:
                    h = [0] * 10
                    h[pair] += 1
                    h[r] += 1
                    other += p * _second_card_value(x, h, s, e)
            p_pair = x.p_draw(rem, pair)
            h = [0] * 10
            h[pair] = 2
            same = p_pair * _second_card_value(x, h, s, e) if p_pair > 0 else 0.0
            cache[(s, e)] = (other, same)
        return cache[(s, e)]

    def p_pairs(n: int) -> float:
        """Chance that ``n`` given second cards are all pair cards."""
        prob = 1.0
        for i in range(n):
            rem = [0] * 10
            rem[pair] = 2 + i
            prob *= x.p_draw(rem, pair)
        return prob

    def hand_term(k: int, u: int, at_limit: bool) -> float:
        # k resplits and u earlier "not a pair card" second cards before this hand's
        s = k
        total = 0.0
        for i in range(u + 1):
            weight = (-1) ** i * math.comb(u, i) * p_pairs(k + i)
            if weight == 0:
                continue
            other, same = own(s, k + i)
            total += weight * (other + same if at_limit else other)
        return total

    total = 0.0
    # walk: (hands in the box, hands still waiting for a second card, resplits, u)
    stack = [(h0, 2, 0, 0)]
    while stack:
        h, waiting, k, u = stack.pop()
        if waiting == 0:
            continue
        if h >= limit:
            total += hand_term(k, u, True)
            stack.append((h, waiting - 1, k, u))
        else:
            total += hand_term(k, u, False)
            stack.append((h, waiting - 1, k, u + 1))
            stack.append((h + 1, waiting + 1, k + 1, u))
    return total


def _shown(x: _Ctx, removed: Sequence[int], v: float) -> float:
    if math.isnan(v):
        return v
    if x.peekm and not x.r.enhc:
        return v / (1.0 - x.p_bj(removed))
    if x.peekm:
        return v - x.p_bj(removed)
    return v


def hand_evs(
    rules: AnalysisRules,
    up: int,
    unseen: Sequence[float],
    hand: Sequence[int],
    hands_now: int = 1,
    split_rank: int = -1,
    pair_ok: bool = True,
) -> tuple[float, ...]:
    """EV of (stand, hit, double, split, surrender); NaN marks an illegal action."""
    r = Rules(*rules)
    h = [int(v) for v in hand]
    base = [u + (0 if r.infinite else c) for u, c in zip(unseen, h, strict=True)]
    x = _Ctx(r, up, base)
    split = hands_now >= 2
    x.pair = split_rank if split else -1
    ev = [NAN] * 5
    t, _ = _total(h)
    nc = sum(h)
    rem = list(h)
    if t > 21:
        ev[STAND] = _shown(x, rem, -x.w(rem))
    elif not split and nc == 2 and t == 21:
        ev[STAND] = (
            r.bj_pays if x.peekm and not r.enhc else _shown(x, rem, r.bj_pays * (1 - x.p_bj(rem)))
        )
    elif r.triple_seven and _is777(h):
        ev[STAND] = _shown(x, rem, x.t7(rem, 1.0, split))
    else:
        one_card = split and split_rank == 0 and not r.hsa and nc >= 2
        ev[STAND] = _shown(x, rem, x.stand(t, rem, 1.0))
        if t < 21 and not one_card:
            ev[HIT] = _shown(x, rem, _hit(x, h, 0, split))
        if nc == 2 and t < 21 and not one_card and (not split or r.das) and _double_ok(r, h):
            ev[DOUBLE] = _shown(x, rem, _double(x, h, 0, split))
        if nc == 2 and not split and r.surrender and (not r.enhc or r.obo):
            ev[SURRENDER] = _shown(x, rem, -0.5 * x.w(rem))
        pair = next((i for i in range(10) if h[i] == 2), -1)
        if nc == 2 and pair >= 0 and pair_ok and r.max_hands >= 2:
            m_max = 2 if pair == 0 and not r.rsa else r.max_hands
            if hands_now < m_max and (hands_now == 1 or pair != 0 or r.rsa):
                x.vcache.clear()
                v = _split_ev(x, pair, hands_now + 1)
                x.pair = split_rank if split else -1
                ev[SPLIT] = _shown(x, rem, v)
    return tuple(ev)


def pair_index(a: int, b: int) -> int:
    """Index 0-54 of the initial hand {a, b} (value indexes), as in the C tables."""
    a, b = min(a, b), max(a, b)
    return a * 10 - a * (a - 1) // 2 + (b - a)


def game_ev(rules: AnalysisRules, shoe: Sequence[float]) -> float:
    """Expected return per initial unit with composition-dependent optimal play."""
    r = Rules(*rules)
    total = 0.0
    n_shoe = sum(shoe)
    for up in range(10):
        pu = shoe[up] / n_shoe
        if pu <= 0:
            continue
        base = list(map(float, shoe))
        nb = n_shoe
        if not r.infinite:
            base[up] -= 1
            nb -= 1
        x = _Ctx(r, up, base)
        for a in range(10):
            for b in range(a, 10):
                h = [0] * 10
                h[a] += 1
                h[b] += 1
                if r.infinite:
                    p = pu * base[a] / nb * base[b] / nb
                else:
                    p = pu * base[a] / nb * (base[b] - (a == b)) / (nb - 1)
                p *= 1 if a == b else 2
                if p <= 0:
                    continue
                t, _ = _total(h)
                if t == 21:
                    total += p * r.bj_pays * (1 - x.p_bj(h))
                    continue
                x.pair = -1
                best = max(x.stand(t, h, 1.0), _hit(x, h, 0, False))
                if _double_ok(r, h):
                    best = max(best, _double(x, h, 0, False))
                if r.surrender and (not r.enhc or r.obo):
                    best = max(best, -0.5 * x.w(h))
                if a == b and r.max_hands >= 2:
                    saved = dict(x.vcache)
                    x.vcache.clear()
                    sp = _split_ev(x, a, 2)
                    x.vcache = saved
                    x.pair = -1
                    x.ext0 = 0
                    ps = 1.0
                    if r.split_by_rank and a == 9:
                        n = base[9]
                        ps = 0.25 if r.infinite else max(0.0, (n / 4 - 1) / (n - 1)) if n > 1 else 0
                    if sp > best:
                        best = ps * sp + (1 - ps) * best
                if x.peekm:
                    best -= x.p_bj(h)
                total += p * best
    return total
