"""Both rules engines driven only through the one contract (app/rules/engine.py).

One driver plays blackjack and Oczko alike: it asks ``legal_actions()``, builds the
chosen action with ``legal.action(value)``, applies it with ``apply`` and checks, at
every step, that

- every legal action applies and a random legal game reaches its end;
- an action kind a player is not offered raises IllegalAction with one of the game's
  stable codes and changes nothing;
- ``view_for(state, player)`` never shows a player a card he may not see: for every
  player at every step, changing the cards hidden from him changes nothing in his view
  (non-interference), while his own cards are in it;
- every event round-trips through ``to_json`` and ``decode_event``.

A game fixture only sets the table up and plays the world outside the engine: the
Oczko deck (the engine never shuffles; the card of a deal or a draw is an input) and,
for the view check, which cards are hidden from whom.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cards import DECK, Card
from app.rules import blackjack
from app.rules.blackjack import Round
from app.rules.blackjack import events as blackjack_events
from app.rules.blackjack.deal import ShoeRound
from app.rules.blackjack.view import hole_hidden
from app.rules.blackjack.view import view_for as bj_view_for
from app.rules.engine import Engine, Event, LegalAction, decode_event
from app.rules.errors import IllegalAction
from app.rules.oczko import Match, OczkoOptions, Phase, Status
from app.rules.oczko import actions as oczko_actions
from app.rules.oczko import events as oczko_events
from app.rules.oczko.views import view_for as oczko_view_for
from app.rules.shoe import Shoe
from app.rules.table_rules import PRESETS, TableRules

MAX_STEPS = 4000


class World:
    """What lies outside an engine: values an action carries that the engine does not
    choose (a blackjack amount within the offered range, an Oczko card off the deck)."""

    def value(self, legal: LegalAction[Any, Any], rng: random.Random) -> Any:
        return None

    def applied(self, legal: LegalAction[Any, Any], events: Sequence[Event]) -> None:
        """The action of ``legal`` was accepted with the value given."""


class Chips(World):
    def value(self, legal: LegalAction[Any, Any], rng: random.Random) -> Any:
        hi = legal.max_amount
        if hi is None:
            return None
        lo = legal.min_amount if legal.min_amount is not None else min(Fraction(1), hi)
        return rng.choice([lo, hi, max(lo, Fraction(int((lo + hi) / 2)))])


class BlackjackTable(Chips):
    """Blackjack's table: chips within the offered range, and the card the round waits
    for (its table action ``card``) from a shuffled shoe outside the engine."""

    def __init__(self, shoe: Shoe) -> None:
        self.shoe = shoe

    def value(self, legal: LegalAction[Any, Any], rng: random.Random) -> Any:
        if legal.kind is blackjack.ActionKind.CARD:
            return self.shoe.draw_with_reshuffle()[0]
        return super().value(legal, rng)

    def applied(self, legal: LegalAction[Any, Any], events: Sequence[Event]) -> None:
        if legal.kind is blackjack.ActionKind.CARD:
            self.shoe = self.shoe.draw_with_reshuffle()[1]


class Dealer(World):
    """The Oczko table's dealer: one shuffled deck, a fresh one after ``new_deck``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.shuffle()

    def shuffle(self) -> None:
        self.deck = list(DECK)
        self.rng.shuffle(self.deck)

    def value(self, legal: LegalAction[Any, Any], rng: random.Random) -> Any:
        return self.deck[-1] if legal.kind in oczko_actions.CARD_ACTIONS else None

    def applied(self, legal: LegalAction[Any, Any], events: Sequence[Event]) -> None:
        if legal.kind in oczko_actions.CARD_ACTIONS:
            self.deck.pop()
        if any(isinstance(e, oczko_events.DeckReplaced) for e in events):
            self.shuffle()


@dataclass(frozen=True)
class Game:
    name: str
    start: Callable[[random.Random], tuple[Any, World]]
    players: Callable[[Any], Sequence[Any]]
    kinds: Sequence[Any]
    error_codes: frozenset[str]
    registry: dict[str, type[Event]]
    #: the player's view of the state after ``events`` as JSON
    view_json: Callable[[Any, Any, tuple[Event, ...]], Any]
    #: the same state and events with every card hidden from ``player`` changed
    #: (None when nothing is hidden from him now)
    perturb: Callable[[Any, Any, tuple[Event, ...], random.Random], Any]
    #: the cards the player holds (they must be in his view)
    own_cards: Callable[[Any, Any], Sequence[Card | None]]
    view_own_cards: Callable[[Any, Any], Sequence[Card | None]]
    #: everything in the state, deeply copied (to show that a refusal changed nothing)
    snapshot: Callable[[Any], Any] = copy.deepcopy


