"""Hypothesis properties of the Oczko engine under random legal play."""

from __future__ import annotations

import copy
import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.cards import DECK, Card
from app.rules.engine import kinds_of
from app.rules.oczko import (
    CardDealt,
    CardDrawn,
    Event,
    IllegalAction,
    Match,
    MatchEnded,
    OczkoOptions,
    Phase,
    RoundEnded,
    RoundStarted,
    Status,
    redact,
    view,
)
from app.rules.oczko.actions import CARD_ACTIONS, TABLE_ACTIONS
from app.rules.oczko.scenario import run_scenario

MAX_STEPS = 20_000


@dataclass
class Step:
    """One applied action: the state before, the action, the state after and the events."""

    before: Match
    action: tuple[Any, ...]
    after: Match
    events: tuple[Event, ...]


@dataclass(repr=False)
class Game:
    """A random match played to its end, with a scenario that replays it."""

    players: int
    rounds: int
    steps: list[Step] = field(default_factory=list)
    scenario_rounds: list[dict[str, Any]] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Game(players={self.players}, rounds={self.rounds}, steps={len(self.steps)})"

    @property
    def final(self) -> Match:
        return self.steps[-1].after

    def all_events(self) -> list[Event]:
        return [e for s in self.steps for e in s.events]


def random_game(
    rng: random.Random, players: int, rounds: int, p_drop: float, drop_in_deal: bool
) -> Game:
    """Play a match with random legal actions (and random dropouts, fresh decks)."""
    m, _ = Match.new(players, OczkoOptions(rounds=rounds))
    game = Game(players, rounds)
    names = [f"P{i}" for i in range(players)]
    deck: list[Card] = []
    number = 0
    spec: dict[str, Any] = {}

    def apply(action: tuple[Any, ...]) -> None:
        nonlocal m
        before = m
        m, ev = getattr(m, action[0])(*action[1:])
        game.steps.append(Step(before, action, m, ev))

    def fresh() -> list[Card]:
        d = list(DECK)
        rng.shuffle(d)
        return d

    for _ in range(MAX_STEPS):
        if m.over:
            break
        assert m.round is not None
        if m.round.number != number:
            number, deck = m.round.number, fresh()
            spec = {"deck": [], "actions": [], "seats": len(m.round.order)}
            game.scenario_rounds.append(spec)
            current = spec["deck"]
        dropping = rng.random() < p_drop and (drop_in_deal or m.phase is Phase.PLAY)
        if dropping and len(m.active) > 1:
            seat = rng.choice(m.active)
            apply(("disconnect", seat))
            spec["actions"].append({"disconnect": names[seat]})
            if not m.over and m.round.number == number and rng.random() < 0.5:
                apply(("new_deck",))
                deck = fresh()
                current = []
                spec["actions"].append({"deck": current})
            continue
        if m.phase is Phase.DEAL:
            card = deck.pop()
            current.append(str(card))
            apply(("deal", card))
            spec["actions"].append({"deal": 1})
            continue
        seat = m.to_act
        assert seat is not None
        total = m.round.hand(seat).total
        assert total is not None
        want = rng.random() < (0.9 if total < 12 else 0.5 if total < 17 else 0.1)
        if want and deck:
            card = deck.pop()
            current.append(str(card))
            apply(("draw", seat, card))
            spec["actions"].append({"draw": names[seat]})
        else:
            kind = rng.choice(["hold", "timeout"])
            apply((kind, seat))
            spec["actions"].append({kind: names[seat]})
    return game


games = st.builds(
    random_game,
    st.integers(0, 2**32 - 1).map(random.Random),
    st.integers(2, 7),
    st.integers(1, 7),
    st.sampled_from([0.0, 0.01, 0.05]),
    st.booleans(),
)
# Small tables, for the brute-force check of an early end.
small_games = st.builds(
    random_game,
    st.integers(0, 2**32 - 1).map(random.Random),
    st.integers(2, 4),
    st.integers(1, 4),
    st.sampled_from([0.0, 0.02]),
    st.booleans(),
)


@given(games)
def test_every_match_ends(game: Game) -> None:
    m = game.final
    assert m.over
    assert m.winner in m.active  # a player who left never wins
    assert isinstance(game.all_events()[-1], MatchEnded)


@given(games)
def test_at_most_one_point_per_round(game: Game) -> None:
    prev = (0,) * game.players
    ends = [e for e in game.all_events() if isinstance(e, RoundEnded)]
    for e in ends:
        gained = [b - a for a, b in zip(prev, e.points, strict=True)]
        assert all(g in (0, 1) for g in gained) and sum(gained) <= 1
        assert sum(gained) == (e.winner is not None)
        if e.winner is not None:
            assert gained[e.winner] == 1
        prev = e.points
    assert sum(game.final.points) == sum(e.winner is not None for e in ends)
    assert len(ends) == game.final.rounds_played


def _decided_by_brute_force(points: tuple[int, ...], active: tuple[int, ...], left: int) -> bool:
    """True when every way the remaining rounds can go leaves one and the same sole leader."""
    leaders = set()
    for winners in itertools.product([*active, None], repeat=left):
        final = list(points)
        for w in winners:
            if w is not None:
                final[w] += 1
        best = max(final[s] for s in active)
        top = [s for s in active if final[s] == best]
        if len(top) > 1:
            return False  # a tie for first is possible: tiebreak, not decided
        leaders.add(top[0])
    return len(leaders) == 1


