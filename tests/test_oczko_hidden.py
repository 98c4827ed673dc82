"""The engine on a phone that sees only its own cards: claims, Persian proofs, the showdown.

A phone engine (``Match.new(..., me=seat)``) changes a status only through actions of the
table's common message stream, so every phone applying the same stream stays in the same
public state; its own cards only restrict what it may claim. The property test plays
whole networked matches: a full-information engine decides, one engine per phone follows
the stream, announcing what its own cards make due, and all must agree.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oczko_net import Net

from app.cards import DECK, Card
from app.rules.engine import kinds_of
from app.rules.oczko import (
    Busted,
    Held,
    IllegalAction,
    Match,
    OczkoOptions,
    Persian21,
    Phase,
    Revealed,
    RoundEnded,
    Status,
)

C = Card.parse


def phone(players: int, me: int, cards: str, rounds: int = 5) -> Match:
    """The phone of seat ``me`` after a deal of ``cards`` (others' cards hidden)."""
    m, _ = Match.new(players, OczkoOptions(rounds=rounds), me=me)
    for t in cards.split():
        m, _ = m.deal(C(t) if m.to_deal == me else None)
    return m


def assert_illegal(m: Match, code: str, op: Callable[[Match], object]) -> None:
    snapshot = copy.deepcopy(m)
    with pytest.raises(IllegalAction) as info:
        op(m)
    assert info.value.code == code
    assert m == snapshot


def ended(events: tuple[Any, ...]) -> RoundEnded:
    return next(e for e in events if isinstance(e, RoundEnded))


# --- the deal: every Persian 21 is proven before anyone draws ---------------------------------


def test_phone_sees_only_its_own_cards_and_waits_for_persian_proofs() -> None:
    m = phone(3, 0, "Ts 2s 3s 9s 4s 5s")
    assert m.phase is Phase.DEAL_CHECK
    assert m.to_act is None and kinds_of(m.legal_actions(0)) == {"disconnect"}
    assert m.round.hand(0).cards == (C("Ts"), C("9s"))
    assert m.round.hand(1).cards == (None, None)
    m, _ = m.close_deal()
    assert m.phase is Phase.PLAY and m.to_act == 0


def test_a_phone_cannot_be_given_others_cards_and_must_know_its_own() -> None:
    m, _ = Match.new(3, me=1)
    assert_illegal(m, "hidden_card", lambda m: m.deal(C("As")))  # seat 0's card
    m, _ = m.deal(None)
    assert_illegal(m, "hidden_card", lambda m: m.deal(None))  # seat 1 is this phone
    full, _ = Match.new(3)
    assert_illegal(full, "hidden_card", lambda m: m.deal(None))


def test_persian_proof_by_reveal_wins_at_the_close_of_the_deal() -> None:
    m = phone(3, 0, "Ts As 3s 9s Ah 5s")  # seat 1 has the aces; seat 0 cannot see them
    m, ev = m.reveal(1, [C("As"), C("Ah")])
    assert Persian21(1, 1) in ev and m.round.hand(1).status is Status.PERSIAN
    m, ev = m.close_deal()
    assert ended(ev).winner == 1 and ended(ev).reason == "persian"


def test_own_persian_must_be_proven_like_anyone_elses() -> None:
    m = phone(3, 0, "As 2s 3s Ah 4s 5s")
    assert m.claim_due(0) == "persian" and m.round.hand(0).status is Status.PLAYING
    assert_illegal(m, "claim_due", lambda m: m.close_deal())
    m, _ = m.reveal(0, [C("As"), C("Ah")])
    m, _ = m.reveal(2, [C("Ad"), C("Ac")])  # a second Persian 21
    m, ev = m.close_deal()
    assert ended(ev).winner is None  # several Persian 21s tie at the top


def test_a_fake_persian_proof_is_refused() -> None:
    m = phone(3, 0, "As 2s 3s Ah 4s 5s")
    assert_illegal(m, "duplicate_card", lambda m: m.reveal(1, [C("As"), C("Ad")]))
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("Ad")]))
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("Ad"), C("Kd")]))