# --- blackjack ------------------------------------------------------------------------------

BJ_PLAYERS = ("ann", "bob", "cy")


def bj_start(rng: random.Random) -> tuple[Round, World]:
    rules = rng.choice(
        [
            TableRules(),
            PRESETS["european"],
            TableRules(late_surrender=True, dealer_busts_bet=True, betting_behind=True),
        ]
    )
    rolls = {p: rng.choice([30, 200, 1000]) for p in BJ_PLAYERS}
    shoe = Shoe.shuffled(rules.decks, rules.penetration, rng)
    return Round.new(rules, rolls), BlackjackTable(shoe)


def bj_perturb(r: Round, player: str, events: tuple[Event, ...], rng: random.Random) -> Any:
    if not hole_hidden(r):
        return None
    other = rng.choice([c for c in DECK if c != r.dealer[1]])
    swapped = replace(
        r,
        dealer=(r.dealer[0], other, *r.dealer[2:]),
        events=tuple(
            replace(e, card=other)
            if isinstance(e, blackjack_events.DealerCard) and e.face_down
            else e
            for e in r.events
        ),
    )
    return swapped, events


def bj_view_json(r: Round, player: str, events: tuple[Event, ...]) -> Any:
    v = bj_view_for(r, player)
    return v.to_json(), [e.to_json() for e in v.events]


BLACKJACK = Game(
    "blackjack",
    bj_start,
    lambda r: BJ_PLAYERS,
    list(blackjack.ActionKind),
    frozenset(blackjack.ERROR_CODES),
    blackjack_events.EVENTS,
    bj_view_json,
    bj_perturb,
    lambda r, p: [c for h in r.hands if h.owner == p for c in h.cards],
    lambda r, p: [c for h in bj_view_for(r, p).hands if h.owner == p for c in h.cards],
    # a Round holds a read-only mapping (no deepcopy): its fields are immutable values
    lambda r: (
        *((f, getattr(r, f)) for f in Round.__dataclass_fields__ if f != "bankrolls"),
        dict(r.bankrolls or {}),
    ),
)


# --- Oczko ----------------------------------------------------------------------------------


def oczko_start(rng: random.Random) -> tuple[Match, World]:
    m, _ = Match.new(rng.randint(2, 5), OczkoOptions(rounds=rng.randint(1, 4)))
    return m, Dealer(rng)


def oczko_hidden_from(m: Match, seat: int) -> list[int]:
    """Seats whose cards in the round in play ``seat`` may not see."""
    r = m.round
    if r is None or r.phase in (Phase.SHOWDOWN, Phase.OVER):
        return []
    return [h.seat for h in r.hands if h.seat != seat and h.status is not Status.PERSIAN]


def oczko_perturb(m: Match, seat: int, events: tuple[Event, ...], rng: random.Random) -> Any:
    r = m.round
    assert r is not None
    hidden = oczko_hidden_from(m, seat)

    def other() -> Card:
        return rng.choice(DECK)

    hands = tuple(
        replace(h, cards=tuple(other() for _ in h.cards)) if h.seat in hidden else h
        for h in r.hands
    )
    evs = []
    for e in events:
        if isinstance(e, oczko_events.CardDealt | oczko_events.CardDrawn) and e.seat != seat:
            e = replace(e, card=other())
        hides_total = oczko_events.CardDrawn | oczko_events.Held | oczko_events.Busted
        if isinstance(e, hides_total) and e.seat != seat:
            e = replace(e, total=rng.randint(4, 30))
        evs.append(e)
    return replace(m, round=replace(r, hands=hands)), tuple(evs)


def oczko_view_json(m: Match, seat: int, events: tuple[Event, ...]) -> Any:
    return oczko_view_for(m, seat, events).to_json()


def oczko_own(m: Match, seat: int) -> Sequence[Card | None]:
    r = m.round
    return r.hand(seat).cards if r is not None and seat in r.order else ()


