"""The casino shoe over SRA (app/table/sra_shoe.py): 1-8 decks shuffled across 2-7
phones in memory, every card opened to everybody, the cut card from the joint seed,
the next shoe shuffled in the background, and the audit against the opened cards."""

from __future__ import annotations

from collections import Counter

import pytest
from shoe_net import ShoeStar

from app.protocol.encoding import DECK_SIZE
from app.table.shoe_dealer import ShoeDealer
from app.table.sra_shoe import SraShoe, sra_shoe_factory


def deal_out(star: ShoeStar, shoe: int, start: int, end: int, batch: int = 5) -> None:
    """Open positions ``start..end-1`` a few at a time, as casino rounds would."""
    for a in range(start, end, batch):
        star.open(shoe, range(a, min(end, a + batch)))
        star.run()


def agreed(star: ShoeStar, shoe: int, positions: range) -> list[int]:
    """The cards every phone opened (all equal, none missing)."""
    seen = star.cards(shoe, positions)
    assert all(cards == seen[0] for cards in seen), "the phones disagree"
    assert None not in seen[0]
    return [c for c in seen[0] if c is not None]


def audit(star: ShoeStar, shoe: int) -> None:
    star.finish(shoe)
    star.run()
    for p in star.here():
        v = p.verdict(shoe)
        assert v is not None and v.ok and v.cheaters == ()


def test_sra_shoe_is_a_shoe_dealer() -> None:
    shoe: ShoeDealer = sra_shoe_factory()(1, 3)
    assert isinstance(shoe, SraShoe) and shoe.seat == 1 and not shoe.ready


@pytest.mark.parametrize("n", [2, 3, 5, 7])
def test_a_whole_one_deck_shoe_is_every_card_once_on_every_phone(n: int) -> None:
    star = ShoeStar(n, seed=n)
    star.setup()
    assert len({p.fingerprint for p in star.phones}) == 1
    star.start(1, decks=1)
    star.run()
    assert all(p.shuffled(1) and p.progress(1) == 1.0 for p in star.phones)
    assert all(p.waiting_for(1) == set() for p in star.phones)
    deal_out(star, 1, 0, DECK_SIZE, batch=n + 1)
    cards = agreed(star, 1, range(DECK_SIZE))
    assert sorted(cards) == list(range(DECK_SIZE))
    audit(star, 1)
    assert not any(star.errors.values())


def test_several_hundred_cards_of_an_eight_deck_shoe_agree() -> None:
    star = ShoeStar(3, seed=11)
    star.setup()
    star.start(1, decks=8)
    star.run()
    rnd = star.phones[0]._seat.round(1)
    assert rnd.size == 8 * DECK_SIZE and len(rnd.final) == 20  # locked: the margin only
    deal_out(star, 1, 0, 300, batch=9)
    cards = agreed(star, 1, range(300))
    assert max(Counter(cards).values()) <= 8  # no card more often than there are decks
    assert len(rnd.final) <= 300 + 20 + 9  # locked: what was opened plus the margin
    audit(star, 1)
    deck = star.phones[1]._seat.verdict(1).deck
    assert deck is not None and [c % DECK_SIZE for c in deck[:300]] == cards


def test_the_cut_card_comes_from_the_joint_seed_and_the_shoe() -> None:
    star = ShoeStar(3, seed=4)
    star.setup()
    cuts = {p.cut(5, 100, 300) for p in star.phones}
    assert len(cuts) == 1 and 100 <= cuts.pop() <= 300
    spread = {star.phones[0].cut(shoe, 0, 9) for shoe in range(1, 200)}
    assert spread == set(range(10))  # every position of the range comes up
    other = ShoeStar(3, seed=5)
    other.setup()
    assert [other.phones[0].cut(s, 0, 10**6) for s in (1, 2)] != [
        star.phones[0].cut(s, 0, 10**6) for s in (1, 2)
    ]


def test_the_next_shoe_is_shuffled_while_the_current_one_is_opened() -> None:
    star = ShoeStar(4, seed=2)
    star.setup()
    star.start(1, decks=2)
    star.run()
    deal_out(star, 1, 0, 30)
    star.start(2, decks=2)  # the next shoe, in the background
    star.open(1, range(30, 36))  # a casino round goes on meanwhile
    star.run(until=lambda: all(p.card(1, 35) is not None for p in star.phones))
    assert not any(p.shuffled(2) for p in star.phones)  # the round's cards came first
    star.run()  # while the players think, the next shoe is shuffled
    assert all(p.shuffled(2) for p in star.phones)
    deal_out(star, 1, 36, 80)
    cards = agreed(star, 1, range(80))
    assert max(Counter(cards).values()) <= 2
    star.finish(1)
    deal_out(star, 2, 0, 40)
    agreed(star, 2, range(40))
    star.run()
    assert all(p.verdict(1) == p.verdict(1).__class__(True, ()) for p in star.phones)
    audit(star, 2)
    assert not any(star.errors.values())