# --- turns: what the own cards make due is announced, not done silently ------------------------


def test_own_bust_is_announced() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, ev = m.draw(0, C("5h"))  # 24
    assert not any(isinstance(e, Busted) for e in ev)
    assert m.claim_due(0) == "bust" and kinds_of(m.legal_actions(0)) == {
        "bust",
        "timeout",
        "disconnect",
    }
    assert_illegal(m, "cannot_draw", lambda m: m.draw(0, C("2h")))
    assert_illegal(m, "false_claim", lambda m: m.hold(0))
    m, ev = m.bust(0)
    assert ev[0] == Busted(1, 0, 24, "claim") and m.to_act == 1


def test_own_21_is_held_by_announcement() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.draw(0, C("2h"))
    assert m.claim_due(0) == "hold" and kinds_of(m.legal_actions(0)) == {
        "hold",
        "timeout",
        "disconnect",
    }
    assert_illegal(m, "cannot_draw", lambda m: m.draw(0, C("3h")))
    assert_illegal(m, "false_claim", lambda m: m.bust(0))
    m, ev = m.hold(0)
    assert ev[0] == Held(1, 0, 21, "hold")


def test_another_players_draws_are_hidden_and_his_bust_is_a_claim() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, ev = m.draw(1, None)
    assert ev[0].card is None and ev[0].total is None
    assert kinds_of(m.legal_actions(1)) == {"draw", "hold", "timeout", "bust", "disconnect"}
    assert m.claim_due(1) is None  # only seat 1's own phone can tell
    m, ev = m.bust(1)
    assert ev[0] == Busted(1, 1, None, "claim")
    assert m.phase is Phase.SHOWDOWN


# --- the showdown: every hand is opened, claims are checked ----------------------------------


def _showdown(me: int = 0) -> Match:
    """2 players; seat 0 holds 19; seat 1 (2+4) draws two cards and holds."""
    m, _ = phone(2, me, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, C("5h") if me == 1 else None)
    m, _ = m.draw(1, C("Kd") if me == 1 else None)
    m, _ = m.hold(1)
    assert m.phase is Phase.SHOWDOWN
    return m


def test_showdown_waits_for_every_hand_own_included() -> None:
    for me in (0, 1):
        m = _showdown(me)
        assert m.to_reveal == (0, 1)
        m, ev = m.reveal(0, [C("Ts"), C("9s")])
        assert isinstance(ev[0], Revealed) and m.to_reveal == (1,)
        m, ev = m.reveal(1, [C("2s"), C("4s"), C("5h"), C("Kd")])  # 15
        assert ended(ev).winner == 0 and m.points == (1, 0)


def test_opening_a_hand_twice_is_a_no_op() -> None:
    m = _showdown()
    m, _ = m.reveal(0, [C("Ts"), C("9s")])
    same, ev = m.reveal(0, [C("Ts"), C("9s")])
    assert same == m and ev == ()
    assert_illegal(m, "false_claim", lambda m: m.reveal(0, [C("Ts"), C("8s")]))


def test_held_over_21_is_a_false_claim() -> None:
    m = _showdown()
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("2h"), C("4h"), C("8d"), C("9d")]))


def test_a_hand_that_went_on_drawing_at_21_is_inconsistent() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, None)
    m, _ = m.bust(1)
    # A + 10 is 21 at the deal: no third card can follow.
    assert_illegal(m, "inconsistent_hand", lambda m: m.reveal(1, [C("Ad"), C("Td"), C("2h")]))


def test_a_bust_claim_at_21_or_less_is_false() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, None)
    m, _ = m.bust(1)
    m, _ = m.reveal(0, [C("Ts"), C("9s")])
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("2h"), C("4h"), C("Td")]))
    m, ev = m.reveal(1, [C("9h"), C("8h"), C("5h")])  # 22: the claim was true
    assert ended(ev).winner == 0


def test_a_concealed_persian_is_inconsistent() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.bust(1)
    assert_illegal(m, "inconsistent_hand", lambda m: m.reveal(1, [C("As"), C("Ah")]))