def oczko_view_own(m: Match, seat: int) -> Sequence[Card | None]:
    return oczko_view_for(m, seat).seats[seat].cards


OCZKO = Game(
    "oczko",
    oczko_start,
    lambda m: range(m.players),
    list(oczko_actions.ActionKind),
    frozenset(oczko_actions.ERROR_CODES),
    oczko_events.EVENTS,
    oczko_view_json,
    oczko_perturb,
    oczko_own,
    oczko_view_own,
)

GAMES = [BLACKJACK, OCZKO]


# --- the driver -----------------------------------------------------------------------------


def check_events(game: Game, events: Sequence[Event]) -> None:
    for e in events:
        assert isinstance(e, Event)
        assert decode_event(e.to_json(), game.registry) == e, e


def check_illegal(game: Game, state: Engine[Any, Any], world: World, rng: random.Random) -> None:
    """Every kind a player is not offered is refused with a listed code, changing nothing."""
    offered = {(a.kind, a.player) for a in state.legal_actions()}
    # a table action (offered to nobody in particular) may be asked for by anyone at the
    # table: blackjack's deal is accepted from any player, as the screen's "Deal" button
    table = {a.kind for a in state.legal_actions() if a.player is None}
    before = game.snapshot(state)
    legal_before = state.legal_actions()
    for who in [None, *game.players(state)]:
        for kind in game.kinds:
            if (kind, who) in offered or kind in table:
                continue
            probe: LegalAction[Any, Any] = LegalAction(kind, who, 1)
            value: Any = None
            takes_card = (
                kind in (*oczko_actions.CARD_ACTIONS, oczko_actions.ActionKind.REVEAL)
                if isinstance(kind, oczko_actions.ActionKind)
                else kind is blackjack.ActionKind.CARD
            )
            if takes_card:
                value = rng.choice(DECK)
            elif isinstance(kind, blackjack.ActionKind):
                value = Fraction(10)
            with pytest.raises(IllegalAction) as info:
                state.apply(probe.action(value))
                pytest.fail(f"{game.name}: {kind} by {who!r} applied but was not offered")
            assert info.value.code in game.error_codes, (kind, who, info.value.code)
            assert game.snapshot(state) == before
            assert state.legal_actions() == legal_before


def check_views(game: Game, state: Any, events: tuple[Event, ...], rng: random.Random) -> None:
    for p in game.players(state):
        shown = game.view_json(state, p, events)
        assert list(game.view_own_cards(state, p)) == list(game.own_cards(state, p))
        other = game.perturb(state, p, events, rng)
        if other is not None:
            assert game.view_json(other[0], p, other[1]) == shown, p


def choose(legal: Sequence[LegalAction[Any, Any]], rng: random.Random) -> Any:
    """A kind first, then one of its actions: every seat may always leave an Oczko table,
    so a uniform pick would mostly play dropouts and hardly ever a draw."""
    kind = rng.choice(sorted({a.kind for a in legal}))
    return rng.choice([a for a in legal if a.kind == kind])


def play(game: Game, seed: int, probe_every: int) -> int:
    rng = random.Random(seed)
    state, world = game.start(rng)
    steps = 0
    while not state.over:
        legal = state.legal_actions()
        assert legal, f"{game.name}: not over, but nothing is legal"
        for p in game.players(state):  # the per-player lists are the same actions
            assert state.legal_actions(p) == tuple(a for a in legal if a.player == p)
        if steps % probe_every == 0:
            check_illegal(game, state, world, rng)
        pick = choose(legal, rng)
        state, events = state.apply(pick.action(world.value(pick, rng)))
        world.applied(pick, events)
        check_events(game, events)
        check_views(game, state, events, rng)
        steps += 1
        assert steps < MAX_STEPS, f"{game.name} did not end in {MAX_STEPS} steps"
    assert state.legal_actions() == ()
    return steps


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_reaches_the_end(game: Game, seed: int) -> None:
    play(game, seed, probe_every=3)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_legal_action_applies(game: Game) -> None:
    """From many states, each of the offered actions (not just the one picked) applies."""
    rng = random.Random(7)
    for _ in range(5):
        state, world = game.start(rng)
        while not state.over:
            legal = state.legal_actions()
            for a in legal:
                after, events = state.apply(a.action(world.value(a, rng)))
                assert after != state or events, a
            pick = choose(legal, rng)
            state, events = state.apply(pick.action(world.value(pick, rng)))
            world.applied(pick, events)


