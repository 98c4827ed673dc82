"""Rounds recorded where they end: practice Oczko, blackjack sessions, and networked
Oczko on every phone (host and guests over TCP loopback with the SRA dealer)."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from app.cards import Card, parse_cards
from app.history.live import Recorder
from app.history.oczko_record import OczkoRounds
from app.history.store import open_store


@pytest.fixture
def recorder(tmp_path):
    import app.history.live as live

    rec = Recorder()
    rec.configure(tmp_path)
    old, live.RECORDER = live.RECORDER, rec
    yield rec
    live.RECORDER = old
    rec.configure(None)


def _play_practice(seed: int, rounds: int = 3):
    from app.views.sample_play import play_practice

    return play_practice(["Me", "Ada", "Bruno"], rounds=rounds, seed=seed)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_practice_match_is_stored_round_by_round_as_the_player_saw_it(recorder, seed):
    m = _play_practice(seed)
    ended = [e for e in m.events if e.kind == "round_ended"]
    stored = recorder.store.rounds(newest_first=False)
    assert len(stored) == len(ended) >= 1
    assert recorder.latest_round_id(m) == stored[-1].id
    assert len({r.session for r in stored}) == 1
    for rec, end in zip(stored, ended, strict=True):
        assert rec.game == "oczko" and rec.mode == "practice" and rec.player == "Me"
        assert rec.number == end.round
        assert rec.result == ("won" if end.winner == 0 else rec.result)
        if end.winner == 0:
            assert int(rec.score_after) == int(rec.score_before) + 1
        assert int(rec.score_after) == end.points[0]
        events = rec.detail["events"]
        assert events[0]["event"] == "round_started" and events[-1]["event"] == "round_ended"
        # the bots' cards are hidden as at the table (until the showdown reveals them)
        dealt = [e for e in events if e["event"] == "card_dealt"]
        assert all((e["card"] is None) == (e["seat"] != 0) for e in dealt)
        assert all(e["t"] >= 0 for e in events)
    assert stored[-1].facts.match_end == ("won" if m.match.winner == 0 else "lost")
    assert all(r.facts.match_end is None for r in stored[:-1])


def test_a_blackjack_session_is_stored_with_chips_and_reviewed_decisions(recorder):
    from app.strategy.hint import hint
    from app.views.sample_play import play_blackjack

    g = play_blackjack("Me", ["Bot"], rounds=12, seed=4)
    stored = recorder.store.rounds(newest_first=False)
    assert len(stored) == g.session.rounds_played == 12
    assert stored[0].score_before == "1000"
    for a, b in itertools.pairwise(stored):
        assert a.score_after == b.score_before  # the chips carry from round to round
    assert Fraction(stored[-1].score_after) == g.session.balances["Me"]
    decisions = [d for r in stored for d in r.detail["decisions"]]
    assert decisions, "the random player made decisions"
    rules = g.rules
    for d in decisions:  # each review is the engine's hint for that hand
        cards = parse_cards(" ".join(d["cards"]))
        if len(cards) != 2 or d["action"] in ("split", "insure", "decline_insurance"):
            continue  # a split hand needs the split state; insurance has its own test
        h = hint(rules, Card.parse(d["up"]), cards, [])
        best = max(d["evs"], key=d["evs"].get)
        assert d["best"] == best
        assert d["ev_lost"] == pytest.approx((d["evs"][best] - d["evs"][d["action"]]) * 10)
        assert set(d["evs"]) <= set(h.evs)
    total = sum(r.facts.mistakes for r in stored)
    assert total == sum(d["ev_lost"] > 1e-9 for d in decisions)
    stats = recorder.store.stats()["blackjack"]
    assert stats["rounds"] == 12 and stats["mistakes"] == total
    assert Fraction(str(stats["net"])) == g.session.balances["Me"] - 1000


def test_a_failing_history_never_stops_the_game(recorder):
    recorder.store.close()  # every write now fails inside the store
    m = _play_practice(5, rounds=1)
    assert m.over  # the match went on


def test_violations_and_audits_name_the_cheater():
    rounds = OczkoRounds(session="s", mode="network", me=0, names=["A", "B"], rules={})
    rounds.fingerprint = "123456"
    out = rounds.feed({"event": "round_started", "round": 1, "tiebreak": False, "order": [0, 1]}, 1)
    assert out == []
    ended = {"event": "round_ended", "round": 1, "winner": 1, "totals": {"0": 18, "1": 20}}
    (rec,) = rounds.feed(ended, 2.0)
    assert rec.result == "lost" and rec.detail["fingerprint"] == "123456"
    rounds.stored(rec, 7)
    (audited,) = rounds.feed({"event": "audit", "deck": 0, "ok": False, "cheaters": [1]}, 3)
    assert audited.id == 7
    assert audited.detail["audits"] == [{"deck": 0, "ok": False, "cheaters": ["B"]}]
    assert audited.detail["named"] == ["B"]
    (v,) = rounds.feed({"event": "violation", "seat": 1, "code": "bad_key"}, 4)
    assert v.id == 7 and v.detail["named"] == ["B"] and v.detail["violation"] == "bad_key"


class _Net:
    """What the recorder reads of the app's NetworkTable: the player names."""

    def __init__(self, table) -> None:
        self.table = table

    @property
    def names(self):
        return (
            [s.name for s in self.table.seating.sitters]
            if hasattr(self.table, "seating")
            else [p.name for p in self.table.lobby.players]
        )


