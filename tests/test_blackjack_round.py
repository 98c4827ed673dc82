"""The round's API: legal actions, refusals, the deal order, betting behind, the shoe."""

from __future__ import annotations

import json
import random
from collections import Counter
from fractions import Fraction

import pytest

from app.cards import Card
from app.cards import shoe as full_shoe
from app.rules.blackjack import Action, ActionKind, HandStatus, Phase
from app.rules.blackjack.deal import ShoeRound
from app.rules.errors import IllegalAction
from app.rules.session import Session
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules

CLASSIC = TableRules.preset("classic")
EURO = TableRules.preset("european")


def dealt(
    rules: TableRules, cards: str, bets: list[tuple[str, int, int]], chips: int = 1000
) -> ShoeRound:
    players = {p for p, _, _ in bets}
    r = ShoeRound.new(rules, Shoe.scripted(cards), dict.fromkeys(players, chips))
    for p, box, amount in bets:
        r = r.apply(Action.bet(p, box, amount))[0]
    return r.apply(Action.deal())[0]


def kinds(r: ShoeRound) -> set[str]:
    return {a.kind.value for a in r.legal_actions()}


def refused(r: ShoeRound, action: Action, code: str) -> None:
    before = (r.round.to_json(reveal=True), r.events)
    with pytest.raises(IllegalAction) as info:
        r.apply(action)[0]
    assert info.value.code == code
    assert (r.round.to_json(reveal=True), r.events) == before  # changes nothing


def test_round_is_immutable() -> None:
    r0 = ShoeRound.new(CLASSIC, Shoe.scripted("Th Tc 9s 7d"), {"ann": 100})
    r1 = r0.apply(Action.bet("ann", 1, 10))[0]
    assert r0.hands == () and r0.events == ()
    assert len(r1.hands) == 1 and r1.available("ann") == 90


def test_betting_refusals() -> None:
    r = ShoeRound.new(CLASSIC, Shoe.scripted("Th Tc 9s 7d"), {"ann": 100, "bob": 100})
    refused(r, Action.deal(), "no_bets")
    refused(r, Action.bet("zed", 1, 10), "unknown_player")
    refused(r, Action.bet("ann", 0, 10), "bad_box")
    refused(r, Action.bet("ann", 8, 10), "bad_box")
    refused(r, Action.bet("ann", 1, 0), "bad_amount")
    refused(r, Action(ActionKind.BET, None, 1, Fraction(10)), "player_required")
    refused(r, Action.make("hit", "ann"), "wrong_phase")
    refused(r, Action.side_bet("ann", 10), "side_bet_not_offered")
    r = r.apply(Action.bet("ann", 1, 10))[0]
    refused(r, Action.bet("ann", 1, 10), "already_bet")
    refused(r, Action.bet("bob", 1, 10), "box_taken")
    e = ShoeRound.new(EURO, Shoe.scripted("Th Tc 9s 7d"), {"ann": 100, "bob": 100})
    refused(e, Action.side_bet("ann", 10), "side_bet_needs_bet")
    e = e.apply(Action.bet("ann", 1, 10))[0].apply(Action.side_bet("ann", 10))[0]
    refused(e, Action.side_bet("ann", 10), "already_bet")
    refused(e.apply(Action.bet("bob", 2, 10))[0], Action.side_bet("bob", 600), "bet_above_limit")


def test_betting_legal_actions_respect_limits_and_balance() -> None:
    r = ShoeRound.new(EURO, Shoe.scripted("Th"), {"ann": 300, "bob": 1000})
    r = r.apply(Action.bet("ann", 1, 300))[0]
    bets = {(a.player, a.box): a for a in r.legal_actions() if a.kind is ActionKind.BET}
    assert ("ann", 2) not in bets  # ann has no chips left
    assert bets[("bob", 1)].max_amount == 200  # box limit 500 minus ann's 300
    assert bets[("bob", 2)].max_amount == 500
    assert bets[("bob", 1)].min_amount == 10
    assert not any(a.kind is ActionKind.SIDE_BET and a.player == "ann" for a in r.legal_actions())


def test_unlimited_bankroll_for_simulations() -> None:
    r = ShoeRound.new(CLASSIC, Shoe.scripted("Th Tc 9s 7d"))
    assert r.available("anyone") is None
    assert any(a.kind is ActionKind.BET and a.player is None for a in r.legal_actions())
    r = r.apply(Action.bet("sim", 1, 500))[0].apply(Action.deal())[0].act("stand", "sim")
    assert r.settled and r.net("sim") == 500


