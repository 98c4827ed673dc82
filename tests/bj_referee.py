"""An independent referee for the blackjack analysis: brute force over the real deal.

It shares no code and no tables with ``native/handeval_analysis.c`` or
``app/strategy/reference.py``: the dealer draws card by card from the shoe that is
really left, the hole card is dealt before the player draws (and, after the peek, is
known only not to make a blackjack), and a split is dealt literally: the first hand
takes its second card and plays it out, then the second hand draws from what is left,
then the dealer.  Each hand decides on what its player knows: its own cards, the up
card, the other card of the pair, and that the dealer has no blackjack.  Resplits
are dealt the same way (``resplit_ev``), for three post-split strategies.  Numbers
are exact fractions (``Fraction``) or floats.

Value indexes 0-9: ace, two, ..., nine, ten-valued.  A shoe is 10 counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

BUST = "bust"
BJ = "bj"
# finished hands of a box: (sorted cards, stake)
Hands = tuple[tuple[tuple[int, ...], int], ...]


@dataclass(frozen=True)
class Game:
    """The rules the referee knows (no resplitting)."""

    hole: str = "peek"  # peek | enhc (lose all to a blackjack) | obo (original bet only)
    h17: bool = False
    das: bool = True
    double_on: str = "any"  # any | 9-11 | 10-11
    # peek: late surrender after the peek; obo: surrender before the dealer's second
    # card, as if after the peek (a dealer blackjack then takes the whole bet)
    surrender: bool = False
    bj_pays: Fraction = Fraction(3, 2)
    hit_split_aces: bool = False
    triple_seven: bool = False
    resplit_aces: bool = False


def card_points(r: int) -> int:
    return r + 1


@cache
def total(cards: tuple[int, ...]) -> tuple[int, bool]:
    """(total, soft) of a list of value indexes."""
    hard = sum(card_points(c) for c in cards)
    if 0 in cards and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def remove(comp: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    c = list(comp)
    for x in cards:
        c[x] -= 1
        if c[x] < 0:
            raise ValueError("the shoe does not hold these cards")
    return tuple(c)


class Referee:
    """Brute-force values for one shoe and one set of rules."""

    def __init__(self, shoe: list[int], game: Game, exact: bool = True) -> None:
        self.shoe = tuple(shoe)
        self.g = game
        self.one: Any = Fraction(1) if exact else 1.0
        # ties (docs/strategy.md): stand unless hitting is better by more than this,
        # double only if better than both by more; exact fractions see exact ties
        self.tie: Any = 0 if exact else 1e-12

    def frac(self, a: int, b: int) -> Any:
        return self.one * a / b

    # ------------------------------------------------------------------ dealer

    def dealer(self, comp: tuple[int, ...], cards: tuple[int, ...]) -> dict[Any, Any]:
        """Final outcomes of the dealer holding ``cards`` and drawing from ``comp``."""
        hard = sum(card_points(c) for c in cards)
        return self._dealer(comp, hard, 0 in cards, len(cards))

    @cache  # noqa: B019 - one referee per test, freed with it
    def _dealer(self, comp: tuple[int, ...], hard: int, ace: bool, n: int) -> dict[Any, Any]:
        soft = ace and hard + 10 <= 21
        t = hard + 10 if soft else hard
        if n == 2 and t == 21:
            return {BJ: self.one}
        if t > 21:
            return {BUST: self.one}
        if t >= 17 and not (self.g.h17 and soft and t == 17):
            return {t: self.one}
        left = sum(comp)
        out: dict[Any, Any] = {}
        for r in range(10):
            if comp[r] == 0:
                continue
            p = self.frac(comp[r], left)
            sub = self._dealer(remove(comp, (r,)), hard + card_points(r), ace or r == 0, n + 1)
            for k, v in sub.items():
                out[k] = out.get(k, 0) + p * v
        return out

    # ------------------------------------------------------------------ hands

    def settle(self, hand: tuple[int, ...], stake: int, outcome: Any) -> Any:
        """Payoff of a finished hand (not a natural) against the dealer's outcome."""
        t, _ = total(hand)
        if self.g.triple_seven and sorted(hand) == [6, 6, 6]:
            return stake * self.one * 3 / 2
        if outcome == BJ:
            return -stake * self.one  # under "original bet only" the box takes 1 instead
        if t > 21:
            return -stake * self.one
        if outcome == BUST or t > outcome:
            return stake * self.one
        return -stake * self.one if t < outcome else 0 * self.one

    def dealer_start(self, up: int, hole: int | None) -> tuple[int, ...]:
        return tuple(sorted((up,) if hole is None else (up, hole)))

    def holes(self, comp: tuple[int, ...], up: int) -> list[tuple[int | None, Any]]:
        """The hole card's law after the peek (``None``: no hole card, ENHC)."""
        if self.g.hole != "peek":
            return [(None, self.one)]
        ok = [r for r in range(10) if comp[r] and {up, r} != {0, 9}]
        n = sum(comp[r] for r in ok)
        return [(r, self.frac(comp[r], n)) for r in ok]

    def box(self, hands: list[tuple[tuple[int, ...], int]], outcome: Any) -> Any:
        """The whole box's payoff.  A dealer natural under "original bet only" takes the
        original bet (1) from the hands still in play, busted ones included; a triple
        seven was paid at once and left the game (seed 004: "Hat ein Spieler einen
        Siebener-Drilling, so hat er bereits seinen Gewinn erhalten und ist bereits aus
        dem Spiel"), so a box of triple sevens only loses nothing."""
        if outcome == BJ and self.g.hole == "obo":
            paid = sum(s * self.one * 3 / 2 for h, s in hands if self.is777(h))
            in_play = any(not self.is777(h) for h, _ in hands)
            return paid - (self.one if in_play else 0)
        return sum(self.settle(h, s, outcome) for h, s in hands)

    def surrender_ev(self, comp: tuple[int, ...], up: int) -> Any:
        """Surrender before the dealer's second card (obo), dealt from ``comp``: half the
        bet back, the whole bet lost if that card makes a blackjack."""
        n = sum(comp)
        bj = sum(comp[r] for r in range(10) if {up, r} == {0, 9})
        return -self.frac(n - bj, 2 * n) - self.frac(bj, n)

    def is777(self, hand: tuple[int, ...]) -> bool:
        return self.g.triple_seven and sorted(hand) == [6, 6, 6]

    def may_double(self, hand: tuple[int, ...], split: bool) -> bool:
        t, soft = total(hand)
        if len(hand) != 2 or t >= 21 or (split and not self.g.das):
            return False
        if self.g.double_on == "any":
            return True
        low = 9 if self.g.double_on == "9-11" else 10
        return not soft and low <= t <= 11

    # ------------------------------------------------------------------ one hand's play

    def _stand_vs(
        self, comp: tuple[int, ...], up: int, hole: int | None, hand: tuple[int, ...], stake: int
    ) -> Any:
        d = self.dealer(comp, self.dealer_start(up, hole))
        return sum(p * self.box([(hand, stake)], o) for o, p in d.items())

    def policy(
        self, base: tuple[int, ...], up: int, start: tuple[int, ...], split: bool
    ) -> tuple[Callable[[tuple[int, ...]], str], Callable[[tuple[int, ...]], dict[str, Any]]]:
        """The best play of a hand starting with ``start`` whose player knows only his
        own cards: returns ``decide(drawn) -> action`` and ``evs(drawn) -> {action: EV}``.
        ``base``: the shoe less the up card and the player's initial cards; the hole
        card is dealt from it first."""
        holes = self.holes(base, up)
        one_card = split and start == (0,) and not self.g.hit_split_aces

        @cache
        def joint(drawn: tuple[int, ...]) -> list[tuple[int | None, Any, tuple[int, ...]]]:
            # (hole, P(hole and these draws in one order), cards left); ``drawn`` sorted
            out = []
            for hole, ph in holes:
                comp = base if hole is None else remove(base, (hole,))
                p = ph
                for c in drawn:
                    if not comp[c]:
                        p = 0
                        break
                    p *= self.frac(comp[c], sum(comp))
                    comp = remove(comp, (c,))
                if p:
                    out.append((hole, p, comp))
            return out

        @cache
        def q(drawn: tuple[int, ...], action: str, hole: int | None) -> Any:
            """Payoff expectation of ``action`` given the hole card (and then ``decide``)."""
            comp = remove(base if hole is None else remove(base, (hole,)), drawn)
            hand = (*start, *drawn)
            if action == "stand":
                return self._stand_vs(comp, up, hole, hand, 1)
            n = sum(comp)
            e = 0 * self.one
            for c in range(10):
                if not comp[c]:
                    continue
                p = self.frac(comp[c], n)
                nxt = tuple(sorted((*drawn, c)))
                if action == "double":
                    e += p * self._stand_vs(remove(comp, (c,)), up, hole, (*hand, c), 2)
                else:
                    e += p * q(nxt, decide(nxt), hole)
            return e

        @cache
        def evs(drawn: tuple[int, ...]) -> dict[str, Any]:
            hand = (*start, *drawn)
            t, _ = total(hand)
            if t > 21 or self.is777(hand) or t == 21 or (one_card and len(hand) == 2):
                acts = ["stand"]
            else:
                acts = ["stand", "hit"]
                if self.may_double(hand, split):
                    acts.append("double")
            js = joint(drawn)
            w = sum(p for _, p, _ in js)
            out = {a: sum(p * q(drawn, a, h) for h, p, _ in js) / w for a in acts}
            if not split and len(hand) == 2 and self.g.surrender:
                if self.g.hole == "peek":
                    out["surrender"] = -self.one / 2
                elif self.g.hole == "obo":
                    out["surrender"] = self.surrender_ev(base, up)
            return out

        @cache
        def decide(drawn: tuple[int, ...]) -> str:
            """The best action for the hand's cards (``drawn``: sorted, after ``start``)."""
            e = evs(drawn)
            play = max(e["stand"], e.get("hit", e["stand"]))
            if "double" in e and e["double"] > play + self.tie:
                return "double"
            return "hit" if "hit" in e and e["hit"] > e["stand"] + self.tie else "stand"

        return decide, evs

    # ------------------------------------------------------------------ the referee's answers

    def hand_evs(self, up: int, a: int, b: int) -> dict[str, Any]:
        """EV of standing, hitting (then best play), doubling, surrendering ``a, b``
        against ``up``, as the player sees it (after the peek: given no blackjack)."""
        base = remove(self.shoe, (up, a, b))
        _, evs = self.policy(base, up, tuple(sorted((a, b))), False)
        result: dict[str, Any] = evs(())
        return result

    def split_ev(self, up: int, pair: int) -> Any:
        """EV of splitting ``pair`` (no resplit) dealt literally, each hand on its own
        cards; per unit of the original bet, as the player sees it."""
        base = remove(self.shoe, (up, pair, pair))
        decide, _ = self.policy(base, up, (pair,), True)

        def plays(comp: tuple[int, ...]) -> dict[tuple[tuple[int, ...], int], Any]:
            """Finished hands (cards, stake) -> probability, for one split hand drawing from
            ``comp``: its second card, then what ``decide`` says, card by card (hands
            holding the same cards are merged level by level)."""
            out: dict[tuple[tuple[int, ...], int], Any] = {}
            n = sum(comp)
            level: dict[tuple[int, ...], Any] = {
                (c,): self.frac(comp[c], n) for c in range(10) if comp[c]
            }
            while level:
                nxt: dict[tuple[int, ...], Any] = {}
                for drawn, p in level.items():
                    act = decide(drawn)
                    if act == "stand":
                        key = ((pair, *drawn), 1)
                        out[key] = out.get(key, 0) + p
                        continue
                    left = remove(comp, drawn)
                    m = sum(left)
                    for c in range(10):
                        if not left[c]:
                            continue
                        pc = p * self.frac(left[c], m)
                        grown = tuple(sorted((*drawn, c)))
                        if act == "double":
                            key = ((pair, *grown), 2)
                            out[key] = out.get(key, 0) + pc
                        else:
                            nxt[grown] = nxt.get(grown, 0) + pc
                level = nxt
            return out

        outcomes = (17, 18, 19, 20, 21, BUST, BJ)

        @cache
        def pays(h1: tuple[int, ...], s1: int, h2: tuple[int, ...], s2: int) -> tuple[Any, ...]:
            return tuple(self.box([(h1, s1), (h2, s2)], o) for o in outcomes)

        total_ev = 0 * self.one
        for hole, ph in self.holes(base, up):
            comp = base if hole is None else remove(base, (hole,))
            for (h1, s1), p1 in plays(comp).items():
                left1 = remove(comp, h1[1:])
                for (h2, s2), p2 in plays(left1).items():
                    d = self.dealer(remove(left1, h2[1:]), self.dealer_start(up, hole))
                    pay = pays(h1, s1, h2, s2)
                    e = sum(d.get(o, 0) * v for o, v in zip(outcomes, pay, strict=True))
                    total_ev += ph * p1 * p2 * e
        return total_ev

    def resplit_ev(
        self, up: int, pair: int, max_hands: int, hands_now: int = 1, post_split: str = "cdp"
    ) -> Any:
        """EV of splitting ``pair`` with resplits up to ``max_hands`` hands in the box
        (``hands_now``: hands in the box before this split), dealt literally.

        The definition of docs/strategy.md, dealt card by card: the hole card first; the
        current hand takes its second card from the shoe really left; a pair card starts
        a new hand (waiting, with that card) while the box holds fewer than ``max_hands``
        (aces only with ``resplit_aces``), and the current hand takes another second
        card; otherwise the hand is played out, then the next waiting hand; the dealer
        draws last from what all hands left.  A hand decides on its own cards, the up
        card, the number of pair cards split so far (``2 + resplits``) and no dealer
        blackjack: the best play for the shoe less the up card and those pair cards.
        Per unit of the original bet, as the player sees it.

        ``post_split`` names what a split hand decides on (docs/strategy.md, "Which
        post-split strategy"): ``"cdp"`` as above (the pair cards split so far);
        ``"cdp1"`` as if only the two pair cards of the first split were out, whatever
        was resplit; ``"cdz"`` the play of an unsplit hand holding the same cards (the
        other pair cards not removed), restricted to what a split hand may do.
        """
        limit = 2 if pair == 0 and not self.g.resplit_aces else max_hands
        pair_cards = self.shoe[pair] - (up == pair)
        resplits = range(max(0, min(limit - hands_now - 1, pair_cards - 2)) + 1)
        deciders: dict[int, Callable[[tuple[int, ...]], str]]
        if post_split == "cdp":
            deciders = {
                k: self.policy(remove(self.shoe, (up,) + (pair,) * (2 + k)), up, (pair,), True)[0]
                for k in resplits
            }
        elif post_split == "cdp1":
            first = self.policy(remove(self.shoe, (up, pair, pair)), up, (pair,), True)[0]
            deciders = {k: first for k in resplits}
        elif post_split == "cdz":
            # an unsplit hand holding ``pair`` and the drawn cards: the shoe less the up
            # card and its own cards only
            _, unsplit = self.policy(remove(self.shoe, (up, pair)), up, (pair,), False)
            one_card = pair == 0 and not self.g.hit_split_aces

            def zero_memory(drawn: tuple[int, ...]) -> str:
                if one_card:
                    return "stand"
                e = dict(unsplit(drawn))  # evs is cached: change a copy
                if "double" in e and not self.may_double((pair, *drawn), True):
                    del e["double"]
                play = max(e["stand"], e.get("hit", e["stand"]))
                if "double" in e and e["double"] > play + self.tie:
                    return "double"
                return "hit" if "hit" in e and e["hit"] > e["stand"] + self.tie else "stand"

            deciders = {k: zero_memory for k in resplits}
        else:
            raise ValueError(post_split)
        base = remove(self.shoe, (up, pair, pair))

        @cache
        def played(comp: tuple[int, ...], second: int, k: int) -> dict[Any, Any]:
            """Finished hands (sorted cards, stake) -> probability of the hand holding
            ``pair, second`` (``comp``: the shoe before ``second``) played out by
            ``deciders[k]``."""
            decide = deciders[k]
            out: dict[Any, Any] = {}
            level: dict[tuple[int, ...], Any] = {(second,): self.one}
            while level:
                nxt: dict[tuple[int, ...], Any] = {}
                for drawn, p in level.items():
                    act = decide(drawn)
                    if act == "stand":
                        key = (tuple(sorted((pair, *drawn))), 1)
                        out[key] = out.get(key, 0) + p
                        continue
                    left = remove(comp, drawn)
                    m = sum(left)
                    for c in range(10):
                        if not left[c]:
                            continue
                        pc = p * self.frac(left[c], m)
                        grown = tuple(sorted((*drawn, c)))
                        if act == "double":
                            key = (tuple(sorted((pair, *grown))), 2)
                            out[key] = out.get(key, 0) + pc
                        else:
                            nxt[grown] = nxt.get(grown, 0) + pc
                level = nxt
            return out

        outcomes = (17, 18, 19, 20, 21, BUST, BJ)

        seen: dict[tuple[int, bool], tuple[int, ...]] = {}

        def alike(cards: tuple[int, ...]) -> tuple[int, ...]:
            """One hand per (total, bust, triple seven): a hand's pay depends on no more,
            and fewer distinct boxes keep ``deal``'s memo small."""
            t, _ = total(cards)
            return seen.setdefault((min(t, 22), self.is777(cards)), cards)

        @cache
        def box_pays(done: Hands) -> tuple[Any, ...]:
            return tuple(self.box(list(done), o) for o in outcomes)

        @cache
        def deal(
            comp: tuple[int, ...], hole: int | None, h: int, waiting: int, k: int, done: Hands
        ) -> Any:
            if waiting == 0:
                d = self.dealer(comp, self.dealer_start(up, hole))
                return sum(d.get(o, 0) * v for o, v in zip(outcomes, box_pays(done), strict=True))
            n = sum(comp)
            e = 0 * self.one
            for c in range(10):
                if not comp[c]:
                    continue
                p = self.frac(comp[c], n)
                if c == pair and h < limit:  # resplit: this hand takes another card
                    e += p * deal(remove(comp, (c,)), hole, h + 1, waiting + 1, k + 1, done)
                    continue
                for (cards, stake), q in played(comp, c, k).items():
                    drawn = list(cards)
                    drawn.remove(pair)
                    fin = tuple(sorted((*done, (alike(cards), stake))))
                    e += p * q * deal(remove(comp, tuple(drawn)), hole, h, waiting - 1, k, fin)
            return e

        total_ev = 0 * self.one
        for hole, ph in self.holes(base, up):
            comp = base if hole is None else remove(base, (hole,))
            total_ev += ph * deal(comp, hole, hands_now + 1, 2, 0, ())
        return total_ev

    def initial_ev(self, up: int, a: int, b: int, max_hands: int = 2) -> Any:
        """Value of the two cards ``a, b`` against ``up`` played as well as possible,
        before anything about the dealer's second card is known: at a peek table the
        peek's blackjack (-1, a natural pushes) comes first; a natural pays
        ``bj_pays`` unless the dealer has one too.  Splits resplit to ``max_hands``."""
        base = remove(self.shoe, (up, a, b))
        p_bj = self.frac(sum(base[r] for r in range(10) if {up, r} == {0, 9}), sum(base))
        if {a, b} == {0, 9}:
            return (1 - p_bj) * self.g.bj_pays
        evs = self.hand_evs(up, a, b)
        if a == b and max_hands >= 2:
            evs["split"] = self.resplit_ev(up, a, max_hands)
        best = max(evs.values())
        return (1 - p_bj) * best - p_bj if self.g.hole == "peek" else best

    def game_ev(self, max_hands: int = 2) -> Any:
        """Expected return of a round per unit bet: every up card and two-card hand
        dealt from the shoe, each played by :meth:`initial_ev`."""
        n = sum(self.shoe)
        total = 0 * self.one
        for up in range(10):
            left = remove(self.shoe, (up,)) if self.shoe[up] else None
            if left is None:
                continue
            for a in range(10):
                for b in range(a, 10):
                    pa = self.frac(left[a], n - 1)
                    pb = self.frac(left[b] - (a == b), n - 2)
                    if pa * pb <= 0:
                        continue
                    p = self.frac(self.shoe[up], n) * pa * pb * (1 if a == b else 2)
                    total += p * self.initial_ev(up, a, b, max_hands)
        return total

    @staticmethod
    def _drawn(hand: tuple[int, ...], pair: int) -> tuple[int, ...]:
        cards = list(hand)
        cards.remove(pair)
        return tuple(cards)
