"""Casino tables over TCP loopback: 2, 4 and 7 phones play many rounds with bots, a
reshuffle included; every phone agrees on every card, hand, bet and chip count."""

from __future__ import annotations

import pytest

from app.protocol.keys import DeterministicRng
from app.rules.table_rules import TableRules
from app.table.clock import FakeClock
from app.table.sra_shoe import SraShoe
from tests.casino_net import GROUP, digests, open_table, run, settled

# A 1-deck shoe cut at about half: several shoes in a few rounds.
RULES = TableRules.preset("european", decks=1, penetration="1/2")


@pytest.mark.parametrize(("phones", "rounds"), [(2, 14), (4, 8), (7, 5)])
def test_every_phone_agrees_on_every_round(phones: int, rounds: int) -> None:
    clock = FakeClock()
    host, guests = open_table(phones, RULES, clock=clock, seed=phones)
    sides = [host, *guests]
    run(sides, settled(sides, rounds), clock)
    for side in sides:
        assert side.phone.fault is None, side.phone.fault
        assert not side.over
    # the same digest of every round (log, cards and their positions, chips, house)
    assert all(digests(s)[:rounds] == digests(host)[:rounds] for s in sides)
    first = host.phone
    for side in guests:
        assert side.phone.players_chips() == first.players_chips()
        assert side.phone.house == first.house
    # chips conserved on every phone, and every other phone's signed digest matched
    for side in sides:
        assert side.phone.conservation() == side.phone.total
        for r in range(1, rounds):
            assert len(side.phone.agreed.get(r, ())) == phones - 1, (side.me, r)
    # the cut card came out: the table dealt from more than one shoe
    assert len(host.phone.shoes) >= 3
    assert host.phone.live_shoe().shoe > 1
    assert host.phone.round_no >= rounds
    played = {e.get("event") for e in host.phone.log}
    assert {"bet", "round_settled", "bets_open"} <= played, played
    host.leave()


@pytest.mark.parametrize(("phones", "rounds"), [(2, 8), (4, 5), (7, 3)])
def test_the_sra_shoe_deals_the_same_cards_on_every_phone(phones: int, rounds: int) -> None:
    """The real shoe (SRA across every phone; the test group keeps it quick): a reshuffle
    comes from the shoe shuffled in the background, every phone agrees."""
    clock = FakeClock()
    factory = lambda seat, n: SraShoe(seat, n, group=GROUP, rng=DeterministicRng(seat))  # noqa: E731
    host, guests = open_table(phones, RULES, clock=clock, factory=factory)
    sides = [host, *guests]
    run(sides, settled(sides, rounds), clock)
    for side in sides:
        assert side.phone.fault is None, side.phone.fault
        assert side.phone.conservation() == side.phone.total
    assert all(digests(s)[:rounds] == digests(host)[:rounds] for s in sides)
    assert host.phone.live_shoe().shoe > 1  # the cut card came out: a new shoe in play
    host.leave()
