"""Blackjack presenter and game controller, on the real casino engine, without Kivy."""

from __future__ import annotations

import random

import pytest

from app import i18n
from app.cards import Card
from app.rules.shoe import Shoe
from app.rules.table_rules import PRESETS, TableRules
from app.views.blackjack.game import BlackjackGame
from app.views.blackjack.vm import BACK, chip_choices, chips, present, summary_lines, total_text


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def game(cards: str, rules: TableRules | None = None, bots=()) -> BlackjackGame:
    return BlackjackGame(rules or TableRules(), "me", bots, shoe=Shoe.scripted(cards))


def test_betting_phase() -> None:
    g = game("As 9d 6h 7c")
    vm = present(g)
    assert vm.phase == "betting" and vm.balance == "Chips: 1000"
    assert [b.bet_range for b in vm.boxes] == [(10, 500)] * 7
    assert not vm.can_deal  # nobody has bet yet
    assert not any(vm.actions.values())
    assert chip_choices(10, 500) == (10, 25, 50, 100, 250, 500)


def test_soft_total_hole_card_and_legal_buttons() -> None:
    g = game("As 9d 6h 7c 5s")  # me A+6 = soft 17 against 9 (hole 7 face down)
    g.bet(1, 10)
    g.deal()
    vm = present(g)
    assert vm.dealer_cards == (Card.parse("9d").code, BACK) and vm.dealer_total == "9"
    hand = vm.boxes[0].hands[0]
    assert (hand.total, hand.current) == ("soft 17", True)
    assert vm.actions == {
        "hit": True,
        "stand": True,
        "double": True,
        "split": False,
        "surrender": False,
    }
    assert vm.turn == "Your hand on box 1: what do you do?"
    assert vm.balance == "Chips: 990"
    g.decide("stand")
    vm = present(g)
    assert (vm.phase, vm.dealer_total) == ("settled", "21")  # 9 + 7 + 5
    assert vm.dealer_cards == tuple(Card.parse(c).code for c in ("9d", "7c", "5s"))


def test_insurance_prompt_then_play() -> None:
    g = game("Ts Ah 9h 7c 5d")
    g.bet(1, 10)
    g.deal()
    vm = present(g)
    assert vm.prompt is not None and vm.prompt.box == 1
    assert vm.prompt.text == "The dealer shows an ace. Insurance for box 1?"
    assert [c[0] for c in vm.prompt.choices] == ["insure", "decline_insurance"]
    assert vm.prompt.choices[0][1:] == ("Insure 5", 5)
    g.insure(1, 5)
    vm = present(g)
    assert vm.prompt is None and vm.actions["hit"]  # no dealer blackjack: play on


def test_even_money_for_a_blackjack_against_an_ace() -> None:
    g = game("As Ad Kh 7c")
    g.bet(1, 10)
    g.deal()
    vm = present(g)
    assert vm.prompt.text.startswith("You have blackjack against an ace")
    assert vm.prompt.choices[0][0] == "even_money"
    g.decide("even_money", 1)
    vm = present(g)
    assert vm.phase == "settled"
    assert vm.result == "You won 10 chips this round."
    assert "even money" in vm.boxes[0].hands[0].result


def test_six_to_five_exact_chips_in_each_language() -> None:
    rules = TableRules(blackjack_pays="6/5", min_bet=1)
    g = game("As 9d Kh 7c", rules)
    g.bet(1, 7)
    g.deal()
    assert present(g).result == "You won 8.4 chips in this round."
    i18n.set_language("de")
    vm = present(g)
    assert vm.result == "Du hast in dieser Runde 8,4 Chips gewonnen."
    assert vm.boxes[0].hands[0].total == "Blackjack"
    assert "blackjack zahlt 6:5" in vm.rules.lower()


def test_bust_and_loss() -> None:
    g = game("Ts 9d 6h 7c Kd")
    g.bet(1, 10)
    g.deal()
    g.decide("hit")
    vm = present(g)
    assert vm.boxes[0].hands[0].total == "bust (26)"
    assert vm.result == "You lost 10 chips this round."
    assert "bust, lost" in vm.boxes[0].hands[0].result


def test_betting_behind_a_bot_and_following_a_double() -> None:
    rules = PRESETS["european"]
    g = game("5s 6h 5h Td Ts 8c", rules, bots=["Bruno"])  # Bruno: 5+5 = 10 vs 6 (ENHC)
    vm = present(g)
    box4 = vm.boxes[3]
    assert box4.owner == "Bruno" and box4.behind and box4.bet_range == (10, 490)
    g.bet(4, 10)
    g.deal()
    vm = present(g)  # the bot doubled its 10: the player behind decides
    assert vm.prompt is not None
    assert [c[0] for c in vm.prompt.choices] == ["follow_double", "decline_double"]
    g.decide("decline_double", 4)
    vm = present(g)  # Bruno 20, dealer 6+10+8 = 24
    assert vm.phase == "settled" and vm.dealer_total == "bust (24)"
    assert vm.boxes[3].hands[0].stakes == "Bruno 20 · You 10"
    assert vm.result == "You won 10 chips this round."


