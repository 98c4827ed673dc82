"""The engine on a phone that sees only its own cards: claims, Persian proofs, the showdown.

The property test plays a whole networked match: a full-information "host" engine decides,
and one engine per phone follows it seeing only its own cards, announcing what it derives
from them (a bust, an automatic hold at 21, a Persian 21) and revealing its hand at the
showdown. Every phone must agree with the full-information engine all the way.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cards import DECK, Card
from app.rules.oczko import (
    Busted,
    Event,
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
    m, _ = Match.new(players, OczkoOptions(rounds=rounds))
    for t in cards.split():
        m, _ = m.deal(C(t) if m.to_deal == me else None)
    return m


def assert_illegal(m: Match, code: str, op: Callable[[Match], object]) -> None:
    snapshot = copy.deepcopy(m)
    with pytest.raises(IllegalAction) as info:
        op(m)
    assert info.value.code == code
    assert m == snapshot


# --- the deal: Persian 21 must be proven before anyone draws -----------------------------------


def test_hidden_deal_waits_for_persian_proofs() -> None:
    m = phone(3, 0, "Ts 2s 3s 9s 4s 5s")
    assert m.phase is Phase.DEAL_CHECK
    assert m.to_act is None and m.legal_actions(0) == {"disconnect"}
    assert m.round.hand(0).cards == (C("Ts"), C("9s"))
    assert m.round.hand(1).cards == (None, None)
    m, _ = m.close_deal()
    assert m.phase is Phase.PLAY and m.to_act == 0


def test_persian_proof_by_reveal_wins_at_close_of_deal() -> None:
    m = phone(3, 0, "Ts As 3s 9s Ah 5s")  # seat 1 has the aces, seat 0 cannot see them
    m, ev = m.reveal(1, [C("As"), C("Ah")])
    assert Persian21(1, 1) in ev and m.round.hand(1).status is Status.PERSIAN
    m, ev = m.close_deal()
    end = next(e for e in ev if isinstance(e, RoundEnded))
    assert end.winner == 1 and end.reason == "persian"


def test_own_persian_is_known_at_once_but_waits_for_others() -> None:
    m = phone(3, 0, "As 2s 3s Ah 4s 5s")
    assert m.round.hand(0).status is Status.PERSIAN and m.phase is Phase.DEAL_CHECK
    m, _ = m.reveal(2, [C("Ad"), C("Ac")])  # a second Persian 21, proven
    m, ev = m.close_deal()
    assert next(e for e in ev if isinstance(e, RoundEnded)).winner is None  # tie at the top


def test_a_fake_persian_proof_is_refused() -> None:
    m = phone(3, 0, "As 2s 3s Ah 4s 5s")
    assert_illegal(m, "duplicate_card", lambda m: m.reveal(1, [C("As"), C("Ad")]))
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("Ad")]))


# --- turns: announced holds and busts --------------------------------------------------------


def test_hidden_draws_and_a_bust_claim() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, ev = m.draw(1, None)
    assert ev[0].card is None and ev[0].total is None
    assert m.legal_actions(1) == {"draw", "hold", "timeout", "bust", "disconnect"}
    m, ev = m.bust(1)
    assert Busted(1, 1, None, "claim") in ev
    assert m.phase is Phase.SHOWDOWN and m.to_reveal == (1,)
    m, ev = m.reveal(1, [C("9h"), C("8h"), C("5h")])
    assert isinstance(ev[0], Revealed) and ev[0].total == 22
    end = next(e for e in ev if isinstance(e, RoundEnded))
    assert end.winner == 0


def test_showdown_waits_for_every_hidden_held_hand() -> None:
    m, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    m, _ = m.timeout(2)
    assert m.phase is Phase.SHOWDOWN and m.to_reveal == (1, 2)
    m, ev = m.reveal(2, [C("3s"), C("5s")])
    assert m.phase is Phase.SHOWDOWN and m.to_reveal == (1,)
    m, ev = m.reveal(1, [C("2s"), C("4s")])
    assert next(e for e in ev if isinstance(e, RoundEnded)).winner == 0
    assert m.points == (1, 0, 0) and m.phase is Phase.DEAL


def test_reveal_of_a_known_hand_is_a_no_op() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    same, ev = m.reveal(0, [C("Ts"), C("9s")])
    assert same == m and ev == ()
    assert_illegal(m, "false_claim", lambda m: m.reveal(0, [C("Ts"), C("8s")]))


def test_dropped_players_bust_hand_need_not_be_revealed_but_a_held_one_must() -> None:
    m, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.hold(1)
    m, _ = m.disconnect(1)  # held before leaving: his result stands and must be opened
    m, _ = m.draw(2, None)
    m, _ = m.bust(2)  # a bust claim is verified too
    assert m.phase is Phase.SHOWDOWN and m.to_reveal == (1, 2)
    m2, _ = phone(3, 0, "Ts 2s 3s 9s 4s 5s").close_deal()
    m2, _ = m2.hold(0)
    m2, _ = m2.hold(1)
    m2, _ = m2.disconnect(2)  # still playing: bust by disconnect, his cards may be unopenable
    assert m2.phase is Phase.SHOWDOWN and m2.to_reveal == (1,)


# --- the showdown catches false claims -------------------------------------------------------


def _to_showdown() -> Match:
    """Phone of seat 0: seat 1 drew two hidden cards and held."""
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, None)
    m, _ = m.draw(1, None)
    m, _ = m.hold(1)
    assert m.phase is Phase.SHOWDOWN
    return m


def test_held_over_21_is_a_false_claim() -> None:
    m = _to_showdown()
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("2s"), C("4s"), C("8d"), C("9d")]))


def test_a_hand_that_went_on_drawing_at_21_is_inconsistent() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, None)
    m, _ = m.bust(1)
    # A + 10 is 21 at the deal: it holds by itself, so no third card could follow.
    assert_illegal(m, "inconsistent_hand", lambda m: m.reveal(1, [C("Ad"), C("Td"), C("2h")]))


def test_a_consistent_hidden_hand_is_scored() -> None:
    m = _to_showdown()
    m, ev = m.reveal(1, [C("2h"), C("4h"), C("5h"), C("Kd")])  # 6, 11, 15: held at 15
    assert next(e for e in ev if isinstance(e, RoundEnded)).winner == 0


def test_a_bust_claim_at_21_or_less_is_false() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.draw(1, None)
    m, _ = m.bust(1)
    assert_illegal(m, "false_claim", lambda m: m.reveal(1, [C("2h"), C("4h"), C("Td")]))
    m, ev = m.reveal(1, [C("9h"), C("8h"), C("5h")])  # 22: the claim was true
    assert next(e for e in ev if isinstance(e, RoundEnded)).winner == 0


def test_a_concealed_persian_is_inconsistent() -> None:
    m, _ = phone(2, 0, "Ts 2s 9s 4s").close_deal()
    m, _ = m.hold(0)
    m, _ = m.bust(1)
    assert_illegal(m, "inconsistent_hand", lambda m: m.reveal(1, [C("As"), C("Ah")]))


def test_a_revealed_card_already_out_of_the_deck_is_refused() -> None:
    m = _to_showdown()
    assert_illegal(m, "duplicate_card", lambda m: m.reveal(1, [C("Ts"), C("4d"), C("2h"), C("3h")]))


# --- the whole match, networked --------------------------------------------------------------


def _announcements(seat: int, events: tuple[Event, ...]) -> list[tuple[str, int]]:
    """What the phone of ``seat`` tells the others after seeing its own cards."""
    out = []
    for e in events:
        if isinstance(e, Held) and e.seat == seat and e.reason == "21":
            out.append(("hold", seat))
        elif isinstance(e, Busted) and e.seat == seat and e.reason == "over_21":
            out.append(("bust", seat))
    return out


class Net:
    """A host with every card and one engine per phone, each seeing only its own cards."""

    def __init__(self, players: int, rounds: int) -> None:
        opts = OczkoOptions(rounds=rounds)
        self.host, _ = Match.new(players, opts)
        self.phones = {s: Match.new(players, opts)[0] for s in range(players)}

    def to_phones(self, kind: str, args: Callable[[int], tuple[Any, ...]], skip: int = -1) -> None:
        queue: list[tuple[str, int]] = []
        for s in list(self.phones):
            if s != skip:
                self.phones[s], ev = getattr(self.phones[s], kind)(*args(s))
                queue += _announcements(s, ev)
        while queue:
            kind2, seat = queue.pop(0)
            for s in list(self.phones):
                if s != seat:
                    self.phones[s], ev = getattr(self.phones[s], kind2)(seat)
                    queue += _announcements(s, ev)

    def settle(self) -> None:
        """Persian proofs and close of the deal; reveals at the showdown."""
        for s, p in list(self.phones.items()):
            r = p.round
            if r.phase is Phase.DEAL_CHECK and s in r.order and r.hand(s).status is Status.PERSIAN:
                cards = p.round.hand(s).cards
                self.to_phones("reveal", lambda _, s=s, cards=cards: (s, cards), skip=s)
        if any(p.phase is Phase.DEAL_CHECK for p in self.phones.values()):
            self.to_phones("close_deal", lambda _: ())
        for s, p in list(self.phones.items()):
            while not p.over and p.round.phase is Phase.SHOWDOWN:
                result = self.host.history[p.round.number - 1]
                seat = p.round.to_reveal[0]
                hand = next(h for h in result.hands if h.seat == seat)
                p, _ = p.reveal(seat, hand.cards)
            self.phones[s] = p

    def check(self) -> None:
        h = self.host
        for s, p in self.phones.items():
            assert (p.points, p.over, p.winner, p.gone) == (h.points, h.over, h.winner, h.gone)
            assert p.history == () or p.history[-1].winner == h.history[-1].winner
            assert p.round.number == h.round.number and p.to_act == h.to_act
            assert p.phase == h.phase or (h.over and p.over)
            for mine, full in zip(p.round.hands, h.round.hands, strict=True):
                assert mine.status == full.status and len(mine.cards) == len(full.cards)
                if mine.seat == s:
                    assert mine.cards == full.cards
                elif h.round.phase is not Phase.OVER:
                    assert all(c is None for c in mine.cards) or mine.status is Status.PERSIAN


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
            net.to_phones("disconnect", lambda _, seat=seat: (seat,))
        elif h.phase is Phase.DEAL:
            card, to = deck.pop(), h.to_deal
            net.host, _ = h.deal(card)
            net.to_phones("deal", lambda s, card=card, to=to: (card if s == to else None,))
        else:
            seat = h.to_act
            total = h.round.hand(seat).total
            if total < 15 or (total < 19 and rng.random() < 0.3):
                card = deck.pop()
                net.host, _ = h.draw(seat, card)
                args = lambda s, seat=seat, card=card: (seat, card if s == seat else None)  # noqa: E731
                net.to_phones("draw", args)
            else:
                kind = rng.choice(["hold", "timeout"])
                net.host, _ = getattr(h, kind)(seat)
                net.to_phones(kind, lambda _, seat=seat: (seat,))
        net.settle()
        net.check()
    assert net.host.over