def test_the_hole_card_is_hidden_from_everyone_until_turned() -> None:
    """A scripted peek round: the view shows the up card only; the perturbation check
    above would catch a leak, this pins what the players see."""
    t = ShoeRound.new(TableRules(), Shoe.scripted("9s Td 7h Ks"), {"ann": 100})
    t, _ = t.apply(t.legal_actions("ann")[0].action(10))
    r = t.apply(blackjack.Action.deal())[0].round
    for who in ("ann", None):
        v = bj_view_for(r, who)
        assert v.dealer == (Card.parse("Td"), None) and v.dealer_total == 10
        assert [e.to_json()["card"] for e in v.events if e.kind == "dealer_card"] == ["Td", None]
    r, _ = r.apply(blackjack.Action.make("stand", "ann"))
    assert bj_view_for(r, "ann").dealer[:2] == (Card.parse("Td"), Card.parse("Ks"))


def test_both_engines_are_engines() -> None:
    """The static contract (mypy checks these assignments)."""
    bj: Engine[blackjack.Action, Event] = Round.new(TableRules())
    dealt: Engine[blackjack.Action, Event] = ShoeRound.new(TableRules(), Shoe.scripted("As"))
    oc: Engine[oczko_actions.Action, Event] = Match.new(2)[0]
    assert not bj.over and not dealt.over and not oc.over


def test_blackjack_cards_come_in_as_table_actions() -> None:
    """The round holds no shoe: where it needs a card it waits (phase ``dealing``), its
    one legal action is the table's ``card`` for the box and hand (box None: the dealer)
    that takes it, nothing else is accepted, and the card goes where the round said."""
    r = Round.new(TableRules(), {"ann": 100, "bob": 100})
    r = r.act("bet", "ann", 1, 10).act("bet", "bob", 3, 10).act("deal")
    order = ["2s", "3s", "4s", "5s", "6s", "7s"]
    wanted = []
    for text in order:
        (legal,) = r.legal_actions()
        assert r.phase is blackjack.Phase.DEALING and legal.player is None
        assert legal.kind is blackjack.ActionKind.CARD and r.waiting_for() == ()
        assert r.legal_actions("ann") == ()
        for refused in (blackjack.Action.make("stand", "ann"), blackjack.Action.deal()):
            with pytest.raises(IllegalAction) as info:
                r.apply(refused)
            assert info.value.code == "wrong_phase"
        with pytest.raises(IllegalAction) as info:
            r.apply(blackjack.Action(blackjack.ActionKind.CARD))
        assert info.value.code == "bad_card"
        wanted.append((legal.box, legal.hand, r.need.face_down))  # type: ignore[union-attr]
        r, events = r.apply(legal.action(text))
        assert events[0].to_json()["card"] == text
    # box 1, box 3, the dealer's up card, box 1, box 3, the hole card face down
    assert wanted == [
        (1, 1, False), (3, 1, False), (None, None, False),
        (1, 1, False), (3, 1, False), (None, None, True),
    ]  # fmt: skip
    assert r.phase is blackjack.Phase.PLAY and r.need is None
    r = r.act("hit", "ann")  # the hit waits for its card, to box 1
    assert [a.to_json() for a in r.legal_actions()] == [{"action": "card", "box": 1, "hand": 1}]
    with pytest.raises(IllegalAction) as info:
        Round.new(TableRules()).apply(blackjack.Action.deal_card("As"))
    assert info.value.code == "wrong_phase"


def test_oczko_codes_are_listed() -> None:
    import re
    from pathlib import Path

    src = "".join(
        f.read_text(encoding="utf-8")
        for f in Path(oczko_actions.__file__).parent.glob("*.py")
        if f.name != "scenario.py"
    )
    raised = set(re.findall(r'IllegalAction\(\s*"([a-z_]+)"', src))
    assert raised == set(oczko_actions.ERROR_CODES)


def test_every_refusal_code_has_a_translated_message() -> None:
    from app.i18n.codes import MESSAGES

    for codes in (blackjack.ERROR_CODES, oczko_actions.ERROR_CODES):
        assert set(codes) <= set(MESSAGES)
