"""``blu21 replay FILE.json [--as PLAYER]``: run a scenario through a rules engine and
print JSON (with ``--as``, what that player's phone showed).

Exit status: 0 when the scenario ran (and met its ``"expect"``), 1 when it ran but an
expectation was not met (the report is still printed), 2 for a bad file or scenario.

The file names its game (``"game": "oczko"`` or ``"game": "blackjack"``); each
game's scenario runner lives beside its engine. The format is in docs/scenarios.md.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from app.i18n.args import ToolParser
from app.jsonfile import read_json_object
from app.rules.errors import ScenarioError

#: game -> module with ``run_scenario(data: Mapping, viewer: str | None) -> dict`` (raises
#: ScenarioError); with a viewer the output is that player's view (the game's
#: ``view_for``, the one place that hides cards; the replay hides nothing itself).
RUNNERS: dict[str, str] = {
    "oczko": "app.rules.oczko.scenario",
    "blackjack": "app.rules.blackjack.scenario",
}


def load_scenario(path: str | Path) -> dict[str, Any]:
    """Read a scenario file, with a clear error for a missing or malformed file."""
    try:
        return read_json_object(path, "scenario file")
    except ValueError as exc:
        raise ScenarioError(str(exc)) from None


Runner = Callable[[Mapping[str, Any], str | None], dict[str, Any]]


def runner_for(data: Mapping[str, Any]) -> Runner:
    """The scenario runner of the game the scenario names."""
    game = data.get("game")
    if game not in RUNNERS:
        raise ScenarioError(f"scenario 'game' must be one of {sorted(RUNNERS)}, not {game!r}")
    runner: Runner = importlib.import_module(RUNNERS[game]).run_scenario
    return runner


def run(data: Mapping[str, Any], viewer: str | None = None) -> dict[str, Any]:
    """Run a scenario (already parsed) and return its JSON-ready result; with ``viewer``
    as that player sees it."""
    return runner_for(data)(data, viewer)


def main(argv: Sequence[str]) -> int:
    """``blu21 replay FILE.json [--compact]``."""
    parser = ToolParser(prog="blu21 replay", description=__doc__)
    parser.add_argument("file", help="scenario file (JSON)")
    parser.add_argument("--compact", action="store_true", help="one-line JSON")
    parser.add_argument(
        "--as", dest="viewer", metavar="PLAYER", help="show what this player saw (his view)"
    )
    ns = parser.parse_args(list(argv))
    try:
        result = run(load_scenario(ns.file), ns.viewer)
    except ScenarioError as exc:
        print(f"blu21 replay: {exc}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout, indent=None if ns.compact else 2, sort_keys=False)
    sys.stdout.write("\n")
    expect = result.get("expect")
    if isinstance(expect, Mapping) and not expect.get("met", True):
        for failure in expect.get("failures", []):
            print(f"blu21 replay: expectation not met: {failure}", file=sys.stderr)
        return 1  # a failed expectation is a failure; the report above is kept
    return 0
