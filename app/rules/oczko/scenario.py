"""Oczko scenarios for ``blu21 replay``: scripted decks and actions through the engine.

The format is documented in docs/scenarios.md ("Oczko scenarios"). A minimal file:

>>> data = {
...     "game": "oczko",
...     "players": ["Ala", "Bartek"],
...     "options": {"rounds": 1},
...     "rounds": [{"deck": "Qs Kh 7s 9h Td", "actions": [{"draw": "Ala"}, {"hold": "Ala"},
...                                                       {"hold": "Bartek"}]}],
... }
>>> out = run_scenario(data)
>>> out["result"]["winner"], out["result"]["points"]
('Ala', {'Ala': 1, 'Bartek': 0})

The same input always gives the same output (the engine has no randomness and no
clock). Anything wrong with the file, or an action the rules forbid, raises
:class:`app.rules.errors.ScenarioError` naming the round and action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.cards import Card, CardError
from app.rules.engine import Event
from app.rules.errors import IllegalAction, ScenarioError
from app.rules.oczko.actions import CARD_ACTIONS, Action, ActionKind
from app.rules.oczko.match import MAX_PLAYERS, MIN_PLAYERS, Match, OczkoOptions
from app.rules.oczko.views import view_events, view_for

#: Per-player actions of a scenario, each written {"<action>": "<player name>"}.
PLAYER_ACTIONS = ("draw", "hold", "timeout", "disconnect", "rejoin")
#: Table actions of a scenario: {"deal": number of cards}, {"deck": [cards]}.
TABLE_ACTIONS = ("deal", "deck")
#: Result keys an "expect" block may check.
EXPECT_KEYS = ("winner", "points", "rounds_played", "tiebreaks", "end_reason", "finished", "left")


def _players(data: Mapping[str, Any]) -> list[str]:
    names = data.get("players")
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() for n in names):
        raise ScenarioError("'players' must be a list of player names")
    if len(set(names)) != len(names):
        raise ScenarioError(f"player names must differ: {names}")
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ScenarioError(f"Oczko is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {len(names)}")
    return names


def _options(data: Mapping[str, Any]) -> OczkoOptions:
    raw = data.get("options", {})
    if not isinstance(raw, dict):
        raise ScenarioError("'options' must be an object, e.g. {\"rounds\": 5}")
    unknown = sorted(set(raw) - {"rounds"})
    if unknown:
        raise ScenarioError(f"unknown Oczko option(s) {unknown}; known: ['rounds']")
    try:
        return OczkoOptions(**raw)
    except ValueError as exc:
        raise ScenarioError(f"options: {exc}") from exc


def _deck(raw: Any, where: str) -> list[Card]:
    if isinstance(raw, str):
        texts = raw.replace(",", " ").split()
    elif isinstance(raw, list) and all(isinstance(t, str) for t in raw):
        texts = raw
    else:
        raise ScenarioError(f'{where}: a deck is a list of cards like ["As", "Td"] or a string')
    try:
        cards = [Card.parse(t) for t in texts]
    except CardError as exc:
        raise ScenarioError(f"{where}: {exc}") from exc
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise ScenarioError(f"{where}: {c} appears twice in one deck")
        seen.add(c)
    return cards


class _Runner:
    """Feeds one scenario to the engine, keeping the deck cursor and the event log."""

    def __init__(self, names: list[str], options: OczkoOptions) -> None:
        self.names = names
        self.match, events = Match.new(len(names), options)
        self.events: list[Event] = list(events)
        self.deck: list[Card] = []
        self.pos = 0
        self.where = ""

    def seat(self, name: Any) -> int:
        if name not in self.names:
            raise ScenarioError(f"{self.where}: unknown player {name!r} (players: {self.names})")
        return self.names.index(name)

    def next_card(self) -> Card:
        if self.pos >= len(self.deck):
            raise ScenarioError(f"{self.where}: the deck ran out ({len(self.deck)} cards)")
        self.pos += 1
        return self.deck[self.pos - 1]

    def step(self, kind: ActionKind, seat: int | None = None, card: Card | None = None) -> None:
        """Apply one action through the engine contract (``Match.apply``)."""
        cards = (card,) if kind in CARD_ACTIONS else ()
        try:
            self.match, events = self.match.apply(Action(kind, seat, cards))
        except IllegalAction as exc:
            raise ScenarioError(f"{self.where}: {exc} [{exc.code}]") from exc
        self.events.extend(events)

    def play_round(self, i: int, spec: Any) -> bool:
        """Deal and play round spec ``i`` (1-based); True when the round got decided."""
        m = self.match
        if m.over:
            raise ScenarioError(
                f"round {i}: the match already ended after {m.rounds_played} round(s)"
            )
        if not isinstance(spec, dict) or "deck" not in spec:
            raise ScenarioError(f"round {i}: a round is an object with a 'deck' and 'actions'")
        unknown = sorted(set(spec) - {"deck", "actions", "comment"})
        if unknown:
            raise ScenarioError(f"round {i}: unknown key(s) {unknown}")
        actions = spec.get("actions", [])
        if not isinstance(actions, list):
            raise ScenarioError(f"round {i}: 'actions' must be a list")
        assert m.round is not None
        number = m.round.number
        self.where = f"round {i} (deal)"
        self.deck, self.pos = _deck(spec["deck"], self.where), 0
        # Rejoins open the round: a player who left comes back before the first card.
        lead = 0
        while lead < len(actions) and isinstance(actions[lead], dict) and "rejoin" in actions[lead]:
            self.where = f"round {i}, action {lead + 1} ({_show(actions[lead])})"
            self.action(actions[lead])
            lead += 1
        if self._decided(number):
            if lead < len(actions):
                raise ScenarioError(f"{self.where}: the match ended with this rejoin")
            return True
        actions = actions[lead:]
        # Without "deal" actions the whole deal comes first; with them, the file places it.
        if not any(isinstance(a, dict) and "deal" in a for a in actions):
            while not self._decided(number) and self.match.to_deal is not None:
                self.step(ActionKind.DEAL, None, self.next_card())
        for j, act in enumerate(actions, lead + 1):
            self.where = f"round {i}, action {j} ({_show(act)})"
            if self._decided(number):
                raise ScenarioError(f"{self.where}: round {i} is already decided")
            self.action(act)
        return self._decided(number)

    def _decided(self, number: int) -> bool:
        m = self.match
        return m.over or m.round is None or m.round.number != number

    def action(self, act: Any) -> None:
        if not isinstance(act, dict) or len(act) != 1:
            raise ScenarioError(
                f'{self.where}: an action is one key, e.g. {{"draw": "Ala"}} or {{"deck": [...]}}'
            )
        ((kind, arg),) = act.items()
        m = self.match
        if kind == "deal":
            # {"deal": 0} only says "the file places the deal", e.g. a dropout before any card.
            if not isinstance(arg, int) or isinstance(arg, bool) or arg < 0:
                raise ScenarioError(f'{self.where}: deal a number of cards, e.g. {{"deal": 3}}')
            for _ in range(arg):
                if self.match.to_deal is None:
                    raise ScenarioError(f"{self.where}: no card of the deal is left [wrong_phase]")
                self.step(ActionKind.DEAL, None, self.next_card())
        elif kind == "deck":
            self.deck, self.pos = _deck(arg, self.where), 0
            self.step(ActionKind.NEW_DECK)
        elif kind == "draw":
            seat = self.seat(arg)
            # Check the draw before taking a card, so that the error names the rule.
            try:
                m.verify(ActionKind.DRAW, seat)
            except IllegalAction as exc:
                raise ScenarioError(f"{self.where}: {exc} [{exc.code}]") from exc
            self.step(ActionKind.DRAW, seat, self.next_card())
        elif kind in ("hold", "timeout", "disconnect", "rejoin"):
            self.step(ActionKind(kind), self.seat(arg))
        else:
            known = [*PLAYER_ACTIONS, *TABLE_ACTIONS]
            raise ScenarioError(f"{self.where}: unknown action {kind!r} (known: {known})")

    def result(self) -> dict[str, Any]:
        m, names = self.match, self.names
        return {
            "finished": m.over,
            "winner": None if m.winner is None else names[m.winner],
            "end_reason": m.end_reason or None,
            "points": {names[s]: p for s, p in enumerate(m.points)},
            "rounds_played": m.rounds_played,
            "tiebreaks": m.tiebreaks,
            "left": [names[s] for s in sorted(m.gone)],
            "rounds": [r.to_json(names) for r in m.history],
        }


def _show(act: Any) -> str:
    if isinstance(act, dict) and len(act) == 1:
        ((k, v),) = act.items()
        return f"{k} {v}" if isinstance(v, str) else k
    return repr(act)[:40]


def _check_expect(expect: Any, result: Mapping[str, Any]) -> list[str]:
    """The expectations ``result`` does not meet (empty: all met)."""
    if not isinstance(expect, dict):
        raise ScenarioError("'expect' must be an object")
    unknown = sorted(set(expect) - set(EXPECT_KEYS))
    if unknown:
        raise ScenarioError(f"'expect': unknown key(s) {unknown}; known: {list(EXPECT_KEYS)}")
    return [
        f"expected {k} {v!r}, but the engine gives {result[k]!r}"
        for k, v in expect.items()
        if result[k] != v
    ]


def run_scenario(data: Mapping[str, Any], viewer: str | None = None) -> dict[str, Any]:
    """Run an Oczko scenario; returns ``{"game", "players", "options", "events", "result"}``.

    With ``viewer`` (a player's name) the events are those his phone sees and ``"view"``
    is his view of the final state (:func:`app.rules.oczko.views.view_for`: others'
    cards hidden until the showdown); without, everything (full information)."""
    if data.get("game") != "oczko":
        raise ScenarioError(f"not an Oczko scenario: game {data.get('game')!r}")
    unknown = sorted(
        set(data) - {"game", "title", "comment", "players", "options", "rounds", "expect"}
    )
    if unknown:
        raise ScenarioError(f"unknown key(s) {unknown}")
    names = _players(data)
    options = _options(data)
    rounds: Sequence[Any] = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise ScenarioError("'rounds' must be a list")
    if viewer is not None and viewer not in names:
        raise ScenarioError(f"--as {viewer!r}: not a player of this scenario ({names})")
    runner = _Runner(names, options)
    for i, spec in enumerate(rounds, 1):
        decided = runner.play_round(i, spec)
        if not decided and i < len(rounds):
            raise ScenarioError(f"round {i} is not decided after its actions")
    result = runner.result()
    out: dict[str, Any] = {
        "game": "oczko",
        "players": names,
        "options": options.to_json(),
        "events": [e.to_json(names) for e in runner.events],
        "result": result,
    }
    if viewer is not None:
        seat = names.index(viewer)
        out["events"] = [e.to_json(names) for e in view_events(runner.events, seat)]
        out["view"] = view_for(runner.match, seat).to_json(names)
    if "expect" in data:
        fails = _check_expect(data["expect"], result)
        out["expect"] = {"met": not fails, "failures": fails}
    return out
