"""``blu21 replay`` for Oczko: the seed's worked example, the format and its errors."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.cards import Card
from app.cli import main as cli_main
from app.rules.errors import ScenarioError
from app.rules.oczko import Match, OczkoOptions, Persian21, RoundEnded
from app.rules.oczko.scenario import run_scenario

SCENARIOS = Path(__file__).parent / "scenarios"
SEED = SCENARIOS / "oczko_seed_example.json"


def seed() -> dict[str, Any]:
    return json.loads(SEED.read_text(encoding="utf-8"))


def small(**changes: Any) -> dict[str, Any]:
    """A two-player, one-round scenario that Ala wins 20 to 13."""
    data: dict[str, Any] = {
        "game": "oczko",
        "players": ["Ala", "Bartek"],
        "options": {"rounds": 1},
        "rounds": [
            {
                "deck": "Qs Kh 7s 9h Td",
                "actions": [{"draw": "Ala"}, {"hold": "Ala"}, {"hold": "Bartek"}],
            }
        ],
    }
    data.update(changes)
    return data


# --- the seed's worked example ---------------------------------------------------------------


def test_seed_example_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["replay", str(SEED)]) == 0
    out = json.loads(capsys.readouterr().out)
    res = out["result"]
    assert res["points"] == {"Ala": 0, "Bartek": 3, "Celina": 1}  # "3:1:0"
    assert res["winner"] == "Bartek"
    assert res["rounds_played"] == 4  # "ohne die unnötige letzte Runde"
    assert res["end_reason"] == "decided"
    rounds = res["rounds"]
    assert [r["winner"] for r in rounds] == ["Celina", "Bartek", "Bartek", "Bartek"]
    assert rounds[0]["reason"] == "persian"  # Celina's two aces
    totals = {h["player"]: h["total"] for h in rounds[1]["hands"]}
    assert totals == {"Ala": 19, "Bartek": 20, "Celina": 16}  # "Ala 19, Bartek 20, Celina 16"


def test_seed_example_as_a_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "app", "replay", str(SEED), "--compact"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == run_scenario(seed())


def test_seed_example_through_the_engine() -> None:
    """The same story told to the engine directly, action by action."""
    m, _ = Match.new(3, OczkoOptions(rounds=5))
    ala, bartek, celina = 0, 1, 2
    log = []

    def deal(cards: str) -> None:
        nonlocal m
        for t in cards.split():
            m, ev = m.deal(Card.parse(t))
            log.extend(ev)

    def do(op: str, seat: int, card: str | None = None) -> None:
        nonlocal m
        args = (seat,) if card is None else (seat, Card.parse(card))
        m, ev = getattr(m, op)(*args)
        log.extend(ev)

    # Round 1: Ala Q+7 = 10, Bartek K+A = 15, Celina A+A: Persian 21 before anyone draws.
    deal("Qs Kh As 7d Ac Ah")
    assert [e.seat for e in log if isinstance(e, Persian21)] == [celina]
    assert m.points == (0, 0, 1)
    # Round 2, from Bartek: Q+9 draws 8 -> 20; Celina K+10 draws J -> 16; Ala J+J -> 19.
    assert m.round.order == (bartek, celina, ala)
    deal("Qs Kh Jd 9c Th Jc")
    assert [m.round.hand(s).total for s in (ala, bartek, celina)] == [4, 12, 14]
    do("draw", bartek, "8s")
    do("hold", bartek)
    do("draw", celina, "Js")
    do("hold", celina)
    for c in ("5d", "3c", "7h"):
        do("draw", ala, c)
    do("hold", ala)
    assert log[-2] == RoundEnded(
        2, False, bartek, "showdown", ((1, 20), (2, 16), (0, 19)),
        ((1, "held"), (2, "held"), (0, "held")), (0, 1, 1),
    )  # fmt: skip
    assert not m.over
    # Rounds 3 and 4 (invented): Bartek wins both.
    deal("9s 6h Td 8c 5s 7c")
    do("timeout", celina)
    do("draw", ala, "Kd")
    do("draw", ala, "9h")
    do("draw", bartek, "2s")
    do("hold", bartek)
    assert m.points == (0, 2, 1) and not m.over  # Celina could still reach 3
    deal("8d As 7s 6c Tc 7h")
    do("draw", ala, "5h")
    do("hold", ala)
    do("draw", celina, "Qd")
    do("draw", celina, "6s")
    assert m.over and m.winner == bartek and m.points == (0, 3, 1) and m.rounds_played == 4
    expected = run_scenario(seed())["events"]
    assert [e.to_json(["Ala", "Bartek", "Celina"]) for e in log] == expected[1:]


def test_seed_example_checks_its_own_expectation() -> None:
    data = seed()
    data["expect"]["points"]["Ala"] = 1
    out = run_scenario(data)
    assert out["expect"]["met"] is False
    assert "expected points" in out["expect"]["failures"][0]
    assert run_scenario(seed())["expect"] == {"met": True, "failures": []}


def test_seed_example_rounds_follow_the_seat_rotation() -> None:
    out = run_scenario(seed())
    starts = [e["order"] for e in out["events"] if e["event"] == "round_started"]
    assert starts == [
        ["Ala", "Bartek", "Celina"],
        ["Bartek", "Celina", "Ala"],
        ["Celina", "Ala", "Bartek"],
        ["Ala", "Bartek", "Celina"],
    ]
    dealt = [e["player"] for e in out["events"] if e["event"] == "card_dealt" and e["round"] == 3]
    assert dealt == ["Celina", "Ala", "Bartek"] * 2


# --- format features -------------------------------------------------------------------------


def test_replay_is_deterministic() -> None:
    first = json.dumps(run_scenario(seed()))
    for _ in range(3):
        assert json.dumps(run_scenario(seed())) == first


def test_a_new_deck_mid_round() -> None:
    data = {
        "game": "oczko",
        "players": ["Ala", "Bartek", "Celina"],
        "options": {"rounds": 1},
        "rounds": [
            {
                "deck": ["2s", "3s", "4s", "5s", "6s", "7s"],
                "actions": [
                    {"disconnect": "Celina"},
                    {"deck": "2s 9h"},
                    {"draw": "Ala"},
                    {"draw": "Ala"},
                    {"hold": "Ala"},
                    {"hold": "Bartek"},
                ],
            }
        ],
    }
    out = run_scenario(data)
    kinds = [e["event"] for e in out["events"]]
    assert "deck_replaced" in kinds
    ala = out["result"]["rounds"][0]["hands"][0]
    assert ala["cards"] == ["2s", "5s", "2s", "9h"] and ala["total"] == 18
    assert out["result"]["winner"] == "Ala" and out["result"]["left"] == ["Celina"]


def test_a_dropout_during_the_deal_and_a_fresh_deck() -> None:
    data = {
        "game": "oczko",
        "players": ["Ala", "Bartek", "Celina"],
        "options": {"rounds": 1},
        "rounds": [
            {
                "deck": "2s 3s 4s",
                "actions": [
                    {"deal": 3},
                    {"disconnect": "Bartek"},
                    {"deck": "Ts 9h"},
                    {"deal": 2},
                    {"hold": "Ala"},
                    {"hold": "Celina"},
                ],
            }
        ],
    }
    out = run_scenario(data)
    dealt = [(e["player"], e["card"]) for e in out["events"] if e["event"] == "card_dealt"]
    # Bartek gets no second card: the deal goes on around him from the fresh deck.
    assert dealt == [("Ala", "2s"), ("Bartek", "3s"), ("Celina", "4s"), ("Ala", "Ts"),
                     ("Celina", "9h")]  # fmt: skip
    assert out["result"]["winner"] == "Celina"  # 13 against 12
    assert out["result"]["rounds"][0]["hands"][1]["status"] == "bust"


def test_deal_actions_must_fit_the_deal() -> None:
    data = small()
    data["rounds"][0]["actions"] = [{"deal": 5}]
    with pytest.raises(ScenarioError, match=r"action 1 \(deal\): no card of the deal is left"):
        run_scenario(data)
    data["rounds"][0]["actions"] = [{"deal": 2}, {"hold": "Ala"}]
    with pytest.raises(ScenarioError, match=r"action 2 \(hold Ala\).*wrong_phase"):
        run_scenario(data)
    data["rounds"][0]["actions"] = [{"deal": "all"}]
    with pytest.raises(ScenarioError, match=r"deal a number of cards"):
        run_scenario(data)


def test_an_unfinished_last_round_is_reported() -> None:
    data = small()
    data["rounds"][0]["actions"] = [{"draw": "Ala"}]
    res = run_scenario(data)["result"]
    assert res["finished"] is False and res["winner"] is None and res["rounds_played"] == 0


def test_deck_as_list_or_string_gives_the_same_result() -> None:
    a = small()
    b = small()
    b["rounds"][0]["deck"] = ["Qs", "Kh", "7s", "9h", "Td"]
    assert run_scenario(a) == run_scenario(b)


# --- errors: clear messages naming the round and the action ----------------------------------


def _broken(mutate: Any) -> dict[str, Any]:
    data = copy.deepcopy(small())
    mutate(data)
    return data


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["rounds"][0]["actions"].insert(0, {"draw": "Bartek"}),
         r"round 1, action 1 \(draw Bartek\).*not_your_turn"),
        (lambda d: d["rounds"][0]["actions"].insert(2, {"draw": "Ala"}),
         r"round 1, action 3 \(draw Ala\).*already_decided"),
        (lambda d: d["rounds"][0]["actions"].insert(0, {"draw": "Zenon"}),
         r"round 1, action 1.*unknown player 'Zenon'"),
        (lambda d: d["rounds"][0]["actions"].insert(0, {"fold": "Ala"}),
         r"round 1, action 1.*unknown action 'fold'"),
        (lambda d: d["rounds"][0]["actions"].insert(0, {"draw": "Ala", "hold": "Ala"}),
         r"round 1, action 1.*one key"),
        (lambda d: d["rounds"][0]["actions"].append({"hold": "Ala"}),
         r"round 1, action 4.*already decided"),
        (lambda d: d["rounds"][0].update(deck="Qs Kh 7s"), r"round 1 \(deal\).*deck ran out"),
        (lambda d: d["rounds"][0].update(deck="Qs Kh 7s 9h"), r"round 1, action 1.*deck ran out"),
        (lambda d: d["rounds"][0].update(deck="Qs Kh 7s Qs"), r"\(deal\).*Qs appears twice"),
        (lambda d: d["rounds"][0].update(deck="Qs Kh 7s Xq"), r"round 1 \(deal\).*'Xq'"),
        (lambda d: d["rounds"][0].update(deck=5), r"round 1 \(deal\).*a deck is a list"),
        (lambda d: d["rounds"].append(d["rounds"][0]), r"round 2: the match already ended"),
        (lambda d: d["rounds"].insert(0, {"deck": "2s 3s 4s 5s", "actions": []}),
         r"round 1 is not decided"),
        (lambda d: d["rounds"].insert(0, "round"), r"round 1: a round is an object"),
        (lambda d: d.update(players=["Ala"]), r"2-7 players"),
        (lambda d: d.update(players=["Ala", "Ala"]), r"names must differ"),
        (lambda d: d.update(players="Ala Bartek"), r"'players' must be a list"),
        (lambda d: d.update(options={"rounds": 0}), r"options: rounds must be"),
        (lambda d: d.update(options={"decks": 2}), r"unknown Oczko option"),
        (lambda d: d.update(rounds={}), r"'rounds' must be a list"),
        (lambda d: d.update(extra=1), r"unknown key\(s\) \['extra'\]"),
        (lambda d: d.update(expect={"colour": 1}), r"'expect': unknown key"),
    ],
)  # fmt: skip
def test_scenario_errors(mutate: Any, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        run_scenario(_broken(mutate))


def test_unmet_expectation_is_reported_not_raised() -> None:
    out = run_scenario(_broken(lambda d: d.update(expect={"winner": "Bartek"})))
    assert out["expect"]["met"] is False
    assert "expected winner 'Bartek'" in out["expect"]["failures"][0]


def test_cli_reports_errors_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _broken(lambda d: d["rounds"][0]["actions"].insert(0, {"hold": "Bartek"}))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert cli_main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "round 1, action 1 (hold Bartek)" in err and "not_your_turn" in err
    path.write_text("{not json", encoding="utf-8")
    assert cli_main(["replay", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_the_example_in_the_docs_runs() -> None:
    text = (Path(__file__).parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    section = text.split("## Oczko scenarios", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    out = run_scenario(example)  # its "expect" block is checked by the runner
    assert out["result"]["points"] == example["expect"]["points"]


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("oczko_*.json")), ids=lambda p: p.stem)
def test_every_shipped_oczko_scenario_meets_its_expectation(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert "expect" in data  # each file states what it shows
    out = run_scenario(data)  # raises if the engine disagrees with "expect"
    assert out["result"]["finished"] == data["expect"].get("finished", out["result"]["finished"])
    assert cli_main(["replay", str(path), "--compact"]) == 0


# --- a replay as one player saw it (the engine's view_for) ------------------------------------


def test_replay_as_a_player_hides_the_others_cards(capsys: pytest.CaptureFixture[str]) -> None:
    full = run_scenario(small())
    mine = run_scenario(small(), viewer="Bartek")
    dealt = [e for e in full["events"] if e["event"] == "card_dealt"]
    seen = [e for e in mine["events"] if e["event"] == "card_dealt"]
    assert [e["card"] for e in dealt] == ["Qs", "Kh", "7s", "9h"]
    assert [e["card"] for e in seen] == [None, "Kh", None, "9h"]  # only his own
    drawn = next(e for e in mine["events"] if e["event"] == "card_drawn")
    assert drawn["player"] == "Ala" and drawn["card"] is None and drawn["total"] is None
    # the showdown is public: the round's result and hands are the same for him
    assert mine["result"] == full["result"]
    assert mine["view"]["viewer"] == "Bartek" and "view" not in full
    with pytest.raises(ScenarioError, match="not a player"):
        run_scenario(small(), viewer="Zosia")
    assert cli_main(["replay", str(SEED), "--as", "Celina", "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    others = [e for e in out["events"] if e["event"] == "card_dealt" and e["player"] != "Celina"]
    assert others and all(e["card"] is None for e in others)
