"""Sessions: starting chips and rounds from the rules, conservation, summary."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from app.rules.blackjack import Round
from app.rules.blackjack.deal import ShoeRound
from app.rules.errors import IllegalAction
from app.rules.session import Session, SessionError
from app.rules.shoe import Shoe
from app.rules.table_rules import TableRules


def stand_round(r: Round, bets: dict[str, int]) -> Round:
    for box, (p, amount) in enumerate(bets.items(), 1):
        r = r.act("bet", p, box, amount)
    r = r.act("deal")
    while not r.settled:
        legal = r.legal_actions()
        r = r.apply(next(a for a in legal if a.kind in ("stand", "decline_insurance")).action())[0]
    return r


def test_start_uses_rules() -> None:
    s = Session.start(TableRules(), ["ann", "bob"], random.Random(1))
    assert dict(s.balances) == {"ann": 1000, "bob": 1000}
    assert s.rules.rounds == 20 and not s.over
    assert s.shoe.remaining == 6 * 52


def test_bad_players() -> None:
    for players in ([], ["ann", "ann"], [""]):
        with pytest.raises(SessionError):
            Session.start(TableRules(), players, random.Random(1))


def test_rounds_and_summary() -> None:
    rules = TableRules(rounds=3)
    s = Session.start(rules, ["ann", "bob"], random.Random(2))
    nets = []
    for _ in range(3):
        r = stand_round(s.new_round(), {"ann": 10, "bob": 25})
        nets.append(r.results())
        s = s.record(r)
    assert s.over
    with pytest.raises(SessionError) as info:
        s.new_round()
    assert info.value.code == "session_over"
    summary = s.summary()
    assert summary["rounds_played"] == 3 and summary["over"] is True
    for p in ("ann", "bob"):
        total = sum(n[p] for n in nets)
        assert s.balances[p] == 1000 + total
        assert summary["players"][p]["net"] == total
        assert summary["players"][p]["best_round"] == max(n[p] for n in nets)
    assert s.house == -sum(sum(n.values()) for n in nets)
    assert summary["house"] == s.house


def test_record_checks_the_round() -> None:
    s = Session.start(TableRules(), ["ann"], random.Random(3))
    r = s.new_round().act("bet", "ann", 1, 10)
    with pytest.raises(IllegalAction) as info:
        s.record(r)
    assert info.value.code == "round_not_settled"
    foreign = stand_round(
        ShoeRound.new(TableRules(), Shoe.scripted("Th Tc 9s 7d"), {"ann": 500}), {"ann": 10}
    )
    with pytest.raises(IllegalAction) as info:
        s.record(foreign)
    assert info.value.code == "foreign_round"


def test_bets_within_balance_and_broke_player_ends_session() -> None:
    rules = TableRules(starting_chips=10, rounds=50)
    s = Session.start(rules, ["ann"], random.Random(4), shoe=Shoe.scripted("Th Tc 6s 7d"))
    r = s.new_round()
    with pytest.raises(IllegalAction) as info:
        r.act("bet", "ann", 1, 20)
    assert info.value.code == "insufficient_chips"
    r = stand_round(r, {"ann": 10})
    s = s.record(r)
    assert s.balances["ann"] == 0 and s.over


def test_fractional_balances_stay_exact() -> None:
    rules = TableRules(blackjack_pays=Fraction(6, 5), min_bet=5, starting_chips=7)
    s = Session.start(rules, ["ann"], random.Random(5), shoe=Shoe.scripted("As 9d Kh 7c"))
    s = s.record(stand_round(s.new_round(), {"ann": 7}))
    assert s.balances["ann"] == Fraction(77, 5)
    assert s.summary()["players"]["ann"]["balance"] == "15.4"