@given(small_games)
def test_early_end_exactly_when_the_result_is_decided(game: Game) -> None:
    rounds = game.rounds
    for step in game.steps:
        m = step.after
        ended_round = any(isinstance(e, RoundEnded) for e in step.events)
        if not ended_round and not m.over:
            continue
        last_regular = m.played == rounds and not (m.history and m.history[-1].tiebreak)
        if m.played >= rounds and not (ended_round and last_regular):
            continue  # tiebreaks: decided by their own rule
        if len(m.active) == 1:
            assert m.over and m.end_reason == "last_player"
            continue
        left = rounds - m.played
        if left == 0:
            best = max(m.points[s] for s in m.active)
            top = tuple(s for s in m.active if m.points[s] == best)
            assert m.over == (len(top) == 1)
            assert m.end_reason == ("rounds" if m.over else "")
            continue
        decided = _decided_by_brute_force(m.points, m.active, left)
        assert m.over == decided, (m.points, m.active, left)
        if m.over:
            assert m.end_reason == "decided"


def _written_deal(spec: dict[str, Any], auto: bool) -> dict[str, Any]:
    """Merge runs of {"deal": 1}; leave out a deal that comes first when ``auto``."""
    actions: list[dict[str, Any]] = []
    for a in spec["actions"]:
        if "deal" in a and actions and "deal" in actions[-1]:
            actions[-1] = {"deal": actions[-1]["deal"] + 1}
        else:
            actions.append(dict(a))
    whole = 2 * spec["seats"]
    if auto and actions and actions[0].get("deal") == whole:
        actions = actions[1:]  # an uninterrupted deal: the runner deals it first by itself
    elif not any("deal" in a for a in actions):
        actions.insert(0, {"deal": 0})  # the round ended before its first card
    return {"deck": spec["deck"], "actions": actions}


@given(games, st.booleans())
def test_replay_is_deterministic_and_matches_the_engine(game: Game, auto: bool) -> None:
    names = [f"P{i}" for i in range(game.players)]
    data = {
        "game": "oczko",
        "players": names,
        "options": {"rounds": game.rounds},
        "rounds": [_written_deal(r, auto) for r in json.loads(json.dumps(game.scenario_rounds))],
    }
    first = run_scenario(data)
    again = run_scenario(copy.deepcopy(data))
    assert json.dumps(first) == json.dumps(again)
    engine_events = [e.to_json(names) for e in game.all_events()]
    # The runner's log also has round 1's start (made by Match.new).
    assert first["events"][1:] == engine_events
    assert first["result"]["points"] == dict(zip(names, game.final.points, strict=True))
    assert first["result"]["winner"] == names[game.final.winner]


ACTION_KINDS = [
    "draw", "hold", "timeout", "disconnect", "bust", "forfeit", "deal", "new_deck", "close_deal"
]  # fmt: skip


@given(games, st.data())
def test_illegal_actions_leave_the_state_unchanged(game: Game, data: st.DataObject) -> None:
    for step in data.draw(st.lists(st.sampled_from(game.steps), min_size=1, max_size=5)):
        m = step.before
        kind = data.draw(st.sampled_from(ACTION_KINDS))
        seat = data.draw(st.integers(-1, game.players))
        card = data.draw(st.sampled_from(DECK))
        args: tuple[Any, ...] = {
            "draw": (seat, card),
            "hold": (seat,),
            "timeout": (seat,),
            "disconnect": (seat,),
            "bust": (seat,),
            "forfeit": (seat,),
            "deal": (card,),
            "new_deck": (),
            "close_deal": (),
        }[kind]
        snapshot = copy.deepcopy(m)
        # legal_actions and apply share one check: a kind is listed exactly when it is
        # accepted (a card-carrying kind may still be refused for its card, e.g. a repeat)
        listed = m.legal_actions() if kind in TABLE_ACTIONS else m.legal_actions(seat)
        allowed = kind in kinds_of(listed)
        try:
            getattr(m, kind)(*args)
        except IllegalAction as exc:
            assert m == snapshot
            assert exc.code and isinstance(exc.code, str)
            if kind not in CARD_ACTIONS:
                assert not allowed, exc  # legal_actions never offers what is refused
        else:
            assert allowed  # nor refuses what is accepted


@given(games)
def test_views_never_show_other_players_cards_before_the_showdown(game: Game) -> None:
    for step in game.steps:
        m = step.after
        r = m.round
        if r is None or r.phase is Phase.OVER:
            continue
        for viewer in [None, *range(game.players)]:
            v = view(m, viewer)
            for sv in v.seats:
                if not sv.in_round:
                    assert sv.cards == ()
                    continue
                h = r.hand(sv.seat)
                assert sv.count == len(h.cards)
                assert sv.status == str(h.status)
                if sv.seat == viewer or h.status is Status.PERSIAN:
                    assert sv.cards == h.cards
                else:
                    assert sv.cards == (None,) * len(h.cards) and sv.total is None
            text = json.dumps(v.to_json())
            assert text  # the view is JSON-ready
            for e in redact(step.events, viewer):
                if isinstance(e, CardDealt | CardDrawn) and e.seat != viewer:
                    assert e.card is None
                if isinstance(e, CardDrawn) and e.seat != viewer:
                    assert e.total is None


@given(games)
def test_tiebreaks_are_played_by_the_players_tied_for_first_until_one_wins(game: Game) -> None:
    for step in game.steps:
        m = step.after
        for e in step.events:
            if isinstance(e, RoundStarted) and e.tiebreak:
                assert m.played == game.rounds
                best = max(m.points[s] for s in m.active)
                tied = {s for s in m.active if m.points[s] == best}
                assert set(e.order) == tied and len(tied) > 1
    m = game.final
    if m.end_reason == "tiebreak":
        assert m.tiebreaks > 0 and m.history[-1].tiebreak
        best = max(m.points[s] for s in m.active)
        assert [s for s in m.active if m.points[s] == best] == [m.winner]
