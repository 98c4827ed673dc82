"""The shoe: N decks, cut card, injected randomness, scripted orders."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.cards import parse_cards
from app.cards import shoe as full_shoe
from app.rules.blackjack.deal import ShoeRound
from app.rules.shoe import Shoe, ShoeEmpty, ShoeError


@given(st.integers(1, 8), st.fractions(min_value=Fraction(1, 10), max_value=1), st.integers())
def test_shuffled_shoe_is_the_full_shoe(decks: int, pen: Fraction, seed: int) -> None:
    s = Shoe.shuffled(decks, pen, random.Random(seed))
    assert Counter(s.cards) == Counter(full_shoe(decks))
    assert s.cut == int(52 * decks * pen) and not s.due


def test_same_seed_same_order_and_draw_is_pure() -> None:
    a = Shoe.shuffled(6, Fraction(3, 4), random.Random(9))
    b = Shoe.shuffled(6, Fraction(3, 4), random.Random(9))
    assert a.cards == b.cards
    card, a2 = a.draw()
    assert card == a.cards[0] and a.position == 0 and a2.position == 1


def test_cut_card_and_next_round() -> None:
    s = Shoe.shuffled(1, Fraction(1, 2), random.Random(1))
    for _ in range(26):
        _, s = s.draw()
    assert s.due
    fresh, reshuffled = s.for_next_round()
    assert reshuffled and fresh.position == 0 and fresh.shuffles == 2
    _, reshuffled = Shoe.shuffled(1, Fraction(1, 2), random.Random(1)).for_next_round()
    assert not reshuffled


def test_scripted() -> None:
    s = Shoe.scripted("As Kd")
    assert [str(c) for c in s.upcoming()] == ["As", "Kd"]
    with pytest.raises(ShoeError, match="too many"):
        Shoe.scripted("As As", decks=1)
    _, s = s.draw()
    _, s = s.draw()
    with pytest.raises(ShoeEmpty):
        s.draw()


def test_stacked() -> None:
    s = Shoe.stacked("As Ah", 1, Fraction(3, 4), random.Random(2))
    assert s.cards[:2] == parse_cards("As Ah")
    assert Counter(s.cards) == Counter(full_shoe(1))


def test_system_random_in_play() -> None:
    import secrets

    s = Shoe.shuffled(6, Fraction(3, 4), secrets.SystemRandom())
    assert Counter(s.cards) == Counter(full_shoe(6)) and s.cut == 234


def test_the_seed_is_state_so_a_reshuffle_is_the_same_every_time() -> None:
    s = Shoe.shuffled(1, Fraction(1, 2), random.Random(4))
    for _ in range(30):
        _, s = s.draw()
    a, _ = s.for_next_round()
    b, _ = s.for_next_round()
    assert a.cards == b.cards and a == b  # the old mutable generator gave two orders
    assert a.cards != s.cards and a.shuffles == 2
    other = Shoe.shuffled(1, Fraction(1, 2), random.Random(5))
    assert (
        other.seed != s.seed
        and other.cards != Shoe.shuffled(1, Fraction(1, 2), random.Random(4)).cards
    )


def test_replaying_a_round_through_a_mid_round_reshuffle_cannot_diverge() -> None:
    from app.rules.blackjack import Action
    from app.rules.table_rules import TableRules

    rules = TableRules(decks=1, penetration=Fraction(1))
    shoe = Shoe.shuffled(1, Fraction(1), random.Random(11))
    for _ in range(50):  # earlier rounds used 50 cards: the deal empties the shoe
        _, shoe = shoe.draw()
    betting = ShoeRound.new(rules, shoe, {"ann": 100}).apply(Action.bet("ann", 1, 10))[0]
    first = betting.apply(Action.deal())[0]
    again = betting.apply(Action.deal())[0]
    assert any(e.to_json().get("reason") == "shoe_empty" for e in first.events)
    assert first.round.to_json(reveal=True) == again.round.to_json(reveal=True)
    assert first.shoe == again.shoe


def test_the_shoe_round_is_the_card_actions_one_by_one() -> None:
    """:class:`ShoeRound` (one working copy per action, ``Round.apply_with``) ends where
    the raw round does when each card is given as its own ``card`` action, in the order
    the round asks for them: the same state, events and shoe, refusals included."""
    from app.rules.blackjack import Action, Round
    from app.rules.table_rules import TableRules

    rng = random.Random(11)
    for n in range(30):
        rules = TableRules.preset(rng.choice(["classic", "european"])).replace(decks=1)
        shoe = Shoe.shuffled(1, Fraction(1), random.Random(n))
        t = ShoeRound.new(rules, shoe, {"ann": 500, "bob": 500})
        r, s = Round.new(rules, {"ann": 500, "bob": 500}), t.shoe
        for p, box in (("ann", 1), ("bob", 2)):
            t, r = t.act("bet", p, box, 10), r.act("bet", p, box, 10)
        action = Action.deal()
        while True:
            t = t.apply(action)[0]
            r = r.apply(action)[0]
            while r.need is not None:
                card, s, again = s.draw_with_reshuffle()
                r = r.apply(Action.deal_card(card, again))[0]
            assert (t.round, t.shoe) == (r, s)
            if r.settled:
                break
            pick = rng.choice(r.legal_actions())
            action = pick.action(pick.max_amount)  # (an insurance takes an amount)
