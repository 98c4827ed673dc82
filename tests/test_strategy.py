"""House edge against published values, side bets, chart, hints, simulation, CLI, Oczko.

Published values: Wizard of Odds, "Blackjack Appendix 9" (wizardofodds.com/games/
blackjack/appendix/9/<deck><rule>r4/), composition-dependent play of each initial
hand, splits depending only on how many hands were already split; rules: resplit to
four hands except aces, no drawing to split aces, double any two cards, blackjack 3:2,
no surrender; peek unless stated.
"""

import functools
import json
from fractions import Fraction
from types import SimpleNamespace

import pytest

from app.cards import Card, parse_cards
from app.strategy import reference as ref
from app.strategy.cli import edge_main, sim_main
from app.strategy.edge import house_edge, side_bets
from app.strategy.hint import hint
from app.strategy.oczko import bust_probability
from app.strategy.sim import simulate


@functools.cache
def _six_decks():
    return house_edge(rules(), threads=2)


def rules(**kw):
    base = {"decks": 6, "dealer_hits_soft_17": False, "double_after_split": True}
    return SimpleNamespace(**{**base, **kw})


@pytest.mark.parametrize(
    ("kw", "published_ev"),
    [
        # Appendix 9, 1ds17r4: "Player may double after split: 0.001839"
        ({"decks": 1}, 0.001839),
        # 1ds17r4, no DAS: 0.000423
        ({"decks": 1, "double_after_split": False}, 0.000423),
        # 1dh17r4 (H17): DAS -0.000072
        ({"decks": 1, "dealer_hits_soft_17": True}, -0.000072),
        ({"decks": 1, "dealer_hits_soft_17": True, "double_after_split": False}, -0.001513),
        # 2dh17r4: DAS -0.003797, no DAS -0.005252
        ({"decks": 2, "dealer_hits_soft_17": True}, -0.003797),
        ({"decks": 2, "dealer_hits_soft_17": True, "double_after_split": False}, -0.005252),
        # 5dh17r4: DAS -0.005918
        ({"decks": 5, "dealer_hits_soft_17": True}, -0.005918),
        # 5ds17r4: DAS -0.003804, no DAS -0.005225
        ({"decks": 5}, -0.003804),
        ({"decks": 5, "double_after_split": False}, -0.005225),
        # euro-6dh17r4: 6 decks, H17, no hole card, lose everything: DAS -0.0072705
        ({"dealer_hits_soft_17": True, "hole_card": "enhc"}, -0.0072705),
        (
            {"dealer_hits_soft_17": True, "hole_card": "enhc", "double_after_split": False},
            -0.0086975,
        ),
    ],
)
def test_house_edge_matches_appendix_9(kw: dict, published_ev: float) -> None:
    r = house_edge(rules(**kw), threads=2)
    assert abs(100 * r.ev - 100 * published_ev) < 0.02  # percentage points


@pytest.mark.parametrize(
    ("a", "b", "up", "stand", "hit", "double"),
    [
        # Appendix 9, 6ds17r4 (six decks, S17, no dealer blackjack), value indexes 0-9
        (5, 4, 0, -0.661883, 0.147596, 0.129710),  # 6,5 v A
        (0, 1, 4, -0.159409, 0.137333, 0.139852),  # A,2 v 5
        (9, 1, 3, -0.211115, -0.210364, -0.420729),  # T,2 v 4
        (8, 2, 3, -0.208039, -0.215390, -0.430780),  # 9,3 v 4
    ],
)
def test_initial_hand_evs_match_appendix_9_six_decks(a, b, up, stand, hit, double) -> None:
    r = _six_decks()
    evs = r.evs[up * 55 + ref.pair_index(a, b)]
    for got, published in zip(evs[:3], (stand, hit, double), strict=True):
        assert abs(got - published) < 6e-7  # the table's six decimals


@pytest.mark.parametrize(
    ("kw", "a", "b", "stand", "hit", "double"),
    [
        # Appendix 9, 1ds17r4 (one deck, S17, no dealer blackjack), dealer ace
        ({"decks": 1}, 1, 0, -0.661732, -0.067808, -0.593281),  # 2,A
        ({"decks": 1}, 5, 3, -0.636118, 0.081506, 0.048615),  # 6,4
        ({"decks": 1}, 6, 0, -0.101015, -0.108386, -0.357778),  # 7,A
        # euro-6dh17r4 (six decks, H17, no hole card, lose all), dealer ace
        ({"dealer_hits_soft_17": True, "hole_card": "enhc"}, 1, 0, -0.722356, -0.379910, -1.024099),
        ({"dealer_hits_soft_17": True, "hole_card": "enhc"}, 5, 3, -0.720814, -0.286818, -0.639108),
        ({"dealer_hits_soft_17": True, "hole_card": "enhc"}, 6, 0, -0.466029, -0.421285, -0.909374),
    ],
)
def test_hand_evs_against_an_ace_match_appendix_9(kw, a, b, stand, hit, double) -> None:
    evs = house_edge(rules(**kw), threads=2).evs[ref.pair_index(a, b)]  # up card: ace
    for got, published in zip(evs[:3], (stand, hit, double), strict=True):
        assert abs(got - published) < 5e-7  # the table's six decimals