def test_surrender_offered_when_the_rules_allow() -> None:
    g = game("Ts 9d 6h 7c", TableRules(late_surrender=True))
    g.bet(1, 10)
    g.deal()
    assert present(g).actions["surrender"]
    g.decide("surrender")
    vm = present(g)
    assert vm.result == "You lost 5 chips this round."


def test_illegal_decision_raises_and_changes_nothing() -> None:
    g = game("Ts 9d 6h 7c")
    g.bet(1, 10)
    g.deal()
    before = g.round
    with pytest.raises(ValueError) as err:
        g.decide("split")
    assert err.value.code == "cannot_split" and g.round is before


def test_a_whole_session_and_its_summary() -> None:
    g = BlackjackGame(TableRules(rounds=3), "me", rng=random.Random(5))
    for _ in range(3):
        g.bet(1, 10)
        g.deal()
        while not g.round.settled:
            vm = present(g)
            if vm.prompt:
                g.decide(vm.prompt.choices[-1][0], vm.prompt.box)
            else:
                g.decide("stand")
        g.next_round()
    assert g.over
    lines = dict(summary_lines(g.session.summary(), "me"))
    assert lines["Rounds played"] == "3 / 3"
    assert lines["Chips at the start"] == "1000"
    net = sum(h["me"] for h in g.session.history)
    assert lines["Chips now"] == chips(1000 + net)


def test_total_text() -> None:
    assert [
        total_text(17, True),
        total_text(17, False),
        total_text(21, True),
        total_text(21, False, True),
        total_text(23, False),
    ] == ["soft 17", "17", "21", "Blackjack", "bust (23)"]


def _expected_hint(g: BlackjackGame) -> str:
    """The hint as the strategy module computes it, over the engine's legal actions."""
    from app.strategy.hint import hint

    r = g.round
    h = r.current
    legal = {a.kind.value for a in g.legal()}
    seen = [c for other in r.hands if other is not h for c in other.cards]
    evs = {
        k: v
        for k, v in hint(
            r.rules, r.dealer[0], h.cards, seen, hands_now=len(r.box_hands(h.box))
        ).evs.items()
        if k in legal
    }
    best = max(evs, key=evs.__getitem__)
    return f"Hint: {best.capitalize()} (expected {evs[best]:+.2f} per chip)"


def test_strategy_hint_for_the_hand_in_play() -> None:
    g = game("Th 6c 6d 9s")  # hard 16 against a 6: stand
    g.bet(1, 10)
    g.deal()
    assert present(g).hint == ""  # hints off
    vm = present(g, hints=True)
    assert vm.hint.startswith("Hint: Stand") and vm.hint == _expected_hint(g)


def test_strategy_hint_only_names_legal_actions() -> None:
    g = game("5h 9c 4d 9s 2c")  # 5+4 = 9 against a 9, then a 2: 11 on three cards
    g.bet(1, 10)
    g.deal()
    g.decide("hit")
    vm = present(g, hints=True)
    assert not vm.actions["double"]  # three cards: no double
    assert "Double" not in vm.hint and vm.hint == _expected_hint(g)


def test_no_hint_outside_the_players_turn() -> None:
    g = game("Th 6c 9s 7h 5d")
    assert present(g, hints=True).hint == ""  # betting
    g.bet(1, 10)
    g.deal()
    g.decide("stand")  # the dealer draws to 18, the round is settled
    vm = present(g, hints=True)
    assert vm.phase == "settled" and vm.hint == ""


def test_hint_in_german_uses_a_decimal_comma() -> None:
    g = game("Th 6c 6d 9s")
    g.bet(1, 10)
    g.deal()
    i18n.set_language("de")
    hint = present(g, hints=True).hint
    assert hint.startswith("Tipp: Keine Karte (Erwartung -0,")  # stand, as a German casino says


def test_saved_rules_from_the_preferences() -> None:
    from app.prefs import Prefs
    from app.views.blackjack.game import saved_rules

    assert saved_rules(Prefs()) == (PRESETS["classic"], None)
    assert saved_rules(Prefs(bj_preset="german")) == (PRESETS["german"], None)
    custom = PRESETS["european"].replace(decks=2)
    assert saved_rules(Prefs(table_rules=custom.to_json(), bj_preset="custom")) == (custom, None)
    # rules saved by another version, or edited by hand: the classic table and a message
    rules, warning = saved_rules(Prefs(table_rules={"decks": 99}))
    assert rules == PRESETS["classic"] and warning == "These table rules do not fit together."
    rules, warning = saved_rules(Prefs(table_rules={"croupier": "robot"}))
    assert rules == PRESETS["classic"] and warning == "Unknown table rule."


