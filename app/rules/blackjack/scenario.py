"""Casino blackjack scenarios for ``blu21 replay``: one scripted round as JSON.

The format is documented in docs/scenarios.md ("Blackjack scenarios"). In short::

    {"game": "blackjack", "preset": "classic", "rules": {"blackjack_pays": "6/5"},
     "players": {"ann": 1000},
     "shoe": "As 9d Kh 7c",
     "bets": [{"player": "ann", "box": 1, "amount": 10}],
     "side_bets": [],
     "actions": [{"action": "stand"}],
     "expect": {"net": {"ann": 12}}}

:func:`run_scenario` returns the events, the final table and each bettor's net result;
if the scenario has ``"expect"``, the result says whether it was met.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.cards import CardError
from app.rules.blackjack import PLAY_KINDS, Action, ActionKind, Round
from app.rules.blackjack.deal import ShoeRound
from app.rules.blackjack.events import DealerDone
from app.rules.blackjack.view import full_view, view_for
from app.rules.errors import IllegalAction, ScenarioError
from app.rules.money import MoneyError, money_json, to_money
from app.rules.shoe import Shoe, ShoeEmpty, ShoeError
from app.rules.table_rules import RulesError, TableRules

KEYS = {
    "game", "name", "description", "preset", "rules", "players", "shoe", "bets",
    "side_bets", "actions", "expect",
}  # fmt: skip
EXPECT_KEYS = {"net", "house", "dealer_total", "dealer_blackjack", "outcomes", "illegal_action"}


def _rules(data: Mapping[str, Any]) -> TableRules:
    preset = data.get("preset", "classic")
    overrides = data.get("rules", {})
    if not isinstance(overrides, Mapping):
        raise ScenarioError("'rules' must be an object of table rule fields")
    try:
        return TableRules.from_json(overrides, base=TableRules.preset(preset))
    except RulesError as exc:
        raise ScenarioError(f"rules: {exc}") from None


def _players(data: Mapping[str, Any], rules: TableRules) -> dict[str, Any]:
    players = data.get("players")
    if players is None:
        names: list[Any] = [b.get("player") for b in data.get("bets", []) if isinstance(b, Mapping)]
        return dict.fromkeys(names, rules.starting_chips)
    if isinstance(players, list):
        return dict.fromkeys(players, rules.starting_chips)
    if isinstance(players, Mapping):
        return dict(players)
    raise ScenarioError("'players' is a list of names or an object name -> chips")


def _fill(r: Round, a: Mapping[str, Any], n: int) -> Action:
    """Action ``a`` with the player (and box) filled in from the state when left out."""
    if not isinstance(a, Mapping) or "action" not in a:
        raise ScenarioError(f'action {n}: write actions as {{"action": "hit", ...}}')
    unknown = set(a) - {"action", "player", "box", "amount"}
    if unknown:
        raise ScenarioError(f"action {n}: unknown field(s) {sorted(unknown)}")
    kind = a["action"]
    player, box, amount = a.get("player"), a.get("box"), a.get("amount")
    try:
        k = ActionKind(kind)
    except ValueError:
        raise ScenarioError(
            f"action {n}: unknown action {kind!r}; actions are {[x.value for x in ActionKind]}"
        ) from None
    if player is None:
        if k in PLAY_KINDS and r.current is not None:
            player = r.current.owner
        elif k in (ActionKind.INSURE, ActionKind.DECLINE_INSURANCE, ActionKind.EVEN_MONEY):
            if r.pending:
                player, pbox = r.pending[0]
                box = pbox if box is None else box
        elif k in (ActionKind.FOLLOW_DOUBLE, ActionKind.DECLINE_DOUBLE) and r.follow_pending:
            player = r.follow_pending[0]
    if box is None and player is not None:
        boxes = [b for p, b in r.pending if p == player]
        box = boxes[0] if boxes else None
    try:
        return Action(k, player, box, None if amount is None else to_money(amount))
    except MoneyError as exc:
        raise ScenarioError(f"action {n}: {exc}") from None


def _check(expect: Mapping[str, Any], r: Round, rejected: IllegalAction | None) -> list[str]:
    fails: list[str] = []
    unknown = set(expect) - EXPECT_KEYS
    if unknown:
        raise ScenarioError(
            f"expect: unknown key(s) {sorted(unknown)}; keys are {sorted(EXPECT_KEYS)}"
        )
    if "illegal_action" in expect:
        got = rejected.code if rejected else None
        if got != expect["illegal_action"]:
            fails.append(f"illegal_action: expected {expect['illegal_action']!r}, got {got!r}")
    for p, want in expect.get("net", {}).items():
        if r.net(p) != to_money(want):
            fails.append(f"net of {p}: expected {want}, got {money_json(r.net(p))}")
    if "house" in expect and r.house_result() != to_money(expect["house"]):
        fails.append(f"house: expected {expect['house']}, got {money_json(r.house_result())}")
    if "dealer_total" in expect and r.dealer_total() != expect["dealer_total"]:
        fails.append(f"dealer_total: expected {expect['dealer_total']}, got {r.dealer_total()}")
    if "dealer_blackjack" in expect:
        bj = any(isinstance(e, DealerDone) and e.blackjack for e in r.events)
        if bj != expect["dealer_blackjack"]:
            fails.append(f"dealer_blackjack: expected {expect['dealer_blackjack']}, got {bj}")
    settled = [e.to_json() for e in r.events if e.kind == "settled"]
    for want in expect.get("outcomes", []):
        if not any(all(s.get(k) == v for k, v in want.items()) for s in settled):
            fails.append(f"outcome {want} not found among {settled}")
    return fails


def run_scenario(data: Mapping[str, Any], viewer: str | None = None) -> dict[str, Any]:
    """Run one blackjack scenario and return its JSON-ready result (see module doc).

    With ``viewer`` (a player's name) the events and the table are what he sees
    (:func:`app.rules.blackjack.view.view_for`: a face-down hole card stays hidden);
    without, everything."""
    unknown = set(data) - KEYS
    if unknown:
        raise ScenarioError(f"unknown key(s) {sorted(unknown)}; keys are {sorted(KEYS)}")
    for key in ("bets", "side_bets", "actions"):
        if not isinstance(data.get(key, []), list):
            raise ScenarioError(f"'{key}' must be a list")
    for key, fields in (("bets", {"player", "box", "amount"}), ("side_bets", {"player", "amount"})):
        for item in data.get(key, []):
            if not isinstance(item, Mapping) or set(item) - fields:
                raise ScenarioError(
                    f"each of '{key}' is an object with {sorted(fields)}, not {item!r}"
                )
    rules = _rules(data)
    if "shoe" not in data:
        raise ScenarioError("'shoe' (the cards in dealing order) is required")
    try:
        shoe = Shoe.scripted(data["shoe"], decks=rules.decks)
    except (CardError, ShoeError, TypeError) as exc:
        raise ScenarioError(f"shoe: {exc}") from None
    try:
        # The round holds no shoe: the scenario's shoe supplies the cards it asks for,
        # in the order it asks (the deal, the hits, the dealer's draws).
        t = ShoeRound.new(rules, shoe, _players(data, rules))
    except (ValueError, TypeError) as exc:
        raise ScenarioError(f"players: {exc}") from None
    expect = data.get("expect")
    if expect is not None and not isinstance(expect, Mapping):
        raise ScenarioError("'expect' must be an object")
    want_illegal = bool(expect and "illegal_action" in expect)
    rejected: IllegalAction | None = None
    rejected_step: dict[str, Any] = {}
    steps: list[tuple[str, Any]] = []
    for b in data.get("bets", []):
        steps.append(("bet", b))
    for b in data.get("side_bets", []):
        steps.append(("side_bet", b))
    steps.append(("deal", {}))
    for a in data.get("actions", []):
        steps.append(("action", a))
    for n, (what, item) in enumerate(steps, 1):
        try:
            if what == "bet":
                action = Action(ActionKind.BET, item.get("player"), item.get("box"),
                                to_money(item.get("amount")))  # fmt: skip
            elif what == "side_bet":
                action = Action(ActionKind.SIDE_BET, item.get("player"), None,
                                to_money(item.get("amount")))  # fmt: skip
            elif what == "deal":
                action = Action.deal()
            else:
                action = _fill(t.round, item, n - len(steps) + len(data.get("actions", [])))
            t, _ = t.apply(action)
        except MoneyError as exc:
            raise ScenarioError(f"{what} {item}: {exc}") from None
        except ShoeEmpty as exc:
            raise ScenarioError(f"{exc}: the scenario's shoe needs more cards") from None
        except IllegalAction as exc:
            if want_illegal:  # the scenario shows a refusal: stop at the first one
                rejected = exc
                rejected_step = {"step": what, **(dict(item) if item else {})}
                break
            legal = [x.to_json() for x in t.legal_actions()]
            raise ScenarioError(
                f"{what} {dict(item) if item else ''} is illegal [{exc.code}]: {exc}; "
                f"legal now: {legal}"
            ) from None
    r = t.round
    if not r.settled and not want_illegal:
        raise ScenarioError(
            f"the round is not finished ({r.phase.value}); legal now: "
            f"{[x.to_json() for x in r.legal_actions()]}"
        )
    if viewer is not None and viewer not in r.players():
        raise ScenarioError(f"--as {viewer!r}: not a player of this scenario {r.players()}")
    seen = full_view(r) if viewer is None else view_for(r, viewer)
    result: dict[str, Any] = {
        "game": "blackjack",
        "rules": rules.to_json(),
        "events": [e.to_json() for e in seen.events],
        "table": seen.to_json(),
        "net": {p: money_json(v) for p, v in r.results().items()},
        "house": money_json(r.house_result()),
    }
    if rejected is not None:
        result["rejected"] = {**rejected.to_json(), "at": rejected_step}
    if expect is not None:
        fails = _check(expect, r, rejected)
        result["expect"] = {"met": not fails, "failures": fails}
    return result