def test_deal_order_peek() -> None:
    r = dealt(CLASSIC, "2s 3s 4s 5s 6s 7s 8s", [("ann", 1, 10), ("bob", 3, 10)])
    # box 1, box 3, dealer up, box 1, box 3, hole card
    seq = [(e.kind, getattr(e, "box", None), str(e.card)) for e in r.events if hasattr(e, "card")]
    assert seq == [
        ("card", 1, "2s"), ("card", 3, "3s"), ("dealer_card", None, "4s"),
        ("card", 1, "5s"), ("card", 3, "6s"), ("dealer_card", None, "7s"),
    ]  # fmt: skip
    assert r.events[-1].face_down  # type: ignore[attr-defined]
    snap = r.round.to_json()
    assert snap["dealer"] == {"cards": ["4s", "??"], "total": 4}
    assert r.round.to_json(reveal=True)["dealer"]["cards"] == ["4s", "7s"]
    json.dumps(snap)


def test_enhc_dealer_second_card_after_players() -> None:
    r = dealt(EURO, "Ts 6d 9h Tc 2c", [("ann", 1, 10)])
    assert len(r.dealer) == 1 and r.phase is Phase.PLAY
    r = r.act("stand", "ann")
    kinds_ = [e.kind for e in r.events]
    assert kinds_.index("action") < len(kinds_) - 1 - kinds_[::-1].index("dealer_card")
    assert [str(c) for c in r.dealer] == ["6d", "Tc", "2c"] and r.net("ann") == 10


def test_peek_only_on_ace_or_ten() -> None:
    r = dealt(CLASSIC, "Th 9c 8s 7d", [("ann", 1, 10)])
    assert not any(e.kind == "peek" for e in r.events)
    r = dealt(CLASSIC, "Th Kc 8s 7d", [("ann", 1, 10)])
    assert [e.blackjack for e in r.events if e.kind == "peek"] == [False]  # type: ignore[attr-defined]
    assert r.phase is Phase.PLAY and not r.hole_revealed


def test_insurance_choices() -> None:
    r = dealt(CLASSIC, "As Ad Kh 7c", [("ann", 1, 10)])
    assert r.phase is Phase.INSURANCE
    assert kinds(r) == {"even_money", "insure", "decline_insurance"}
    r = dealt(CLASSIC, "Ts Ad 9h 7c", [("ann", 1, 10)])
    assert kinds(r) == {"insure", "decline_insurance"}
    insure = next(a for a in r.legal_actions() if a.kind is ActionKind.INSURE)
    assert insure.max_amount == 5
    refused(r, Action.make("even_money", "ann", 1), "no_blackjack")
    refused(r, Action.insure("ann", 1, 6), "insurance_above_half")
    refused(r, Action.insure("ann", 2, 5), "no_insurance_decision")
    refused(r, Action.make("hit", "ann"), "wrong_phase")


def test_insurance_limited_by_balance_and_skipped_when_broke() -> None:
    r = dealt(CLASSIC, "Ts Ad 9h 7c", [("ann", 1, 10)], chips=13)
    insure = next(a for a in r.legal_actions() if a.kind is ActionKind.INSURE)
    assert insure.max_amount == 3
    r = dealt(CLASSIC, "Ts Ad 9h 7c", [("ann", 1, 10)], chips=10)
    assert r.phase is Phase.PLAY  # nothing to insure with


def test_insurance_off() -> None:
    r = dealt(CLASSIC.replace(insurance=False), "Ts Ad 9h 7c", [("ann", 1, 10)])
    assert r.phase is Phase.PLAY


def test_play_refusals() -> None:
    r = dealt(CLASSIC, "Ts Td 6h 7c 9c 8d", [("ann", 1, 10), ("bob", 2, 10)])
    refused(r, Action.make("hit", "bob"), "not_your_turn")
    refused(r, Action.make("split", "ann"), "cannot_split")
    refused(r, Action.make("surrender", "ann"), "cannot_surrender")
    refused(r, Action.make("follow_double", "ann"), "wrong_phase")
    with pytest.raises(IllegalAction) as info:
        r.act("fly", "ann")
    assert info.value.code == "unknown_action"
    with pytest.raises(IllegalAction) as info:
        r.apply("hit")[0]  # type: ignore[arg-type]
    assert info.value.code == "bad_action"