def test_an_opened_card_already_out_of_the_deck_is_refused() -> None:
    m = _showdown()
    assert_illegal(m, "duplicate_card", lambda m: m.reveal(1, [C("Ts"), C("4d"), C("2h"), C("3h")]))


def test_a_timeout_over_21_counts_as_bust_at_the_showdown() -> None:
    m, _ = phone(2, 1, "Ts 2s 9s 4s").close_deal()  # the phone of seat 1
    m, _ = m.hold(0)
    m, _ = m.draw(1, C("Kd"))
    m, _ = m.draw(1, C("Td"))  # 2 + 4 + 4 + 10 = 20
    m, _ = m.draw(1, C("9d"))  # 29 ... and the table's timer fires before the claim
    m, ev = m.timeout(1)
    assert ev[0] == Held(1, 1, 29, "timeout")
    m, _ = m.reveal(0, [C("Ts"), C("9s")])
    m, ev = m.reveal(1, [C("2s"), C("4s"), C("Kd"), C("Td"), C("9d")])
    assert m.history[-1].hands[1].status is Status.BUST
    assert ended(ev).winner == 0


def test_a_dropped_bust_hand_need_not_be_opened_but_a_held_one_must() -> None:
    m, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    m, _ = m.disconnect(1)  # held before leaving: his result stands and must be opened
    m, _ = m.draw(2, None)
    m, _ = m.bust(2)  # a bust claim is checked too
    assert m.phase is Phase.SHOWDOWN and m.to_reveal == (0, 1, 2)
    m2, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m2, _ = m2.hold(0)
    m2, _ = m2.hold(1)
    m2, _ = m2.disconnect(2)  # still playing: bust by disconnect, his cards may be unopenable
    assert m2.phase is Phase.SHOWDOWN and m2.to_reveal == (0, 1)


def test_a_hand_that_cannot_be_opened_is_forfeited_as_bust() -> None:
    m, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    m, _ = m.hold(2)
    m, _ = m.reveal(0, [C("Ts"), C("9s")])
    m, _ = m.reveal(2, [C("3s"), C("5s")])
    m, _ = m.disconnect(1)  # his escrow is lost: the table gives up on it
    m, ev = m.forfeit(1)
    assert ev[0] == Busted(1, 1, None, "unopened")
    assert ended(ev).winner == 0
    assert_illegal(m, "wrong_phase", lambda m: m.forfeit(0))  # only at a showdown


def test_a_dropout_at_the_showdown_does_not_cut_it_short() -> None:
    # Two players: the other leaves while the hands are being opened. His held 19 still
    # counts for the round; then he is gone and this phone's player wins the match.
    m, _ = phone(2, 0, "8s Ts 9s 9h", rounds=3).close_deal()  # seat 0: 17, seat 1: 19
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    m, _ = m.reveal(0, [C("8s"), C("9s")])
    m, _ = m.disconnect(1)
    assert not m.over and m.phase is Phase.SHOWDOWN
    m, ev = m.reveal(1, [C("Ts"), C("9h")])
    assert ended(ev).winner == 1 and m.points == (0, 1)
    assert m.over and m.winner == 0 and m.end_reason == "last_player"


# --- the whole match, networked --------------------------------------------------------------


@given(
    st.integers(0, 2**32 - 1).map(random.Random),
    st.integers(2, 6),
    st.integers(1, 5),
    st.sampled_from([0.0, 0.02]),
)
def test_phones_seeing_only_their_own_cards_agree_with_the_full_engine(
    rng: random.Random, players: int, rounds: int, p_drop: float
) -> None:
    net = Net(players, rounds)
    number, deck = 0, []
    for _ in range(20_000):
        h = net.host
        if h.over:
            break
        if h.round.number != number:
            number, deck = h.round.number, rng.sample(DECK, 52)
        if rng.random() < p_drop and len(h.active) > 1:
            seat = rng.choice(h.active)
            net.host, _ = h.disconnect(seat)
            del net.phones[seat]
            net.send("disconnect", lambda _, seat=seat: (seat,))
        else:
            net.play(deck, rng, ("hold", "timeout"))
        net.settle()
        net.check()
    assert net.host.over
