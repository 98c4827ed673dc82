"""Independent review of the casino engine: edge combinations of seeds 001 and 004.

The money cases are scenario files (tests/scenarios/blackjack_review_*.json, run by
test_blackjack_scenarios.py); this module holds what a scenario cannot say: legality
at a given moment, that legal_actions() is exactly what apply() accepts, and session
integrity across rounds and reshuffles.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cards import shoe as full_shoe
from app.hands import bj_total as ref_total
from app.rules.blackjack import (
    Action,
    ActionKind,
    Hand,
    HandStatus,
    LegalAction,
    Phase,
    Round,
    Stake,
)
from app.rules.blackjack.deal import ShoeRound
from app.rules.blackjack.settle import Outcome
from app.rules.errors import IllegalAction
from app.rules.session import Session
from app.rules.shoe import Shoe
from app.rules.table_rules import PRESETS, TableRules


def kinds(r: Round) -> set[ActionKind]:
    return {a.kind for a in r.legal_actions()}


def dealt(rules: TableRules, cards: str, bets: list[tuple[str, int, int]]) -> Round:
    players = {p: 1000 for p, _, _ in bets}
    r = ShoeRound.new(rules, Shoe.scripted(cards, decks=8), players)
    for p, box, amount in bets:
        r = r.act("bet", p, box, amount)
    return r.act("deal")


# -- splitting --------------------------------------------------------------------------


def test_no_split_beyond_max_hands_even_with_a_pair() -> None:
    # Four hands of eights: the fourth split hand draws another eight, no fifth hand.
    r = dealt(TableRules.preset("european"), "8s 6d 8h 8c 8d 8s Ts Th Tc Kd 9c", [("a", 1, 10)])
    for _ in range(3):
        assert ActionKind.SPLIT in kinds(r)
        r = r.act("split", "a")
    assert len(r.box_hands(1)) == 4
    assert [str(c) for c in r.current.cards] == ["8s", "8s"]
    assert ActionKind.SPLIT not in kinds(r)
    with pytest.raises(IllegalAction) as info:
        r.act("split", "a")
    assert info.value.code == "cannot_split"


def test_split_ace_drawing_an_ace_at_max_hands_stands() -> None:
    # European: aces resplit, but the fourth hand is the last; an ace then just stands.
    rules = TableRules.preset("european")
    r = dealt(rules, "As 9d Ah Ac Ad Ah As Kc Kd Kh 8c", [("a", 1, 10)])
    r = r.act("split", "a")  # hand 1: A + Ac
    assert kinds(r) == {ActionKind.STAND, ActionKind.SPLIT}  # no hit, no double
    r = r.act("split", "a")  # hand 1: A + Ad
    r = r.act("split", "a")  # hand 1: A + Ah: four hands, stands by itself
    assert len(r.box_hands(1)) == 4
    first = r.box_hands(1)[0]
    assert first.status.value == "stood" and first.total == 12
    # the other split aces drew As (stands: no room to split), Kc, Kd, Kh
    assert r.settled
    assert [h.total for h in r.box_hands(1)] == [12, 12, 21, 21]
    assert r.net("a") == 0  # 12, 12 lose to 19; 21, 21 win 1:1 (not blackjack)


def test_split_aces_cannot_hit_or_double_unless_allowed() -> None:
    r = dealt(TableRules(), "As 9d Ah 7c 5d 6c Tc", [("a", 1, 10)])
    r = r.act("split", "a")
    # Classic: hand 1 got its one card and stood; hand 2 waits for its card, so it is
    # dealt at once and stands too: the round is over.
    assert r.settled
    r = dealt(TableRules(hit_split_aces=True), "As 9d Ah 7c 5d 6c Tc", [("a", 1, 10)])
    r = r.act("split", "a")
    assert {ActionKind.HIT, ActionKind.DOUBLE} <= kinds(r)


def test_surrender_only_on_the_original_two_cards() -> None:
    rules = TableRules(late_surrender=True)
    r = dealt(rules, "8s 9d 8h 7c 3c", [("a", 1, 10)])
    assert ActionKind.SURRENDER in kinds(r)
    after_split = r.act("split", "a")
    assert ActionKind.SURRENDER not in kinds(after_split)
    after_hit = r.act("hit", "a")
    assert ActionKind.SURRENDER not in kinds(after_hit)
    assert ActionKind.SURRENDER not in kinds(dealt(TableRules(), "8s 9d 8h 7c", [("a", 1, 10)]))


def test_behind_bettor_can_only_follow_and_never_acts_on_the_hand() -> None:
    rules = TableRules(betting_behind=True)
    r = dealt(rules, "5s 9d 6h 7c 9c", [("a", 1, 10), ("b", 1, 10)])
    for kind in ("hit", "stand", "double", "split", "surrender"):
        with pytest.raises(IllegalAction) as info:
            r.act(kind, "b")
        assert info.value.code == "not_your_turn"
    r = r.act("double", "a")
    assert r.phase is Phase.DOUBLE_FOLLOW and r.waiting_for() == ("b",)
    with pytest.raises(IllegalAction):
        r.act("follow_double", "a")  # the owner has already doubled


# -- table limits -----------------------------------------------------------------------


def test_box_limit_counts_every_bettor_behind() -> None:
    rules = TableRules(betting_behind=True, max_bet=100)
    r = ShoeRound.new(rules, Shoe.scripted("Ts 9d"), {"a": 1000, "b": 1000, "c": 1000})
    r = r.act("bet", "a", 1, 60).act("bet", "b", 1, 30)
    behind = [x for x in r.legal_actions() if x.kind is ActionKind.BET and x.box == 1]
    assert [(x.player, x.max_amount) for x in behind] == [("c", 10)]
    with pytest.raises(IllegalAction) as info:
        r.act("bet", "c", 1, 11)
    assert info.value.code == "bet_above_limit"
    r = r.act("bet", "c", 1, 10)
    # The box is full: nobody else may bet behind it.
    assert not [x for x in r.legal_actions() if x.kind is ActionKind.BET and x.box == 1]


# -- legal_actions() is exactly what apply() accepts ----------------------------------------

BOXED = {ActionKind.BET, ActionKind.INSURE, ActionKind.DECLINE_INSURANCE, ActionKind.EVEN_MONEY}
WITH_AMOUNT = {ActionKind.BET, ActionKind.SIDE_BET, ActionKind.INSURE}
AMOUNTS = [Fraction(1, 2), Fraction(1), Fraction(5), Fraction(7, 2), Fraction(10), Fraction(25)]
AMOUNTS += [Fraction(60), Fraction(499), Fraction(500), Fraction(501)]


def listed(a: Action, legal: tuple[LegalAction, ...]) -> bool:
    """Whether ``a`` is one of the choices in ``legal`` (box only where it matters, any
    player for "deal", the amount within the bounds)."""
    for x in legal:
        if x.kind is not a.kind or (x.player != a.player and a.kind is not ActionKind.DEAL):
            continue
        if a.kind in BOXED and x.box != a.box:
            continue
        if a.kind in WITH_AMOUNT:
            assert a.amount is not None and x.max_amount is not None
            low_ok = a.amount > 0 if x.min_amount is None else a.amount >= x.min_amount
            if not (low_ok and a.amount <= x.max_amount):
                continue
        return True
    return False


def every_action(r: Round) -> list[Action]:
    assert r.bankrolls is not None
    out = []
    for kind in ActionKind:
        for p in [*r.bankrolls, None]:
            for box in range(0, r.rules.boxes + 2) if kind in BOXED else [None]:
                for amount in AMOUNTS if kind in WITH_AMOUNT else [None]:
                    out.append(Action(kind, p, box, amount))
    return out


@st.composite
def review_rules(draw: st.DrawFn) -> TableRules:
    enhc = draw(st.booleans())
    obo = enhc and draw(st.booleans())
    hands = draw(st.integers(1, 4))
    return draw(st.sampled_from(list(PRESETS.values()))).replace(
        hole_card="enhc" if enhc else "peek",
        enhc_original_bets_only=obo,
        late_surrender=not enhc and draw(st.booleans()),
        enhc_late_surrender=obo and draw(st.booleans()),
        max_hands=hands,
        resplit_aces=hands >= 3 and draw(st.booleans()),
        hit_split_aces=draw(st.booleans()),
        double_on=draw(st.sampled_from(["any", "9-11", "10-11"])),
        double_after_split=draw(st.booleans()),
        split_by=draw(st.sampled_from(["rank", "value"])),
        insurance=draw(st.booleans()),
        triple_seven=draw(st.booleans()),
        dealer_busts_bet=draw(st.booleans()),
        betting_behind=draw(st.booleans()),
        boxes=draw(st.integers(1, 3)),
        min_bet=draw(st.sampled_from([1, 5, 10])),
        max_bet=draw(st.sampled_from([10, 25, 500])),
    )


SPICY = ["As", "Ah", "7s", "7h", "8s", "8h", "Ts", "Kh", "Qd", "5c", "6d"]


@settings(max_examples=40, deadline=None)
@given(rules=review_rules(), seed=st.integers(0, 2**32), data=st.data())
def test_legal_actions_are_exactly_what_apply_accepts(
    rules: TableRules, seed: int, data: st.DataObject
) -> None:
    prefix = data.draw(st.lists(st.sampled_from(SPICY), max_size=20))
    prefix = [c for i, c in enumerate(prefix) if prefix[:i].count(c) < rules.decks]
    shoe = Shoe.stacked(prefix, rules.decks, rules.penetration, random.Random(seed))
    chips = data.draw(
        st.dictionaries(
            st.sampled_from(["ann", "bob", "cy"]),
            st.sampled_from([rules.min_bet, 15, 30, 60, 1000]),
            min_size=1,
        )
    )
    r = ShoeRound.new(rules, shoe, chips)
    for _ in range(60):
        if r.settled:
            break
        legal = r.legal_actions()
        for a in every_action(r):
            try:
                r.apply(a)[0]
                accepted = True
            except IllegalAction:
                accepted = False
            assert accepted == listed(a, legal), (a, r.phase, legal)
        pick = data.draw(st.sampled_from(legal))
        amount = None
        if pick.max_amount is not None:
            low = pick.min_amount if pick.min_amount is not None else pick.max_amount / 2
            amount = data.draw(st.sampled_from([low, pick.max_amount]))
        r = r.apply(pick.action(amount))[0]
    assert r.settled or r.legal_actions()


# -- sessions -----------------------------------------------------------------------------


def play_out(r: Round, rng: random.Random) -> Round:
    r = r.act("bet", "ann", 1, 10).act("bet", "bob", 2, 20)
    r = r.act("deal")
    while not r.settled:
        legal = [a for a in r.legal_actions() if a.kind is not ActionKind.INSURE]
        r = r.apply(rng.choice(legal).action())[0]
    return r


def test_session_refuses_a_round_recorded_twice() -> None:
    # A push nets zero, so the balances alone cannot tell the round was recorded.
    shoe = Shoe.scripted("Ts 9d 9s Tc " * 3)
    s = Session.start(TableRules(rounds=3), ["ann"], random.Random(1), shoe=shoe)
    r = s.new_round().act("bet", "ann", 1, 10).act("deal").act("stand", "ann")
    assert r.results() == {"ann": 0}
    s1 = s.record(r)
    with pytest.raises(IllegalAction) as info:
        s1.record(r)
    assert info.value.code == "foreign_round"
    # A round dealt from the older session state would deal the same cards again.
    stale = s.new_round().act("bet", "ann", 1, 10).act("deal").act("stand", "ann")
    with pytest.raises(IllegalAction):
        s1.record(stale)
    nxt = s1.new_round().act("bet", "ann", 1, 10).act("deal").act("stand", "ann")
    assert s1.record(nxt).rounds_played == 2


def test_session_reshuffles_at_the_cut_card_and_conserves_chips() -> None:
    rules = TableRules(decks=1, penetration=Fraction(1, 2), rounds=30, starting_chips=2000)
    rng = random.Random(5)
    s = Session.start(rules, ["ann", "bob"], random.Random(9))
    total = sum(s.balances.values())
    reshuffles = 0
    for _ in range(rules.rounds):
        r = s.new_round()
        if r.events and r.events[0].kind == "shuffled":
            reshuffles += 1
            assert r.shoe.remaining == 52  # the whole deck back in before the deal
        else:
            assert s.shoe.position < s.shoe.cut  # no reshuffle before the cut card
        r = play_out(r, rng)
        # Within one shuffle no card is dealt twice: discards + table + rest = one deck.
        cards = r.table_cards() + r.shoe.upcoming() + r.shoe.discards()
        if not any(e.kind == "shuffled" and e.reason == "shoe_empty" for e in r.events):
            assert Counter(cards) == Counter(full_shoe(1))
        s = s.record(r)
        assert sum(s.balances.values()) + s.house == total
        assert all(v >= 0 for v in s.balances.values())
    assert s.over and s.rounds_played == rules.rounds
    assert reshuffles >= 5  # 26 cards a shoe, 6-12 cards a round


# -- an independent settlement oracle -------------------------------------------------------


def ref(cards: tuple) -> tuple[int, bool]:
    """Total and softness from the pure-Python reference (not the engine's native one)."""
    return ref_total([c.code for c in cards])


def expected_return(r: Round, h: Hand, s: Stake) -> Fraction | None:
    """What a casino hands back on stake ``s`` of hand ``h``, from the cards alone;
    None: a dealer blackjack under original bets only, checked per bettor and box."""
    rules = r.rules
    dealer_total = ref(r.dealer)[0]
    dealer_bj = len(r.dealer) == 2 and dealer_total == 21
    obo_bj = dealer_bj and rules.enhc_original_bets_only
    total = ref(h.cards)[0]
    natural = len(h.cards) == 2 and not h.from_split and total == 21
    if s.outcome is Outcome.EVEN_MONEY:
        assert natural and r.up_card is not None and r.up_card.rank == 1
        return 2 * s.total
    if rules.triple_seven and sorted(c.rank for c in h.cards) == [7, 7, 7]:
        return s.total * Fraction(5, 2)
    if total > 21:
        return None if obo_bj else Fraction(0)
    if h.status is HandStatus.SURRENDERED:
        return None if obo_bj else s.total / 2
    if dealer_bj:
        if natural:
            return s.total
        return None if obo_bj else Fraction(0)
    if natural:
        return s.total * (1 + rules.blackjack_pays)
    if dealer_total > 21 or total > dealer_total:
        return 2 * s.total
    return s.total if total == dealer_total else Fraction(0)


@settings(max_examples=60, deadline=None)
@given(rules=review_rules(), seed=st.integers(0, 2**32), data=st.data())
def test_settlement_matches_an_independent_oracle(
    rules: TableRules, seed: int, data: st.DataObject
) -> None:
    rules = rules.replace(
        dealer_hits_soft_17=data.draw(st.booleans()),
        blackjack_pays=data.draw(st.sampled_from([Fraction(3, 2), Fraction(6, 5)])),
        min_bet=1,
        max_bet=500,
    )
    prefix = data.draw(st.lists(st.sampled_from(SPICY), max_size=20))
    prefix = [c for i, c in enumerate(prefix) if prefix[:i].count(c) < rules.decks]
    shoe = Shoe.stacked(prefix, rules.decks, rules.penetration, random.Random(seed))
    r = ShoeRound.new(rules, shoe, {"ann": 1000, "bob": 1000, "cy": 25})
    while not r.settled:
        legal = r.legal_actions()
        deal = [a for a in legal if a.kind is ActionKind.DEAL]
        pick = deal[0] if deal and data.draw(st.booleans()) else data.draw(st.sampled_from(legal))
        amount = None
        if pick.max_amount is not None:
            low = pick.min_amount if pick.min_amount is not None else pick.max_amount / 2
            amount = data.draw(st.sampled_from([low, pick.max_amount]))
        r = r.apply(pick.action(amount))[0]
    # The dealer drew exactly by his rule.
    d = r.dealer
    for k in range(2, len(d)):
        total, soft = ref(d[:k])
        assert total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17), d
    for box in {h.box for h in r.hands}:
        assert len(r.box_hands(box)) <= rules.max_hands
    at_risk: dict[tuple[int, str], list[Stake]] = {}
    for h in r.hands:
        if h.split_aces and not rules.hit_split_aces:
            assert len(h.cards) == 2  # one card on each split ace
        if h.doubled:
            assert len(h.cards) == 3  # exactly one card after doubling
        for k in range(2, len(h.cards)):  # no card after 21, a bust or three sevens
            assert ref(h.cards[:k])[0] < 21
        for s in h.stakes:
            want = expected_return(r, h, s)
            if want is None:  # a dealer blackjack takes exactly the original stake
                at_risk.setdefault((h.box, s.player), []).append(s)
            else:
                assert s.returned == want, (h, s, d)
    for (box, player), stakes in at_risk.items():
        original = next(s for s in r.box_hands(box)[0].stakes if s.player == player)
        assert original.original
        lost = sum(s.total - s.returned for s in stakes)
        assert lost == original.amount, (box, player, stakes, d)
    dealer_total = ref(d)[0]
    dealer_bj = len(d) == 2 and dealer_total == 21
    for i in r.insurance:
        assert i.returned == (3 * i.amount if dealer_bj else 0)
    for b in r.side_bets:
        assert b.returned == (Fraction(7, 2) * b.amount if dealer_total > 21 else 0)


