"""Properties of the blackjack engine under random legal play (hypothesis).

- every sequence of legal actions ends in a settled round;
- chips are conserved between bettors and house, nobody goes below zero;
- no card is dealt twice: table + shoe + discards are always exactly the full shoe;
- the ledger (stakes) agrees with the settlement events;
- an action whose kind is not listed as legal is refused.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from hypothesis import event, given, settings
from hypothesis import strategies as st

from app.cards import shoe as full_shoe
from app.rules.blackjack import Action, ActionKind, LegalAction, Phase
from app.rules.blackjack.deal import ShoeRound
from app.rules.errors import IllegalAction
from app.rules.session import Session
from app.rules.shoe import Shoe
from app.rules.table_rules import PRESETS, TableRules

NAMES = ["ann", "bob", "cy"]


@st.composite
def table_rules(draw: st.DrawFn, min_decks: int = 2) -> TableRules:
    enhc = draw(st.booleans())
    obo = enhc and draw(st.booleans())
    hands = draw(st.integers(1, 4))
    return draw(st.sampled_from(list(PRESETS.values()))).replace(
        decks=draw(st.integers(min_decks, 3)),
        dealer_hits_soft_17=draw(st.booleans()),
        blackjack_pays=draw(st.sampled_from([Fraction(3, 2), Fraction(6, 5)])),
        hole_card="enhc" if enhc else "peek",
        enhc_original_bets_only=obo,
        enhc_late_surrender=obo and draw(st.booleans()),
        double_on=draw(st.sampled_from(["any", "9-11", "10-11"])),
        double_after_split=draw(st.booleans()),
        max_hands=hands,
        split_by=draw(st.sampled_from(["rank", "value"])),
        resplit_aces=hands >= 3 and draw(st.booleans()),
        hit_split_aces=draw(st.booleans()),
        late_surrender=not enhc and draw(st.booleans()),
        insurance=draw(st.booleans()),
        triple_seven=draw(st.booleans()),
        dealer_busts_bet=draw(st.booleans()),
        boxes=draw(st.integers(1, 7)),
        betting_behind=draw(st.booleans()),
        min_bet=draw(st.sampled_from([1, 5, 10])),
        max_bet=draw(st.sampled_from([10, 50, 500])),
    )


def choose(data: st.DataObject, r: ShoeRound) -> Action:
    legal = r.legal_actions()
    assert legal, f"no legal action in phase {r.phase}"
    # Deal soon enough that rounds are not all about betting.
    deal = [a for a in legal if a.kind is ActionKind.DEAL]
    if deal and data.draw(st.booleans()):
        return deal[0].action()
    rare = [a for a in legal if a.kind in RARE]
    if rare and data.draw(st.booleans()):
        legal = tuple(rare)
    a: LegalAction = data.draw(st.sampled_from(legal))
    amount = None
    if a.max_amount is not None:
        lo = a.min_amount if a.min_amount is not None else a.max_amount / 2
        amount = data.draw(st.sampled_from([lo, a.max_amount, (lo + a.max_amount) / 2]))
    return a.action(amount)


def check_cards(r: ShoeRound) -> None:
    cards = r.table_cards() + r.shoe.upcoming() + r.shoe.discards()
    assert Counter(cards) == Counter(full_shoe(r.rules.decks))


def check_money(r: ShoeRound) -> None:
    assert r.bankrolls is not None
    for p in r.bankrolls:
        assert r.available(p) >= 0, p


def check_refusal(data: st.DataObject, r: ShoeRound) -> None:
    legal = r.legal_actions()
    kinds = {a.kind for a in legal}
    other = [k for k in ActionKind if k not in kinds]
    if not other:
        return
    kind = data.draw(st.sampled_from(other))
    player = legal[0].player if legal and legal[0].player else "ann"
    before = r.round.to_json(reveal=True)
    try:
        r.apply(Action(kind, player, 1, Fraction(10)))[0]
    except IllegalAction as exc:
        assert exc.code
    else:
        raise AssertionError(f"{kind} was accepted but not listed as legal")
    assert r.round.to_json(reveal=True) == before


def check_settled(r: ShoeRound) -> None:
    assert r.phase is Phase.SETTLED and r.legal_actions() == ()
    for h in r.hands:
        assert all(s.settled for s in h.stakes)
    assert all(i.won is not None for i in r.insurance)
    assert all(b.won is not None for b in r.side_bets)
    nets = r.results()
    assert sum(nets.values()) + r.house_result() == 0
    # the settlement events account for every chip
    from_events: Counter[str] = Counter()
    for e in r.events:
        if e.kind in ("settled", "insurance_settled", "side_bet_settled"):
            from_events[e.player] += e.net  # type: ignore[attr-defined]
    for p, v in nets.items():
        assert from_events[p] == v
        assert r.bankrolls is not None and r.bankrolls[p] + v >= 0
    last = r.events[-1]
    assert last.kind == "round_settled" and last.net == nets  # type: ignore[attr-defined]


#: Cards that make the interesting cases (pairs, aces, tens, sevens) common.
SPICY = ["As", "Ah", "7s", "7h", "8s", "8h", "Ts", "Kh", "5c", "6d"]
RARE = {
    ActionKind.SPLIT,
    ActionKind.DOUBLE,
    ActionKind.INSURE,
    ActionKind.EVEN_MONEY,
    ActionKind.SURRENDER,
    ActionKind.FOLLOW_DOUBLE,
    ActionKind.SIDE_BET,
}


@settings(max_examples=150)
@given(rules=table_rules(), seed=st.integers(0, 2**32), data=st.data())
def test_random_legal_play_ends_settled(rules: TableRules, seed: int, data: st.DataObject) -> None:
    mode = data.draw(st.sampled_from(["mixed", "A", "8", "7", "TJ"]))
    if mode == "mixed":
        prefix = data.draw(st.lists(st.sampled_from(SPICY), max_size=30))
        prefix = [c for i, c in enumerate(prefix) if prefix[:i].count(c) < rules.decks]
    else:  # every card of these ranks first: pairs for every box (splits, resplits)
        prefix = [r + u for _ in range(rules.decks) for r in mode for u in "shdc"]
    shoe = Shoe.stacked(prefix, rules.decks, rules.penetration, random.Random(seed))
    chips = data.draw(
        st.dictionaries(st.sampled_from(NAMES), st.integers(rules.min_bet, 200), min_size=1)
    )
    r = ShoeRound.new(rules, shoe, chips)
    for _ in range(400):
        if r.settled:
            break
        if data.draw(st.integers(0, 4)) == 0:
            check_refusal(data, r)
        r = r.apply(choose(data, r))[0]
        check_cards(r)
        check_money(r)
    check_settled(r)
    kinds = {e.kind for e in r.events}
    for k in ("action", "split_stake", "double_stake", "insurance", "hole_card", "shuffled"):
        if k in kinds:
            event(k)
    for h in r.hands:
        event(f"hand {h.status.value}")


@settings(max_examples=25)
@given(rules=table_rules(min_decks=1), seed=st.integers(0, 2**32), data=st.data())
def test_sessions_conserve_chips_and_cards(
    rules: TableRules, seed: int, data: st.DataObject
) -> None:
    rules = rules.replace(
        rounds=6, starting_chips=max(rules.min_bet, 60), boxes=min(rules.boxes, 4)
    )
    s = Session.start(rules, NAMES[:2], random.Random(seed))
    total = sum(s.balances.values())
    while not s.over:
        r = s.new_round()
        for _ in range(400):
            if r.settled:
                break
            r = r.apply(choose(data, r))[0]
            check_cards(r)
            check_money(r)
        check_settled(r)
        s = s.record(r)
        assert all(v >= 0 for v in s.balances.values())
        assert sum(s.balances.values()) + s.house == total
