"""A peek table and its networked equivalent have the same house edge (issue 19).

``networked_rules`` turns a peek table into ENHC + original bets only + surrender as if
after the peek.  The analysis (C, ``blu21 edge``) gives both the same edge; the
independent referee (tests/bj_referee.py), which deals the networked table literally
(no hole card: the player draws first, then the dealer's second card; a dealer
blackjack takes the box's original bet from what is still in play; a surrender loses
the whole bet to that blackjack), agrees hand by hand, exactly in fractions, and on the
whole game against the analysis.  A triple seven is the one difference (seed 004 pays it
before the dealer's blackjack): the networked edge is then lower, by the analysis and
by the referee alike.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from bj_referee import Game, Referee

import app.native.handeval as nat
from app.rules.table_rules import PRESETS, TableRules, networked_rules
from app.strategy.cli import edge_main
from app.strategy.edge import house_edge
from app.strategy.sim import simulate

#: peek tables: every peek preset and variants of the rules that matter with the peek
PEEK_TABLES = {
    **{name: r for name, r in PRESETS.items() if r.hole_card == "peek"},
    "classic late surrender": PRESETS["classic"].replace(late_surrender=True),
    "1D H17 6:5 D10 no DAS split to 2 surrender": TableRules(
        decks=1,
        dealer_hits_soft_17=True,
        blackjack_pays=Fraction(6, 5),
        double_on="10-11",
        double_after_split=False,
        max_hands=2,
        late_surrender=True,
    ),
    "2D by value RSA hit split aces, no insurance": TableRules(
        decks=2, split_by="value", resplit_aces=True, hit_split_aces=True, insurance=False
    ),
}


@pytest.mark.parametrize("rules", PEEK_TABLES.values(), ids=PEEK_TABLES.keys())
def test_analysis_gives_the_networked_table_the_peek_tables_edge(rules: TableRules) -> None:
    net = networked_rules(rules)
    assert net.hole_card == "enhc" and net.enhc_original_bets_only
    peek_edge = house_edge(rules, threads=2).house_edge
    net_edge = house_edge(net, threads=2).house_edge
    assert abs(peek_edge - net_edge) < 1e-12, (peek_edge, net_edge)


def test_triple_seven_makes_the_networked_table_better_for_the_player() -> None:
    rules = TableRules(triple_seven=True)
    peek_edge = house_edge(rules, threads=2).house_edge
    net_edge = house_edge(networked_rules(rules), threads=2).house_edge
    assert 0 < peek_edge - net_edge < 0.0001


# Referee and analysis on a small shoe whose cards always suffice for two split hands
# and the dealer (>= 86 points): (referee game, analysis rules tuple: infinite, h17,
# enhc, obo, double_on, das, max_hands, rsa, hsa, surrender, triple_seven,
# split_by_rank, bj_pays)
SHOE = [2, 1, 1, 1, 1, 1, 1, 1, 1, 5]
PEEK_LS = (Game(surrender=True), (0, 0, 0, 0, 0, 1, 2, 0, 0, 1, 0, 0, 1.5))
NETWORKED_LS = (Game(hole="obo", surrender=True), (0, 0, 1, 1, 0, 1, 2, 0, 0, 1, 0, 0, 1.5))


def test_referee_game_values_are_equal_and_match_the_analysis() -> None:
    values = []
    for game, rules in (PEEK_LS, NETWORKED_LS):
        referee = Referee(SHOE, game, exact=False).game_ev(max_hands=2)
        analysis = nat.game_ev(rules, SHOE, 1)[0]
        assert abs(referee - analysis) < 1e-9, (game, referee, analysis)
        values.append(referee)
    assert abs(values[0] - values[1]) < 1e-12


@pytest.mark.parametrize(
    ("up", "a", "b"),
    [(9, 5, 9), (0, 5, 9), (9, 0, 0), (0, 9, 9), (9, 1, 7)],
    ids=["T6vT", "T6vA", "AAvT", "TTvA", "28vT"],
)
def test_referee_values_each_hand_exactly_the_same(up: int, a: int, b: int) -> None:
    # H17, 6:5, double 10-11 only, no DAS, surrender: exact fractions, hand by hand,
    # the best play's value before the dealer's second card is known
    common = {"h17": True, "bj_pays": Fraction(6, 5), "double_on": "10-11", "das": False}
    peek = Referee(SHOE, Game(surrender=True, **common)).initial_ev(up, a, b)
    net = Referee(SHOE, Game(hole="obo", surrender=True, **common)).initial_ev(up, a, b)
    assert isinstance(peek, Fraction) and peek == net


def test_referee_surrenders_as_if_after_the_peek() -> None:
    # 16 against a ten on the small shoe: half back unless the dealer's second card
    # is one of the two aces (a blackjack), then the whole bet
    r = Referee(SHOE, Game(hole="obo", surrender=True))
    left = sum(SHOE) - 3  # the shoe less the up card and the player's two cards
    aces = 2
    want = -Fraction(left - aces, 2 * left) - Fraction(aces, left)
    assert r.hand_evs(9, 5, 9)["surrender"] == want


def test_triple_seven_game_value_matches_the_analysis_under_original_bets_only() -> None:
    # seven-rich shoe: triple sevens before a dealer blackjack are paid (seed 004)
    shoe = [2, 1, 1, 1, 1, 1, 3, 1, 1, 5]
    game = Game(hole="obo", surrender=True, triple_seven=True)
    rules = (0, 0, 1, 1, 0, 1, 2, 0, 0, 1, 1, 0, 1.5)
    referee = Referee(shoe, game, exact=False).game_ev(max_hands=2)
    analysis = nat.game_ev(rules, shoe, 1)[0]
    assert abs(referee - analysis) < 1e-9, (referee, analysis)
    peek = nat.game_ev((0, 0, 0, 0, 0, 1, 2, 0, 0, 1, 1, 0, 1.5), shoe, 1)[0]
    assert analysis > peek


def test_cli_prints_both_edges(capsys: pytest.CaptureFixture[str]) -> None:
    assert edge_main(["--preset", "classic", "--surrender", "yes", "--networked"]) == 0
    out = capsys.readouterr().out
    lines = {line.split(":")[0]: line for line in out.splitlines()}
    table, net = lines["table"].split()[1], lines["networked"].split()[1]
    assert table == net
    assert "peek" in lines["table"] and "ENHC OBO" in lines["networked"]
    assert "surrender as after the peek" in lines["networked"]
    assert "+0.0000 points" in lines["difference"]
    assert edge_main(["--preset", "european", "--networked", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["table"] == data["networked"] and data["difference"] == 0


def test_simulated_networked_table_agrees_with_its_exact_edge() -> None:
    # the simulator deals the networked table literally: the dealer's second card after
    # the players, a surrender losing the whole bet to a dealer blackjack
    rules = networked_rules(TableRules(late_surrender=True, dealer_hits_soft_17=True))
    exact = house_edge(rules, threads=2)
    sim = simulate(rules, 3_000_000, threads=2, seed=11, report=exact)
    assert abs(sim.house_edge - exact.house_edge) < 3 * sim.standard_error