def test_split_values_and_edge_published_in_issue_14() -> None:
    # an independent combinatorial analyzer (issue 14): 6 decks, S17, DAS, peek
    by_value = house_edge(rules(split_by="value"), threads=2)
    assert round(100 * by_value.evs[9 * 55 + ref.pair_index(0, 0)][3], 9) == 18.198761677
    two_hands = house_edge(rules(max_hands=2), threads=2)
    assert round(100 * two_hands.evs[4 * 55 + ref.pair_index(9, 9)][3], 4) == 51.0019
    one_deck = house_edge(
        rules(decks=1, max_hands=2, double_on="10-11", late_surrender=True), threads=2
    )
    assert round(100 * one_deck.house_edge, 4) == 0.1152


def test_six_decks_s17_das_and_the_effect_of_6_to_5() -> None:
    # the issue's 6D S17 DAS no-surrender figure: about 0.40 % (Wizard of Odds calculator)
    a = house_edge(rules(), threads=2)
    assert abs(100 * a.house_edge - 0.40) < 0.02
    b = house_edge(rules(blackjack_pays=Fraction(6, 5)), threads=2)
    assert abs(100 * (b.house_edge - a.house_edge) - 1.36) < 0.02
    # exactly 0.3 times the EV of naturals not pushed
    assert abs((b.house_edge - a.house_edge) - 0.3 * a.natural_ev / 1.5) < 1e-12


def test_obo_equals_peek_without_triple_seven_and_lose_all_is_worse() -> None:
    peek = house_edge(rules(), threads=2).house_edge
    obo = house_edge(rules(hole_card="enhc", enhc_original_bets_only=True), threads=2).house_edge
    lose_all = house_edge(rules(hole_card="enhc"), threads=2).house_edge
    assert abs(peek - obo) < 1e-12
    assert lose_all > peek + 0.0005


def test_triple_seven_and_surrender_lower_the_edge() -> None:
    base = house_edge(rules(), threads=2).house_edge
    assert house_edge(rules(triple_seven=True), threads=2).house_edge < base
    assert house_edge(rules(late_surrender=True), threads=2).house_edge < base - 0.0004


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_insurance_house_edge_formula(decks: int) -> None:
    ins, formula, _, _ = side_bets(rules(decks=decks))
    assert abs(ins - (4 * decks - 1) / (52 * decks - 1)) < 1e-12
    assert formula == (4 * decks - 1) / (52 * decks - 1)


def test_insurance_infinite_deck_is_the_seeds_one_thirteenth() -> None:
    ins, formula, p_bust, bust_edge = side_bets(rules(), infinite=True)
    assert abs(ins - 1 / 13) < 1e-12 and abs(formula - 1 / 13) < 1e-15
    assert abs(bust_edge - (1 - 3.5 * p_bust)) < 1e-12


def test_dealer_busts_bet_seed_figure_is_the_infinite_deck_value() -> None:
    # seed 004: "Der Bankvorteil bei dieser Wettart beträgt 1,44 %" (5:2, S17)
    *_, bust_edge = side_bets(rules(), infinite=True)
    assert abs(100 * bust_edge - 1.44) < 0.005
    *_, six_decks = side_bets(rules())
    # The six-deck value is computed, not quoted: a shoe slightly lowers the edge from
    # the seed's infinite-deck 1.44 % (1.33 % in our own enumeration); fails outside.
    assert 1.30 < 100 * six_decks < 1.36


def test_chart_is_the_textbook_basic_strategy_in_key_cells() -> None:
    c = house_edge(rules(), threads=2).chart
    up = {"2": 1, "6": 5, "7": 6, "T": 9, "A": 0}
    assert c.action("hard", 16, up["T"]) == "H"
    assert c.action("hard", 12, up["2"]) == "H"
    assert c.action("hard", 13, up["2"]) == "S"
    assert c.action("hard", 11, up["6"]) == "D"
    assert c.action("pair", 7, up["T"]) == "P"  # 8,8
    assert c.action("pair", 9, up["6"]) == "S"  # T,T
    assert c.action("soft", 18, up["6"]) == "Ds"
    c2 = house_edge(rules(late_surrender=True), threads=2).chart
    assert c2.action("hard", 16, up["T"]) == "R"


