"""The history screens' presenters (app/views/history/vm.py), without Kivy."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from app import i18n
from app.history.model import Facts, RoundRecord
from app.views.history import vm


@pytest.fixture(autouse=True)
def english():
    i18n.set_language("en")
    yield
    i18n.set_language("en")


def test_oczko_replay_hides_what_the_phone_did_not_see_until_revealed():
    events = [
        {"event": "round_started", "round": 2, "order": [1, 0], "t": 0},
        {"event": "card_dealt", "seat": 1, "card": None, "t": 0.1},
        {"event": "card_dealt", "seat": 0, "card": "Ks", "t": 0.2},
        {"event": "card_dealt", "seat": 1, "card": None, "t": 0.3},
        {"event": "card_dealt", "seat": 0, "card": "Ah", "t": 0.4},
        {"event": "card_drawn", "seat": 0, "card": "3c", "total": 18, "t": 4.5},
        {"event": "held", "seat": 0, "total": 18, "reason": "hold", "t": 6},
        {"event": "held", "seat": 1, "total": None, "reason": "timeout", "t": 36},
        {"event": "revealed", "seat": 1, "cards": ["Td", "9d"], "total": 19, "t": 37},
        {"event": "round_ended", "winner": 1, "t": 37},
    ]
    frames = vm.oczko_frames({"names": ["Ola", "Ben"], "order": [1, 0], "events": events})
    assert len(frames) == len(events)
    assert frames[4].rows == (("Ben", ("??", "??")), ("Ola", ("Ks", "Ah")))
    assert frames[5].caption == "4.5 s  Ola draws"
    assert frames[-1].rows[0] == ("Ben", ("Td", "9d"))
    assert frames[-1].caption.endswith("Ben wins the round")
    i18n.set_language("de")
    assert vm.oczko_frames({"names": ["Ola", "Ben"], "events": events})[5].caption == (
        "4,5 s  Ola zieht"
    )


def test_blackjack_replay_follows_a_split():
    from app.history.blackjack_record import blackjack_record
    from app.rules.blackjack.deal import ShoeRound
    from app.rules.shoe import Shoe
    from app.rules.table_rules import TableRules

    rules = TableRules()
    shoe = Shoe.stacked("8s 5d 8h Tc 3s 9d", rules.decks, rules.penetration, random.Random(1))
    rnd = ShoeRound.new(rules, shoe, {"Me": Fraction(1000)}).act("bet", "Me", 1, 10).act("deal")
    rnd = rnd.act("split", "Me", 1)
    while not rnd.settled:
        rnd = rnd.act("stand", "Me", rnd.current.box)
    rec = blackjack_record(
        rnd.round, "Me", session="s", number=1, started=0.0, ended=1.0, times=[], decisions=[]
    )
    frames = vm.blackjack_frames(rec.detail)
    last = dict(frames[-1].rows)
    assert last["Box 1, hand 1"] == ("8s", "3s")
    assert last["Box 1, hand 2"] == ("8h", "9d")
    assert last["Dealer"][:2] == ("5d", "Tc")  # the hole card turned
    assert any("split" in f.caption for f in frames)


def test_fairness_record_and_decisions():
    detail = {
        "names": ["Ola", "Mallory", "Ben"],
        "order": [2, 0, 1],
        "fingerprint": "042133",
        "audits": [{"deck": 3, "ok": False, "cheaters": ["Mallory"]}],
    }
    lines = vm.fairness_lines(detail)
    assert lines[0] == "Table fingerprint: 042133"
    assert lines[1] == "Shuffled in turn by: Ben, Ola, Mallory"
    assert "Mallory" in lines[2] and "docs/protocol.md" in lines[-1]
    assert vm.fairness_lines({"names": []}) == []  # not a networked round
    pending = vm.fairness_lines({**detail, "audits": []})
    assert "had not finished" in pending[2]
    decision = {
        "cards": ["Th", "6d"], "up": "7c", "action": "stand", "best": "hit",
        "evs": {"stand": -0.48, "hit": -0.41}, "ev_lost": 0.7, "stake": "10",
    }  # fmt: skip
    rec = RoundRecord(
        "blackjack", "casino", "s", 1, 0.0, 1.0, "Ola", "lost", "10", "0",
        Facts(decisions=1, mistakes=1, ev_lost=0.7), {"decisions": [decision]},
    )  # fmt: skip
    assert vm.decision_lines(rec) == [
        "Th 6d against 7c: you chose stand, best was hit (EV lost 0.70)"
    ]
    i18n.set_language("pl")
    assert vm.decision_lines(rec)[0].endswith("(utracona wartość oczekiwana 0,70)")


@pytest.mark.parametrize("lang", ["de", "en", "pl"])
def test_statistics_lines_in_every_language(lang):
    from app.history.stats import statistics

    i18n.set_language(lang)
    stats = statistics([])
    for game in ("oczko", "blackjack"):
        lines = vm.stats_lines(game, stats[game])
        assert len(lines) >= 5 and all("{" not in line for line in lines)