def test_the_dealer_busts_bet_stays_on_the_table_until_settled() -> None:
    g = BlackjackGame(PRESETS["european"], "you", [], random.Random(11))
    g.bet(1, 10)
    g.side_bet(10)
    assert present(g).side_bet_text == "Your bet on the dealer busting: 10 (pays 5:2)"
    g.deal()
    vm = present(g)
    if vm.phase != "settled":
        assert vm.side_bet_text == "Your bet on the dealer busting: 10 (pays 5:2)"
    while g.round is not None and not g.round.settled:
        prompt = present(g).prompt  # insurance when the dealer shows an ace: no
        g.decide(prompt.choices[-1][0] if prompt is not None else "stand")
    assert present(g).side_bet_text == ""  # settled: its result is in the round's result


def test_polish_chips_follow_the_plural_rule() -> None:
    from app.views.blackjack.vm import won_lost_text

    i18n.set_language("pl")
    assert won_lost_text(1, won=True) == "Wygrywasz w tej rundzie 1 żeton."
    assert won_lost_text(3, won=True) == "Wygrywasz w tej rundzie 3 żetony."
    assert won_lost_text(50, won=False) == "Tracisz w tej rundzie 50 żetonów."
    i18n.set_language("en")


def test_rebet_and_clear_bets() -> None:
    g = BlackjackGame(PRESETS["european"], "you", [], random.Random(3))
    start = g.balance()
    assert not g.can_rebet and not g.can_clear
    g.bet(1, 25)
    g.side_bet(10)
    assert g.can_clear and g.balance() == start - 35
    g.clear_bets()
    assert g.balance() == start and not g.can_clear and g.bets == []
    g.bet(2, 10)
    g.side_bet(10)
    g.deal()
    while not g.round.settled:
        g.decide("stand")
    g.next_round()
    assert g.can_rebet
    before = g.balance()
    g.rebet()
    assert g.balance() == before - 20 and g.bets == [("bet", 2, 10), ("side_bet", 0, 10)]
    assert not g.can_rebet
    assert present(g).can_deal


# issue 37, item 8: two rules that contradict each other: the rules screen says why,
# with the same reason code and words as the terminal tool


CONFLICTS = [
    (TableRules(late_surrender=True), "hole_card", "enhc", "surrender_needs_peek"),
    (TableRules(), "enhc_original_bets_only", True, "original_bets_need_enhc"),
    (
        TableRules(hole_card="enhc", enhc_original_bets_only=True, enhc_late_surrender=True),
        "enhc_original_bets_only",
        False,
        "enhc_surrender_needs_original_bets",
    ),
    (TableRules(), "min_bet", TableRules().max_bet + 1, "min_bet_above_max"),
    (TableRules(resplit_aces=True, max_hands=4), "max_hands", 2, "resplit_aces_needs_hands"),
    (TableRules(), "starting_chips", TableRules().min_bet - 1, "chips_below_min_bet"),
]


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
@pytest.mark.parametrize(("rules", "field", "value", "code"), CONFLICTS)
def test_a_rules_conflict_says_why(lang, rules, field, value, code) -> None:
    from app.i18n.codes import message_for
    from app.rules.table_rules import RulesError
    from app.views.blackjack.vm import rule_change

    with pytest.raises(RulesError) as info:
        rules.replace(**{field: value})
    assert info.value.code == code  # the engine names the reason
    i18n.set_language(lang)
    try:
        kept, why = rule_change(rules, field, value)
        assert kept == rules  # the rules in force stay
        assert why == message_for(code) and why != message_for("invalid_rules")
        assert "{" not in why and len(why) > 30
        assert rule_change(rules, "decks", 2) == (rules.replace(decks=2), "")
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("lang", ["en", "de", "pl"])
def test_the_terminal_says_the_same_as_the_rules_screen(lang, capsys) -> None:
    from app.strategy.cli import edge_main
    from app.views.blackjack.vm import rule_change

    i18n.set_language(lang)
    try:
        _, why = rule_change(TableRules(late_surrender=True), "hole_card", "enhc")
        assert edge_main(["--surrender", "yes", "--hole-card", "enhc"]) == 2
        assert capsys.readouterr().err == f"blu21 edge: {why}\n"
    finally:
        i18n.set_language("en")
    assert "peek" in why.lower()  # late surrender needs the American peek
