"""Every rule and payout of seeds 001 and 004 as a scenario file, run through ``blu21 replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.replay import main, run
from app.rules.blackjack.scenario import run_scenario
from app.rules.errors import ScenarioError

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("blackjack_*.json"))


def test_there_are_scenarios() -> None:
    assert len(SCENARIOS) >= 40


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_meets_its_expectation(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == "blackjack"
    assert data.get("expect"), "a scenario must state what it expects"
    assert data.get("description")
    result = run(data)
    assert result["expect"] == {"met": True, "failures": []}
    if "illegal_action" in data["expect"]:
        assert result["rejected"]["error"] == data["expect"]["illegal_action"]
    else:
        # a finished round: results add up to zero with the house
        assert result["table"]["phase"] == "settled"
        assert "rejected" not in result
    json.dumps(result)  # JSON-ready


def test_refusal_stops_at_the_intended_action() -> None:
    data = json.loads(
        (Path(__file__).parent / "scenarios" / "blackjack_split_max_four_hands.json").read_text()
    )
    result = run_scenario(data)
    # three splits went through: four hands, the fourth split was refused
    assert len(result["table"]["hands"]) == 4
    assert result["rejected"]["at"] == {"step": "action", "action": "split"}


def test_wrong_expectation_is_reported() -> None:
    data = json.loads(
        (Path(__file__).parent / "scenarios" / "blackjack_bj_pays_3_2.json").read_text()
    )
    data["expect"] = {"net": {"ann": 12}}
    result = run_scenario(data)
    assert result["expect"]["met"] is False
    assert "net of ann" in result["expect"]["failures"][0]


def test_cli_prints_events_and_net(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = Path(__file__).parent / "scenarios" / "blackjack_bj_6_5_on_7_chips.json"
    assert main([str(src), "--compact"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["net"] == {"ann": "8.4"}
    assert out["house"] == "-8.4"
    kinds = [e["event"] for e in out["events"]]
    assert kinds[0] == "bet" and kinds[-1] == "round_settled"


def _base() -> dict:
    return {
        "game": "blackjack",
        "shoe": "Th Tc 9s 7d",
        "bets": [{"player": "ann", "box": 1, "amount": 10}],
        "actions": [{"action": "stand"}],
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"colour": "red"}, "unknown key"),
        ({"preset": "vegas"}, "unknown preset"),
        ({"rules": {"decks": 9}}, "decks must be 1-8"),
        ({"rules": {"late_surrender": True, "hole_card": "enhc"}}, "late_surrender"),
        ({"rules": {"surrender": True}}, "unknown table rule field"),
        ({"shoe": "Th Tc 9s Xd"}, "shoe"),
        ({"shoe": "Th Th 9s 7d", "rules": {"decks": 1}}, "too many"),
        ({"shoe": "Th Tc 9s"}, "needs more cards"),
        ({"actions": []}, "not finished"),
        ({"actions": [{"action": "fly"}]}, "unknown action"),
        ({"actions": [{"action": "hit", "colour": 1}]}, "unknown field"),
        ({"actions": [{"action": "stand"}, {"action": "hit"}]}, "illegal \\[wrong_phase\\]"),
        ({"bets": [{"player": "ann", "box": 1}]}, "amount"),
        ({"bets": [{"player": "ann", "box": 9, "amount": 10}]}, "bad_box"),
        ({"players": {"ann": -5}}, "players"),
        ({"expect": {"winner": "ann"}}, "expect: unknown key"),
        ({"bets": {"player": "ann"}}, "'bets' must be a list"),
        ({"actions": "hit"}, "'actions' must be a list"),
        ({"side_bets": ["ann"]}, "each of 'side_bets'"),
        ({"bets": [{"player": "ann", "box": 1, "amount": 10, "hand": 2}]}, "each of 'bets'"),
        ({"players": [1]}, "players"),
        ({"players": "ann"}, "'players' is a list"),
        ({"rules": ["decks"]}, "'rules' must be an object"),
        ({"expect": [1]}, "'expect' must be an object"),
    ],
)
def test_bad_scenarios_get_a_clear_error(change: dict, message: str) -> None:
    data = _base() | change
    with pytest.raises(ScenarioError, match=message):
        run_scenario(data)


def test_cli_reports_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(_base() | {"shoe": "Th"}))
    assert main([str(p)]) == 2
    assert "needs more cards" in capsys.readouterr().err


def test_documented_example_runs() -> None:
    doc = (Path(__file__).parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    section = doc.split("## Blackjack scenarios", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    result = run_scenario(example)
    assert result["expect"] == {"met": True, "failures": []}
    shown = json.loads(
        section.split("```json\n", 2)[2]
        .split("```", 1)[0]
        .replace('"...": "..."', '"x": 0')
        .replace(', "..."', "")
        .replace('["..."]', "[]")
    )
    assert shown["net"] == result["net"] and shown["house"] == result["house"]


def test_replay_as_a_player_keeps_the_hole_card_face_down() -> None:
    """The refused fourth split stops the round before the dealer turns his hole card:
    the full replay shows it, the player's view (``--as ann``) does not."""
    data = json.loads(
        (Path(__file__).parent / "scenarios" / "blackjack_split_max_four_hands.json").read_text()
    )
    full = run(data)
    mine = run(data, "ann")
    assert full["table"]["dealer"]["cards"] == ["Td", "7c"]
    assert mine["table"]["dealer"]["cards"] == ["Td", "??"]
    hole = [e for e in mine["events"] if e["event"] == "dealer_card"]
    assert [e["card"] for e in hole] == ["Td", None]
    assert mine["table"]["hands"] == full["table"]["hands"]  # the player cards are public
    with pytest.raises(ScenarioError, match="not a player"):
        run(data, "zoe")
