"""TableRules: seed defaults, presets, validation, JSON."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.rules.table_rules import PRESETS, RulesError, TableRules, networked_rules


def test_defaults_are_seed_001() -> None:
    r = TableRules()
    # "sechs Decks, Stand auf Soft 17, 3:2, Verdoppeln auf beliebigen zwei Karten und nach
    # Split, bis vier Hände, gleichem Rang beim Teilen, Peek und ohne Aufgabe.
    # Versicherung ist an. Standard sind 1.000 Chips und zwanzig Runden."
    assert r.decks == 6
    assert r.dealer_hits_soft_17 is False
    assert r.blackjack_pays == Fraction(3, 2)
    assert r.double_on == "any" and r.double_after_split is True
    assert r.max_hands == 4 and r.split_by == "rank"
    assert r.hole_card == "peek" and r.late_surrender is False
    assert r.insurance is True
    assert r.starting_chips == 1000 and r.rounds == 20
    # "Split-Asse erhalten ... jeweils nur eine weitere Karte und werden nicht erneut geteilt."
    assert r.hit_split_aces is False and r.resplit_aces is False
    assert TableRules.preset("classic") == r


def test_european_is_seed_004_main_text() -> None:
    r = TableRules.preset("european")
    assert r.hole_card == "enhc" and r.enhc_original_bets_only is False
    assert r.split_by == "value" and r.resplit_aces is True and r.hit_split_aces is False
    assert r.double_on == "any" and r.double_after_split is True
    assert r.triple_seven and r.dealer_busts_bet and r.betting_behind
    assert r.dealer_hits_soft_17 is False and r.blackjack_pays == Fraction(3, 2)
    assert r.boxes == 7 and r.insurance


def test_every_preset_is_valid_and_round_trips() -> None:
    assert {"classic", "european"} <= set(PRESETS)
    for name, r in PRESETS.items():
        assert TableRules.from_json(json.loads(json.dumps(r.to_json()))) == r, name


def test_preset_with_overrides() -> None:
    r = TableRules.preset("classic", blackjack_pays="6/5", decks=1)
    assert r.blackjack_pays == Fraction(6, 5) and r.decks == 1


@pytest.mark.parametrize(
    ("changes", "fields"),
    [
        ({"late_surrender": True, "hole_card": "enhc"}, ("late_surrender", "hole_card")),
        ({"enhc_original_bets_only": True}, ("enhc_original_bets_only", "hole_card")),
        (
            {"enhc_late_surrender": True},
            ("enhc_late_surrender", "enhc_original_bets_only"),
        ),
        (
            {"enhc_late_surrender": True, "hole_card": "enhc"},
            ("enhc_late_surrender", "enhc_original_bets_only"),
        ),
        ({"enhc_late_surrender": "yes"}, ("enhc_late_surrender",)),
        ({"min_bet": 600, "starting_chips": 1000}, ("min_bet", "max_bet")),
        ({"resplit_aces": True, "max_hands": 2}, ("resplit_aces", "max_hands")),
        ({"starting_chips": 5}, ("starting_chips", "min_bet")),
        ({"decks": 0}, ("decks",)),
        ({"decks": 9}, ("decks",)),
        ({"decks": True}, ("decks",)),
        ({"decks": 6.0}, ("decks",)),
        ({"boxes": 8}, ("boxes",)),
        ({"max_hands": 0}, ("max_hands",)),
        ({"penetration": 0}, ("penetration",)),
        ({"penetration": "5/4"}, ("penetration",)),
        ({"blackjack_pays": 0}, ("blackjack_pays",)),
        ({"blackjack_pays": "three to two"}, ("blackjack_pays",)),
        ({"hole_card": "european"}, ("hole_card",)),
        ({"double_on": "8-11"}, ("double_on",)),
        ({"split_by": "suit"}, ("split_by",)),
        ({"insurance": "yes"}, ("insurance",)),
        ({"rounds": 0}, ("rounds",)),
        ({"min_bet": 0}, ("min_bet",)),
    ],
)
def test_invalid_rules_name_their_fields(changes: dict, fields: tuple[str, ...]) -> None:
    with pytest.raises(RulesError) as info:
        TableRules().replace(**changes)
    assert info.value.fields == fields
    for f in fields:
        assert f in str(info.value)


def test_valid_combinations_of_the_contradicting_fields() -> None:
    assert TableRules(late_surrender=True).late_surrender
    assert TableRules(hole_card="enhc", enhc_original_bets_only=True).enhc_original_bets_only
    assert TableRules(min_bet=500, max_bet=500).min_bet == 500
    obo = TableRules(hole_card="enhc", enhc_original_bets_only=True, enhc_late_surrender=True)
    assert obo.enhc_late_surrender and not obo.late_surrender


def test_unknown_field_and_preset() -> None:
    with pytest.raises(RulesError, match="unknown table rule field") as info:
        TableRules.from_json({"surrender": True})
    assert info.value.fields == ("surrender",) and info.value.code == "unknown_field"
    with pytest.raises(RulesError, match="unknown preset"):
        TableRules.preset("atlantic")
    with pytest.raises(RulesError, match="JSON object"):
        TableRules.from_json(["decks", 6])  # type: ignore[arg-type]


def test_fractions_from_json_forms() -> None:
    for v in ("6/5", "1.2", Fraction(6, 5), 1.2):
        assert TableRules.from_json({"blackjack_pays": v}).blackjack_pays == Fraction(6, 5)
    assert TableRules.from_json({"penetration": 0.8}).penetration == Fraction(4, 5)


def test_immutable() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        TableRules().decks = 2  # type: ignore[misc]


@st.composite
def valid_rules(draw: st.DrawFn) -> TableRules:
    """Any consistent rule set."""
    enhc = draw(st.booleans())
    obo = enhc and draw(st.booleans())
    hands = draw(st.integers(1, 8))
    return draw(st.sampled_from(list(PRESETS.values()))).replace(
        decks=draw(st.integers(1, 8)),
        penetration=draw(st.fractions(min_value=Fraction(1, 10), max_value=1)),
        dealer_hits_soft_17=draw(st.booleans()),
        blackjack_pays=draw(st.sampled_from([Fraction(3, 2), Fraction(6, 5), Fraction(1)])),
        hole_card="enhc" if enhc else "peek",
        enhc_original_bets_only=obo,
        double_on=draw(st.sampled_from(["any", "9-11", "10-11"])),
        double_after_split=draw(st.booleans()),
        max_hands=hands,
        split_by=draw(st.sampled_from(["rank", "value"])),
        resplit_aces=hands >= 3 and draw(st.booleans()),
        hit_split_aces=draw(st.booleans()),
        late_surrender=not enhc and draw(st.booleans()),
        enhc_late_surrender=obo and draw(st.booleans()),
        insurance=draw(st.booleans()),
        triple_seven=draw(st.booleans()),
        dealer_busts_bet=draw(st.booleans()),
        boxes=draw(st.integers(1, 7)),
        betting_behind=draw(st.booleans()),
    )


@given(valid_rules())
def test_json_round_trip(rules: TableRules) -> None:
    text = json.dumps(rules.to_json())
    assert TableRules.from_json(json.loads(text)) == rules


@given(valid_rules())
def test_networked_rules_have_no_hole_card_and_keep_the_rest(rules: TableRules) -> None:
    n = networked_rules(rules)
    assert n.hole_card == "enhc"
    if rules.hole_card == "enhc":
        assert n is rules
        return
    assert n.enhc_original_bets_only and not n.late_surrender
    assert n.enhc_late_surrender == rules.late_surrender
    changed = {"hole_card", "enhc_original_bets_only", "late_surrender", "enhc_late_surrender"}
    for f in dataclasses.fields(TableRules):
        if f.name not in changed:
            assert getattr(n, f.name) == getattr(rules, f.name), f.name
    assert networked_rules(n) is n