def test_a_networked_match_is_stored_on_every_phone_with_its_fairness_record(tmp_path):
    from test_table_sra import finished, make_table, run

    host, players, clock = make_table(2, seed=3, rounds=2)
    sides = [host, *players]
    recorders, nets = [], []
    for i, side in enumerate(sides):
        rec = Recorder()
        rec.configure(tmp_path / f"phone{i}")
        recorders.append(rec)
        nets.append(_Net(side))

    def step_all():
        for rec, net, side in zip(recorders, nets, sides, strict=True):
            rec.table(net, side)
        return finished(host, players) and all(
            sum(e["event"] == "audit" for e in s.phone.log)
            >= sum(e["event"] == "round_ended" for e in s.phone.log)
            for s in sides
        )

    run(host, players, clock, until=step_all)
    step_all()
    per_phone = [rec.store.rounds(newest_first=False) for rec in recorders]
    n = sum(e["event"] == "round_ended" for e in host.phone.log)
    fingerprint = host.phone.dealer.fingerprint
    for seat, rounds in enumerate(per_phone):
        assert len(rounds) == n
        for r in rounds:
            d = r.detail
            assert r.mode == "network" and d["me"] == seat
            assert d["fingerprint"] == fingerprint != "pending"
            assert d["names"] == ["Host", "P1", "P2"]
            assert d["audits"] and all(a["ok"] and a["cheaters"] == [] for a in d["audits"])
            assert d["named"] == []
        assert rounds[-1].facts.match_end in ("won", "lost")
        # what the table screen opens for "How was this deck shuffled?"
        assert recorders[seat].latest_round_id(nets[seat]) == rounds[-1].id
    # every phone tells the same story of each round
    for k in range(n):
        winners = {r[k].detail["events"][-1]["winner"] for r in per_phone}
        assert len(winners) == 1
        assert [r[k].result for r in per_phone].count("won") <= 1
    for rec in recorders:
        rec.configure(None)
    with open_store(tmp_path / "phone1") as s:
        assert s.count() == n


@pytest.mark.parametrize("choice", ["insure", "decline"])
def test_insurance_decisions_are_reviewed_by_the_hint(recorder, choice):
    from app.cards import Card, parse_cards
    from app.rules.shoe import Shoe
    from app.rules.table_rules import TableRules
    from app.strategy.hint import hint
    from app.views.blackjack.game import BlackjackGame

    rules = TableRules(rounds=1)
    # player 9s 7d against the dealer's ace (hole: 5c), then the cards to finish
    shoe = Shoe.stacked("9s Ah 7d 5c Th 9c 8d 7h", rules.decks, rules.penetration, random.Random(1))
    g = BlackjackGame(rules, "Me", shoe=shoe)
    g.bet(1, 20)
    g.deal()
    if choice == "insure":
        g.insure(1, 10)
    else:
        g.decide("decline_insurance")
    while not g.round.settled and g.legal():
        g.decide("stand")
    (stored,) = recorder.store.rounds()
    d = stored.detail["decisions"][0]
    ins = hint(rules, Card.parse("Ah"), parse_cards("9s 7d")).insurance
    assert ins < 0  # insurance is a bad bet here
    assert d["best"] == "decline_insurance"
    assert d["action"] == ("insure" if choice == "insure" else "decline_insurance")
    want = -ins * 10 if choice == "insure" else 0.0
    assert d["ev_lost"] == pytest.approx(want, abs=1e-6)
    decisions = stored.detail["decisions"]
    assert [x["action"] for x in decisions][1:] == ["stand"]  # 16 against an ace: hit was best
    assert stored.facts.mistakes == (choice == "insure") + 1


@pytest.mark.parametrize("pays", [Fraction(3, 2), Fraction(6, 5)])
@pytest.mark.parametrize("choice", ["even_money", "decline_insurance"])
def test_even_money_decisions_are_reviewed_against_a_hand_count(recorder, choice, pays):
    from app.rules.shoe import Shoe
    from app.rules.table_rules import TableRules
    from app.views.blackjack.game import BlackjackGame

    rules = TableRules(rounds=1, blackjack_pays=pays)
    # the player's blackjack (As Kd) against the dealer's ace (hole: 5c)
    shoe = Shoe.stacked("As Ah Kd 5c 9c 8d 7h", rules.decks, rules.penetration, random.Random(2))
    g = BlackjackGame(rules, "Me", shoe=shoe)
    g.bet(1, 20)
    g.deal()
    g.decide(choice)
    while not g.round.settled and g.legal():
        g.decide("stand")
    (stored,) = recorder.store.rounds()
    (d,) = stored.detail["decisions"]
    # the referee: the player has seen As, Kd and the dealer's Ah; of the 309 unseen
    # cards of six decks 95 are tens (24 per deck, his king gone)
    p = Fraction(95, 309)
    decline = float(pays * (1 - p))  # his blackjack pays unless the dealer has one (a tie)
    take = 1.0  # even money: 1:1 now, whatever the dealer has
    best = "even_money" if take > decline else "decline_even_money"
    assert (best == "even_money") == (pays == Fraction(6, 5))
    action = "even_money" if choice == "even_money" else "decline_even_money"
    assert (d["action"], d["best"], d["cards"], d["up"]) == (action, best, ["As", "Kd"], "Ah")
    assert d["evs"]["decline_even_money"] == pytest.approx(decline, abs=1e-6)
    assert d["ev_lost"] == pytest.approx(abs(take - decline) * 20 if action != best else 0.0)
    assert stored.facts.mistakes == (action != best)
    assert stored.facts.ev_lost == pytest.approx(d["ev_lost"])
