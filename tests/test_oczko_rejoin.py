"""Rejoin: a player who left comes back between rounds with his points (engine and phones)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oczko_net import Net

from app.cards import DECK, Card
from app.rules.engine import kinds_of
from app.rules.errors import ScenarioError
from app.rules.oczko import (
    Action,
    IllegalAction,
    Match,
    MatchEnded,
    OczkoOptions,
    Rejoined,
    RoundStarted,
)
from app.rules.oczko.scenario import run_scenario

C = Card.parse


def play_round(m: Match, winner: int | None) -> Match:
    """Play the waiting round so that ``winner`` (or nobody) wins it: everyone holds.

    The winner gets ten + nine (19), everyone else ten + two (12); with None all get 12.
    """
    tens = iter(c for c in DECK if c.rank == 10)
    nines = iter(c for c in DECK if c.rank == 9)
    twos = iter(c for c in DECK if c.rank == 2)
    while m.to_deal is not None:
        seat = m.to_deal
        dealt = len(m.round.hand(seat).cards)
        card = next(tens) if dealt == 0 else next(nines) if seat == winner else next(twos)
        m, _ = m.deal(card)
    while not m.over and m.to_act is not None:
        m, _ = m.hold(m.to_act)
    return m


def assert_illegal(m: Match, code: str, seat: Any) -> None:
    before = copy.deepcopy(m)
    with pytest.raises(IllegalAction) as info:
        m.rejoin(seat)
    assert info.value.code == code
    assert m == before


def test_rejoin_between_rounds_keeps_points_and_plays_the_next_round() -> None:
    m, _ = Match.new(3, OczkoOptions(rounds=5))
    m = play_round(m, 2)
    m, ev = m.disconnect(2)
    assert 2 in m.gone and m.round.hand(2).dropped  # the round was called with him
    m = play_round(m, 0)
    assert m.points == (1, 0, 1) and m.round.number == 3
    assert kinds_of(m.legal_actions(2)) == frozenset({"rejoin"})
    m, ev = m.rejoin(2)
    assert ev == (Rejoined(3, 2), RoundStarted(3, False, (2, 0, 1)))
    assert m.active == (0, 1, 2) and m.points == (1, 0, 1)
    m = play_round(m, 2)
    assert m.points == (1, 0, 2) and m.rounds_played == 3


def test_illegal_rejoins_leave_the_state_unchanged() -> None:
    m, _ = Match.new(3, OczkoOptions(rounds=5))
    assert_illegal(m, "illegal_action", 1)
    assert_illegal(m, "unknown_seat", 3)
    assert_illegal(m, "unknown_seat", True)
    assert_illegal(m, "unknown_seat", "1")
    m, _ = m.disconnect(1)
    m, _ = m.deal(C("Ts"))
    assert_illegal(m, "wrong_phase", 1)  # mid-round
    assert kinds_of(m.legal_actions(1)) == frozenset()
    with pytest.raises(IllegalAction) as info:
        Action("rejoin").apply(m)
    assert info.value.code == "bad_action"


def test_rejoin_before_the_first_deal_undoes_a_dropout() -> None:
    m0, _ = Match.new(2)
    m, _ = m0.disconnect(1)
    assert m.over  # one player left: the match is over and stays over
    assert_illegal(m, "match_over", 1)
    m0, _ = Match.new(3)
    m, _ = m0.disconnect(1)
    m, _ = m.rejoin(1)
    assert m.round == m0.round and m.active == m0.active


def test_a_rejoiner_counts_again_for_the_early_end() -> None:
    # Ala wins 2 of 3 rounds then leaves; Bartek and Celina could still catch her, so with
    # her back and both others' best chance gone after round 3, her return decides the match.
    m, _ = Match.new(3, OczkoOptions(rounds=4))
    m = play_round(m, 0)
    m = play_round(m, 0)
    m, _ = m.disconnect(0)
    m = play_round(m, None)
    assert not m.over and m.points == (2, 0, 0) and m.round.number == 4
    m, ev = m.rejoin(0)
    assert m.over and m.winner == 0 and m.end_reason == "decided"
    assert ev == (Rejoined(4, 0), MatchEnded(0, "decided", (2, 0, 0)))
    assert_illegal(m, "match_over", 1)


def test_an_early_end_reached_while_he_was_away_stays() -> None:
    m, _ = Match.new(3, OczkoOptions(rounds=3))
    m = play_round(m, 0)
    m, _ = m.disconnect(0)
    m = play_round(m, 1)
    m = play_round(m, 1)
    assert m.over and m.winner == 1
    assert_illegal(m, "match_over", 0)


def test_tiebreak_only_for_the_players_tied_for_first() -> None:
    # 1 round: Ala and Bartek tie (no point), Celina had left before it: a tiebreak
    # among all three at 0 would include her when she rejoins, tied.
    m, _ = Match.new(4, OczkoOptions(rounds=2))
    m = play_round(m, 3)  # Dorota 1
    m, _ = m.disconnect(2)
    m = play_round(m, 0)  # Ala 1: Ala and Dorota tied, a tiebreak between them
    assert m.round.tiebreak and m.round.order == (3, 0)
    m2, ev = m.rejoin(2)  # Celina (0 points) only watches
    assert m2.round.order == (3, 0) and 2 in m2.active
    assert ev[-1] == RoundStarted(3, True, (3, 0))
    m2 = play_round(m2, 3)
    assert m2.over and m2.winner == 3 and m2.end_reason == "tiebreak"


def test_a_rejoiner_tied_for_first_plays_the_tiebreak_and_one_alone_on_top_wins() -> None:
    m, _ = Match.new(3, OczkoOptions(rounds=3))
    m = play_round(m, 2)
    m, _ = m.disconnect(2)
    m = play_round(m, 0)
    m = play_round(m, 1)  # 1:1:1, Celina away: tiebreak Ala vs Bartek
    assert m.round.tiebreak and m.round.order == (0, 1)
    tied, _ = m.rejoin(2)
    assert tied.round.order == (0, 1, 2) and tied.round.tiebreak
    m, _ = Match.new(3, OczkoOptions(rounds=2))
    m = play_round(m, 2)
    m, _ = m.disconnect(2)
    m = play_round(m, None)  # 0:0:1, Celina away: tiebreak Ala vs Bartek
    assert m.round.tiebreak
    top, ev = m.rejoin(2)
    assert top.over and top.winner == 2 and top.end_reason == "rounds"
    assert ev[-1] == MatchEnded(2, "rounds", (0, 0, 1))


def test_phone_mode_rejoin_and_resume_from_a_snapshot() -> None:
    host, _ = Match.new(3, OczkoOptions(rounds=4))
    phone, _ = Match.new(3, OczkoOptions(rounds=4), me=0)
    host = play_round(host, 1)
    host, _ = host.disconnect(1)
    # The rejoiner's phone is new: it gets the public state and builds its copy.
    snap = json.loads(json.dumps(host.snapshot()))
    host, _ = host.rejoin(1)
    back = Match.resume(json.loads(json.dumps(host.snapshot())), me=1)
    assert back.points == host.points and back.round.order == host.round.order
    assert back.me == 1 and back.round.me == 1 and back.active == host.active
    assert Match.resume(snap, me=1).gone == frozenset({1})
    with pytest.raises(IllegalAction) as info:
        Match.resume({**snap, "points": [0, 0, 1]}, me=1)
    assert info.value.code == "bad_message"
    for bad in (None, [], {**snap, "round": {"number": 9, "tiebreak": False, "order": [0]}}):
        with pytest.raises(IllegalAction) as info:
            Match.resume(bad, me=1)
        assert info.value.code == "bad_message"
    host2, _ = host.deal(C("Ts"))
    with pytest.raises(IllegalAction) as info:
        host2.snapshot()
    assert info.value.code == "wrong_phase"
    del phone


SCENARIOS = Path(__file__).parent / "scenarios"


def test_rejoin_scenario_and_a_misplaced_rejoin() -> None:
    data = json.loads((SCENARIOS / "oczko_rejoin.json").read_text(encoding="utf-8"))
    out = run_scenario(data)
    kinds = [e["event"] for e in out["events"]]
    assert kinds.count("rejoined") == 1 and out["result"]["points"]["Celina"] == 2
    late = copy.deepcopy(data)
    late["rounds"][2]["actions"] = [{"hold": "Ala"}, {"rejoin": "Celina"}]
    with pytest.raises(ScenarioError, match=r"wrong_phase"):
        run_scenario(late)
    never = copy.deepcopy(data)
    never["rounds"][0]["actions"].insert(0, {"rejoin": "Ala"})
    with pytest.raises(ScenarioError, match=r"illegal_action"):
        run_scenario(never)


# --- random play with dropouts and rejoins: it ends, and every phone agrees --------------------


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1).map(random.Random), st.integers(2, 6), st.integers(1, 5))
def test_random_play_with_dropouts_and_rejoins_ends_and_every_phone_agrees(
    rng: random.Random, players: int, rounds: int
) -> None:
    net = Net(players, rounds)
    number, deck, rejoins, points_at_leave = 0, [], 0, {}
    for _ in range(20_000):
        h = net.host
        if h.over:
            break
        if h.round.number != number:
            number, deck = h.round.number, rng.sample(DECK, 52)
        if h.between_rounds and h.gone and rejoins < 10 and rng.random() < 0.5:
            seat = rng.choice(sorted(h.gone))
            # Kept while away (plus the round he left in, if its result was already his).
            kept, left_in = points_at_leave[seat]
            done = left_in <= len(h.history)
            gained = int(done and h.history[left_in - 1].winner == seat)
            assert h.points[seat] == kept + gained
            rejoins += 1
            net.host, _ = h.rejoin(seat)
            net.send("rejoin", lambda _, seat=seat: (seat,))
            if not net.host.over:
                net.phones[seat] = Match.resume(net.host.snapshot(), me=seat)
        elif rng.random() < 0.03 and len(h.active) > 1:
            seat = rng.choice(h.active)
            points_at_leave[seat] = (h.points[seat], h.round.number)
            net.host, _ = h.disconnect(seat)
            del net.phones[seat]
            net.send("disconnect", lambda _, seat=seat: (seat,))
        else:
            net.play(deck, rng)
        net.settle()
        net.check()
    assert net.host.over
