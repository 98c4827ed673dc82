"""Illegal actions raise IllegalAction with a stable code and change nothing."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from app.cards import Card
from app.rules.engine import kinds_of
from app.rules.oczko import Action, IllegalAction, Match, OczkoOptions

C = Card.parse


def dealt(players: int = 3, cards: str = "2s 3s 4s 5s 6s 7s", rounds: int = 5) -> Match:
    m, _ = Match.new(players, OczkoOptions(rounds=rounds))
    for t in cards.split():
        m, _ = m.deal(C(t))
    return m


def assert_illegal(m: Match, code: str, op: Callable[[Match], object]) -> IllegalAction:
    snapshot = copy.deepcopy(m)
    with pytest.raises(IllegalAction) as info:
        op(m)
    assert info.value.code == code
    assert m == snapshot  # nothing changed
    assert info.value.to_json()["error"] == code
    return info.value


def test_draw_out_of_turn() -> None:
    assert_illegal(dealt(), "not_your_turn", lambda m: m.draw(1, C("9h")))


def test_hold_out_of_turn() -> None:
    assert_illegal(dealt(), "not_your_turn", lambda m: m.hold(2))


def test_timeout_out_of_turn() -> None:
    assert_illegal(dealt(), "not_your_turn", lambda m: m.timeout(1))


def test_draw_after_hold() -> None:
    m, _ = dealt().hold(0)
    err = assert_illegal(m, "already_decided", lambda m: m.draw(0, C("9h")))
    assert err.details["status"] == "held"


def test_hold_after_bust() -> None:
    m = dealt(cards="Ts 2s 3s 9s 4s 5s")
    m, _ = m.draw(0, C("9h"))
    assert_illegal(m, "already_decided", lambda m: m.hold(0))


@pytest.mark.parametrize("seat", [-1, 3, 7, "0", None, True, 1.0])
def test_unknown_seat(seat: object) -> None:
    assert_illegal(dealt(), "unknown_seat", lambda m: m.draw(seat, C("9h")))  # type: ignore[arg-type]
    assert_illegal(dealt(), "unknown_seat", lambda m: m.disconnect(seat))  # type: ignore[arg-type]


def test_anything_after_the_match_ended() -> None:
    m = dealt(players=2, cards="2s 3s 4s 5s")
    m, _ = m.disconnect(1)
    assert m.over
    for op in (
        lambda m: m.draw(0, C("9h")),
        lambda m: m.hold(0),
        lambda m: m.timeout(0),
        lambda m: m.disconnect(0),
        lambda m: m.deal(C("9h")),
        lambda m: m.new_deck(),
        lambda m: m.close_deal(),
        lambda m: m.reveal(0, [C("2s"), C("4s")]),
    ):
        assert_illegal(m, "match_over", op)
    assert kinds_of(m.legal_actions(0)) == frozenset()


def test_a_card_dealt_twice() -> None:
    m, _ = Match.new(3)
    m, _ = m.deal(C("As"))
    assert_illegal(m, "duplicate_card", lambda m: m.deal(C("As")))
    m = dealt()
    assert_illegal(m, "duplicate_card", lambda m: m.draw(0, C("5s")))


def test_not_a_card() -> None:
    m, _ = Match.new(3)
    assert_illegal(m, "bad_card", lambda m: m.deal("As"))  # type: ignore[arg-type]


def test_draw_during_the_deal() -> None:
    m, _ = Match.new(3)
    m, _ = m.deal(C("As"))
    assert_illegal(m, "wrong_phase", lambda m: m.draw(0, C("9h")))


def test_deal_during_play() -> None:
    assert_illegal(dealt(), "wrong_phase", lambda m: m.deal(C("9h")))


def test_close_deal_or_reveal_when_every_card_is_known() -> None:
    m = dealt()
    assert_illegal(m, "wrong_phase", lambda m: m.close_deal())
    assert_illegal(m, "wrong_phase", lambda m: m.reveal(0, [C("2s"), C("5s")]))


def test_bust_claim_on_a_known_hand() -> None:
    assert_illegal(dealt(), "false_claim", lambda m: m.bust(0))


def test_disconnect_twice() -> None:
    m, _ = dealt().disconnect(1)
    assert_illegal(m, "player_gone", lambda m: m.disconnect(1))
    assert kinds_of(m.legal_actions(1)) == frozenset()


def test_gone_player_cannot_act() -> None:
    m, _ = dealt().disconnect(0)
    assert_illegal(m, "player_gone", lambda m: m.draw(0, C("9h")))


def test_not_in_a_tiebreak_round() -> None:
    m, _ = Match.new(3, OczkoOptions(rounds=2))
    for _ in range(2):  # seat 0 wins round 1, seat 1 round 2: 19 against 6 and 8
        for t in ["Ts", "2s", "3s", "9s", "4s", "5s"]:
            m, _ = m.deal(C(t))
        while m.to_act is not None:
            m, _ = m.hold(m.to_act)
    assert m.points == (1, 1, 0) and m.round.tiebreak and m.round.order == (0, 1)
    assert_illegal(m, "not_in_round", lambda m: m.hold(2))
    assert kinds_of(m.legal_actions(2)) == {"disconnect"}


def test_action_values_are_validated() -> None:
    m = dealt()
    assert_illegal(m, "bad_action", lambda m: m.apply(Action("fold", 0)))
    assert_illegal(m, "bad_action", lambda m: m.apply(Action("draw", None, (C("9h"),))))
    assert_illegal(m, "bad_action", lambda m: m.apply(Action("draw", 0, ())))
    with pytest.raises(IllegalAction) as info:
        Action.from_json({"action": "draw", "seat": 0, "cards": ["Xx"]})
    assert info.value.code == "bad_card"
    with pytest.raises(IllegalAction):
        Action.from_json(["draw"])


def test_action_values_round_trip_and_apply() -> None:
    m = dealt()
    a = Action("draw", 0, (C("9h"),))
    assert Action.from_json(a.to_json()) == a
    assert m.apply(a) == m.draw(0, C("9h"))
    assert Action.from_json({"action": "deal", "cards": [None]}) == Action("deal", None, (None,))


def test_bad_options_and_player_counts() -> None:
    for players in (0, 1, 8, "3"):
        with pytest.raises(ValueError):
            Match.new(players)  # type: ignore[arg-type]
    for rounds in (0, -1, 100, 2.5, True):
        with pytest.raises(ValueError):
            OczkoOptions(rounds=rounds)  # type: ignore[arg-type]
