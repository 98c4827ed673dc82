"""Seed 004: the house sets the limits per box (issue 37). The table rules carry the
smallest bet and the limit per box; the rules screen offers them, the engine refuses a
bet outside them with a translated code, the casino lobby and the terminal host say
and take them; every preset keeps 10 to 500."""

from __future__ import annotations

import argparse

import pytest

from app.rules.blackjack.deal import ShoeRound
from app.rules.errors import IllegalAction
from app.rules.shoe import Shoe
from app.rules.table_rules import PRESETS, TableRules

CHOICES = {"min_bet": (1, 5, 10, 25), "max_bet": (100, 250, 500, 1000)}


def test_every_preset_keeps_todays_limits_and_the_screen_offers_them() -> None:
    from app.views.blackjack.menu import OPTION_HELP, RULE_OPTIONS

    offered = {field: tuple(v for v, _m in choices) for field, _l, choices in RULE_OPTIONS}
    assert {f: offered[f] for f in CHOICES} == CHOICES
    assert set(CHOICES) <= set(OPTION_HELP)
    for rules in PRESETS.values():
        assert (rules.min_bet, rules.max_bet) == (10, 500)


@pytest.mark.parametrize("low", CHOICES["min_bet"])
@pytest.mark.parametrize("high", CHOICES["max_bet"])
def test_the_engine_keeps_the_houses_limits(low: int, high: int) -> None:
    from app.views.blackjack.vm import rule_change

    rules, problem = rule_change(TableRules.preset("european"), "min_bet", low)
    rules, problem2 = rule_change(rules, "max_bet", high)
    assert problem == problem2 == ""
    t = ShoeRound.new(rules, Shoe.scripted("9s Td 7h Ks"), {"ann": 5000, "bob": 5000})
    bet = next(a for a in t.legal_actions("ann") if a.kind.value == "bet" and a.box == 1)
    assert (bet.min_amount, bet.max_amount) == (low, high)
    for amount, code in ((low - 1, "bet_below_limit"), (high + 1, "bet_above_limit")):
        if amount >= 1:
            with pytest.raises(IllegalAction) as info:
                t.act("bet", "ann", 1, amount)
            assert info.value.code == code
    # the limit is the box's: the owner's bet and a bet behind together
    t = t.act("bet", "ann", 1, high - low)
    with pytest.raises(IllegalAction) as info:
        t.act("bet", "bob", 1, low + 1)
    assert info.value.code == "bet_above_limit"
    t = t.act("bet", "bob", 1, low)
    assert t.round.box_total(1) == high


@pytest.mark.parametrize("lang", ["en", "de", "pl", "fr", "es", "it", "cs", "uk", "tr"])
def test_a_bet_out_of_the_limits_is_told_in_every_language(lang: str) -> None:
    from app import i18n
    from app.i18n.codes import error_message

    rules = TableRules().replace(min_bet=25, max_bet=100)
    t = ShoeRound.new(rules, Shoe.scripted("9s Td 7h Ks"), {"ann": 500})
    try:
        i18n.set_language(lang)
        for amount in (5, 200):
            with pytest.raises(IllegalAction) as info:
                t.act("bet", "ann", 1, amount)
            text = error_message(info.value)
            assert info.value.code not in text and ("25" in text or "100" in text), text
    finally:
        i18n.set_language("en")


def test_the_lobby_says_the_houses_limits_once() -> None:
    from app.views.casino.lobby import rules_lines

    lines = rules_lines(TableRules.preset("european").replace(min_bet=5, max_bet=1000))
    assert lines[-1] == "Bets from 5 to 1000 per box"
    assert not [line for line in lines[:-1] if "5" in line.split(":")[-1] and "box" in line]


def test_the_terminal_host_takes_the_limits(capsys) -> None:
    from app.cli import main
    from app.terminal.casino import _rules

    ns = argparse.Namespace(rules="european", decks=None, penetration=None, min_bet=5, max_bet=250)
    assert (_rules(ns).min_bet, _rules(ns).max_bet) == (5, 250)
    assert main(["casino", "--host", "--min-bet", "600", "--dealer", "open", "--bot"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "min_bet_above_max" in err, err