def test_hints() -> None:
    r = rules()
    h = hint(r, Card.parse("Tc"), parse_cards("Th 6d"))
    assert h.best == "hit" and set(h.evs) == {"stand", "hit", "double"}
    h = hint(rules(late_surrender=True), Card.parse("Tc"), parse_cards("Th 6d"))
    assert h.best == "surrender" and h.evs["surrender"] == -0.5
    h = hint(r, Card.parse("6c"), parse_cards("8h 8d"))
    assert h.best == "split"
    h = hint(r, Card.parse("6c"), parse_cards("Ah Kd"))
    assert h.evs == {"stand": 1.5}
    # a split hand of split aces takes one card: stand only
    h = hint(r, Card.parse("6c"), parse_cards("Ah 5d"), hands_now=2, split_card=Card.parse("As"))
    assert set(h.evs) == {"stand"}
    # K+Q is not a pair when splitting by rank
    assert "split" not in hint(r, Card.parse("6c"), parse_cards("Kh Qd")).evs
    assert "split" in hint(rules(split_by="value"), Card.parse("6c"), parse_cards("Kh Qd")).evs


def test_insurance_hint_counts_the_tens_seen() -> None:
    r = rules(decks=1)
    # ace up, player 9 9: 16 tens among 49 unseen cards -> (2*16 - 33)/49
    h = hint(r, Card.parse("As"), parse_cards("9h 9d"))
    assert h.insurance == pytest.approx(-1 / 49)
    h = hint(r, Card.parse("As"), parse_cards("Th Kd"))
    assert h.insurance == pytest.approx(2 * 14 / 49 - 35 / 49)
    assert hint(r, Card.parse("Ts"), parse_cards("9h 9d")).insurance is None


def test_hint_rejects_impossible_cards() -> None:
    with pytest.raises(ValueError):
        hint(rules(decks=1), Card.parse("As"), parse_cards("Ah Ad"), parse_cards("Ac As"))
    with pytest.raises(ValueError):
        hint(rules(), Card.parse("As"), ())


def test_simulation_agrees_with_the_computation() -> None:
    for r in (
        rules(),
        rules(hole_card="enhc", split_by="value", resplit_aces=True, triple_seven=True),
    ):
        exact = house_edge(r, threads=2)
        sim = simulate(r, 3_000_000, threads=2, seed=7, report=exact)
        assert abs(sim.house_edge - exact.house_edge) < 3 * sim.standard_error
        assert 0.0004 < sim.standard_error < 0.001
        ins, *_ = side_bets(r)
        assert abs(sim.insurance_house_edge - ins) < 0.03


def test_simulation_is_reproducible_by_seed() -> None:
    a = simulate(rules(), 20_000, threads=2, seed=3)
    b = simulate(rules(), 20_000, threads=2, seed=3)
    assert a.ev == b.ev
    with pytest.raises(ValueError):
        simulate(rules(), 0)


def test_cli_edge_and_sim(capsys) -> None:
    assert edge_main(["--decks", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decks"] == 2 and 0 < out["house_edge"] < 0.01 and "hard 16" in out["chart"]
    assert edge_main(["--preset", "european"]) == 0
    assert "house edge" in capsys.readouterr().out
    assert sim_main(["--hands", "10000", "--threads", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hands"] == 10000 and out["hands_per_second"] > 0
    assert edge_main(["--decks", "9"]) == 2
    with pytest.raises(SystemExit):
        edge_main(["--preset", "nonsense"])  # argparse lists the presets
    with pytest.raises(SystemExit):
        sim_main(["--hands", "0"])  # (without --hands: a default, tests/test_cli_edges.py)


@pytest.mark.parametrize(
    ("own", "seen", "expected"),
    [
        # counted by hand: Oczko values 2-10, J 2, Q 3, K 4, A 11; one deck
        ("Ts 9h", "", Fraction(50 - 8, 50)),  # 19: safe are four 2s, four jacks
        ("Kc 5d", "", Fraction(0, 50)),  # 9: even an ace (11) makes only 20
        ("Ah 9c", "", Fraction(50, 50)),  # 20: every card is worth 2 or more
        ("Th 7c", "", Fraction(50 - 24, 50)),  # 17: safe 2, 3, 4, J, Q, K: 6 x 4
        ("Th 7c", "2s 2d Jh", Fraction(26, 47)),  # three safe cards seen: 21 safe left
        ("9h 8d", "Ks Kd As", Fraction(47 - 22, 47)),  # 17: 2, 3, 4, J, Q four each, K two
        ("As Kd", "Ah Ad", Fraction(4 * 4 + 1, 48)),  # 15: 7, 8, 9, 10 and the last ace
        ("2c 3c 4c Jc Qc", "", Fraction(4 * 4, 47)),  # 14: 8, 9, 10 and aces, four each
    ],
)
def test_oczko_bust_probability_counted_by_hand(own: str, seen: str, expected: Fraction) -> None:
    assert bust_probability(parse_cards(own), parse_cards(seen) if seen else ()) == expected


def test_oczko_bust_probability_errors() -> None:
    with pytest.raises(ValueError):
        bust_probability(parse_cards("As As"))
    assert bust_probability(parse_cards("As Ad")) == Fraction(50, 50)