# -- actions built from plain codes ----------------------------------------------------------


def test_action_from_a_plain_code_means_the_same_as_the_enum() -> None:
    # Action("insure", ...) used to be taken as a refusal of insurance, and
    # Action("hit", ...) crashed: a code must act exactly like its ActionKind.
    r = ShoeRound.new(TableRules(), Shoe.scripted("Ts Ad 6s 7c 5h 4d"), {"ann": 100})
    r = r.apply(Action("bet", "ann", 1, Fraction(10)))[0].apply(Action("deal"))[0]  # type: ignore[arg-type]
    by_code = r.apply(Action("insure", "ann", 1, Fraction(5)))[0]  # type: ignore[arg-type]
    by_enum = r.apply(Action(ActionKind.INSURE, "ann", 1, Fraction(5)))[0]
    assert by_code.round.to_json(reveal=True) == by_enum.round.to_json(reveal=True)
    assert [i.amount for i in by_code.insurance] == [5]
    hit = by_code.apply(Action("hit", "ann"))[0]  # type: ignore[arg-type]
    assert [str(c) for c in hit.hands[0].cards] == ["Ts", "6s", "5h"]
    assert Action("stand").kind is ActionKind.STAND  # type: ignore[arg-type]


def test_action_with_an_unknown_code_is_refused() -> None:
    with pytest.raises(IllegalAction) as info:
        Action("fold", "ann")  # type: ignore[arg-type]
    assert info.value.code == "unknown_action"


def test_session_records_rounds_that_ran_the_shoe_empty() -> None:
    # One deck dealt to the end with seven boxes: rounds empty the shoe and deal on from
    # the reshuffled discards; they still belong to the session and conserve chips.
    rules = TableRules(decks=1, penetration=Fraction(1), rounds=25, starting_chips=5000)
    s = Session.start(rules, ["ann", "bob"], random.Random(4))
    rng = random.Random(1)
    emptied = 0
    while not s.over:
        r = s.new_round()
        for box in range(1, 8):
            r = r.act("bet", "ann" if box % 2 else "bob", box, 10)
        r = r.act("deal")
        while not r.settled:
            legal = [a for a in r.legal_actions() if a.kind is not ActionKind.INSURE]
            r = r.apply(rng.choice(legal).action())[0]
        emptied += any(e.kind == "shuffled" and e.reason == "shoe_empty" for e in r.events)
        s = s.record(r)
    assert emptied >= 3
    assert sum(s.balances.values()) + s.house == 10000