def test_split_aces_one_card_no_hit() -> None:
    rules = CLASSIC.replace(max_hands=4)
    r = dealt(rules, "As Td Ah 9c", [("ann", 1, 10)])
    assert "split" in kinds(r)
    # first split ace gets an ace: classic does not resplit aces -> stands by itself
    r = ShoeRound.new(rules, Shoe.scripted("As Td Ah 9c Ac 5d Kd"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal").act("split", "ann")
    assert r.settled
    assert [len(h.cards) for h in r.hands] == [2, 2]


def test_resplit_aces_european_offers_only_split_or_stand() -> None:
    r = ShoeRound.new(EURO, Shoe.scripted("As 7s Ah Ad"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal").act("split", "ann")
    assert r.current is not None and [str(c) for c in r.current.cards] == ["As", "Ad"]
    assert kinds(r) == {"split", "stand"}
    refused(r, Action.make("hit", "ann"), "cannot_hit")
    refused(r, Action.make("double", "ann"), "cannot_double")


def test_hit_split_aces_option() -> None:
    rules = CLASSIC.replace(hit_split_aces=True)
    r = ShoeRound.new(rules, Shoe.scripted("As Td Ah 9c 5c 5d"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal").act("split", "ann")
    assert {"hit", "stand", "double"} <= kinds(r)


def test_split_renumbers_and_plays_in_order() -> None:
    r = ShoeRound.new(CLASSIC, Shoe.scripted("8s Td 8h 9c 8d 2c 3c 4c"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal").act("split", "ann").act("split", "ann")
    assert [(h.number, [str(c) for c in h.cards], h.status) for h in r.hands] == [
        (1, ["8s", "2c"], HandStatus.PLAYING),
        (2, ["8d"], HandStatus.WAITING),
        (3, ["8h"], HandStatus.WAITING),
    ]
    assert r.available("ann") == 70
    r = r.act("stand", "ann")
    assert r.current is not None and r.current.number == 2 and len(r.current.cards) == 2


def test_split_hand_is_not_a_natural() -> None:
    r = ShoeRound.new(CLASSIC, Shoe.scripted("As 9d Ah Td Kc 8c"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal").act("split", "ann")
    h = r.hands[0]
    assert h.total == 21 and not h.natural and h.status is HandStatus.STOOD


def test_double_follow_phase() -> None:
    r = dealt(EURO, "5s Td 6h", [("ann", 1, 10), ("bob", 1, 10), ("cy", 1, 10)])
    r = r.act("double", "ann")
    assert r.phase is Phase.DOUBLE_FOLLOW
    assert set(r.waiting_for()) == {"bob", "cy"}
    refused(r, Action.make("hit", "ann"), "wrong_phase")
    refused(r, Action.make("follow_double", "ann"), "no_double_decision")
    r = r.act("follow_double", "bob")
    assert r.waiting_for() == ("cy",) and len(r.hands[0].cards) == 2  # card waits for cy


def test_behind_bettor_who_cannot_pay_does_not_follow_double() -> None:
    r = ShoeRound.new(EURO, Shoe.scripted("5s Td 6h 9c 7c"), {"ann": 100, "bob": 10})
    r = r.act("bet", "ann", 1, 10).act("bet", "bob", 1, 10).act("deal").act("double", "ann")
    assert r.settled  # nobody to ask: the card came at once
    assert r.net("ann") == 20 and r.net("bob") == 10


def test_behind_bettor_does_not_decide() -> None:
    r = dealt(EURO, "5s Td 6h", [("ann", 1, 10), ("bob", 1, 10)])
    refused(r, Action.make("hit", "bob"), "not_your_turn")


def test_surrender_needs_first_decision() -> None:
    rules = CLASSIC.replace(late_surrender=True)
    r = dealt(rules, "2s Td 3h 7c 4d", [("ann", 1, 10)])
    assert "surrender" in kinds(r)
    r = r.act("hit", "ann")
    assert "surrender" not in kinds(r)


def test_dealer_does_not_draw_when_nothing_is_live() -> None:
    r = dealt(CLASSIC, "Ts 6d 6h 5c Kc", [("ann", 1, 10)])
    r = r.act("hit", "ann")
    assert r.settled and [str(c) for c in r.dealer] == ["6d", "5c"]


def test_events_are_json() -> None:
    r = dealt(EURO, "7s Td 7h 7d", [("ann", 1, 10)])
    r = r.act("hit", "ann")
    out = [e.to_json() for e in r.events]
    json.dumps(out)
    assert {"event": "hand_end", "box": 1, "hand": 1, "status": "triple_seven", "total": 21} in out
    assert out[-1] == {"event": "round_settled", "net": {"ann": 15}, "house": -15}


def test_cut_card_reshuffles_between_rounds() -> None:
    rules = CLASSIC.replace(decks=1, penetration=Fraction(1, 26))  # cut card after 2 cards
    s = Session.start(rules, ["ann"], random.Random(3))
    r = s.new_round().act("bet", "ann", 1, 10).act("deal")
    while not r.settled:
        r = r.apply(
            next(a for a in r.legal_actions() if a.kind in ("stand", "decline_insurance")).action()
        )[0]
    assert not any(e.kind == "shuffled" for e in r.events)
    s = s.record(r)
    assert s.shoe.due
    r2 = s.new_round()
    assert [e.to_json() for e in r2.events] == [{"event": "shuffled", "reason": "cut_card"}]
    assert r2.shoe.position == 0 and r2.shoe.remaining == 52
    assert r2.shoe.cards != r.shoe.cards  # a new order


def test_empty_shoe_mid_round_reshuffles_the_discards() -> None:
    rules = CLASSIC.replace(decks=1, penetration=Fraction(1), rounds=50)
    s = Session.start(rules, ["ann"], random.Random(5))
    seen_empty = False
    while not s.over and not seen_empty:
        r = s.new_round()
        for box in range(1, 8):
            r = r.act("bet", "ann", box, 10)
        r = r.act("deal")
        while not r.settled:
            legal = r.legal_actions()
            pick = next((a for a in legal if a.kind in ("hit", "decline_insurance")), legal[0])
            r = r.apply(pick.action())[0]
            cards = r.table_cards() + r.shoe.upcoming() + r.shoe.discards()
            assert Counter(cards) == Counter(full_shoe(1))
        seen_empty = any(e.kind == "shuffled" and e.reason == "shoe_empty" for e in r.events)  # type: ignore[attr-defined]
        s = s.record(r)
    assert seen_empty


def test_scripted_shoe_runs_out() -> None:
    from app.rules.shoe import ShoeEmpty

    r = ShoeRound.new(CLASSIC, Shoe.scripted("5s 9d 6h 7c Td"), {"ann": 100})
    r = r.act("bet", "ann", 1, 10).act("deal")
    with pytest.raises(ShoeEmpty):
        r.act("double", "ann")


def test_card_values_for_split_by_value() -> None:
    from app.rules.blackjack import is_pair

    j, q, a, t = Card.parse("Js"), Card.parse("Qh"), Card.parse("As"), Card.parse("Td")
    assert is_pair(j, q, "value") and not is_pair(j, q, "rank")
    assert is_pair(t, q, "value") and not is_pair(a, t, "value")


def test_error_codes_are_listed() -> None:
    import re
    from pathlib import Path

    import app.rules.blackjack as bj

    # the round's code is split by concern over app/rules/blackjack/*.py
    src = "".join(
        f.read_text(encoding="utf-8") for f in Path(bj.__file__).parent.glob("*.py")
        if f.name != "scenario.py"
    )
    raised = set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', src))
    raised |= {f"cannot_{k.value}" for k in bj.PLAY_KINDS}
    assert raised == set(bj.ERROR_CODES)


def test_public_events_hide_the_hole_card() -> None:
    r = dealt(CLASSIC, "Th Kc 8s 7d 9d", [("ann", 1, 10)])
    hole = [e for e in r.round.public_events() if e["event"] == "dealer_card"][1]
    assert hole == {"event": "dealer_card", "card": None, "face_down": True}
    n = len(r.events)
    r = r.act("stand", "ann")
    assert [e for e in r.round.public_events() if e["event"] == "dealer_card"][1]["card"] == "7d"
    assert r.round.public_events(n)[0]["event"] == "action"


def test_no_bet_behind_when_owner_bet_the_limit() -> None:
    # Seed 004: "Hat der Boxinhaber bereits den maximal möglichen Einsatz getätigt, darf
    # somit kein Mitspieler mehr auf diese Box mitsetzen."
    r = ShoeRound.new(EURO, Shoe.scripted("Th"), {"ann": 1000, "bob": 1000})
    r = r.apply(Action.bet("ann", 1, 500))[0]
    assert not any(a.kind is ActionKind.BET and a.box == 1 for a in r.legal_actions())
    refused(r, Action.bet("bob", 1, 10), "bet_above_limit")


def test_the_shoe_round_deals_what_the_round_asks_for() -> None:
    """On one phone the shoe supplies each card the round waits for (its table action
    ``card``) right after the action that asked; nobody else may give one."""
    t = ShoeRound.new(CLASSIC, Shoe.scripted("Th Tc 9s 7d 5c"), {"ann": 100})
    t = t.act("bet", "ann", 1, 10)
    with pytest.raises(IllegalAction) as info:
        t.apply(Action.deal_card("As"))
    assert info.value.code == "wrong_phase"
    dealt, events = t.apply(Action.deal())
    assert t.shoe.remaining == 5 and dealt.shoe.remaining == 1  # (values: t unchanged)
    assert [(e.kind, str(getattr(e, "card", ""))) for e in events] == [
        ("card", "Th"), ("dealer_card", "Tc"), ("card", "9s"), ("dealer_card", "7d"),
        ("peek", ""),
    ]  # fmt: skip
    assert dealt.round.need is None and dealt.phase is Phase.PLAY
    hit, events = dealt.apply(Action.make("hit", "ann"))
    assert str(events[1].card) == "5c" and hit.settled  # type: ignore[attr-defined]
