"""Casino tables over TCP loopback: 2, 4 and 7 phones play many rounds with bots, a
reshuffle included; every phone agrees on every card, hand, bet and chip count."""

from __future__ import annotations

import pytest

from app.bluetooth.tcp import TcpTransport
from app.protocol.keys import DeterministicRng
from app.rules.blackjack.actions import Action
from app.rules.errors import IllegalAction
from app.rules.table_rules import TableRules
from app.table.casino.snapshot import CasinoStage
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.service import TableService
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


def test_the_service_opens_and_joins_casino_tables_for_the_screens() -> None:
    """What the casino screen holds: TableService.host_casino / join_casino return
    CasinoTables; every change calls on_change; the snapshot shows the whole table."""

    clock = FakeClock()
    ids = iter(c * 32 for c in "ab")
    service = TableService(
        TcpTransport, dealer=lambda: "open", player_id=lambda: next(ids), clock=lambda: clock
    )
    changes: list[str] = []
    host = service.host_casino(
        name="Ann", lang="en", rules=RULES, on_change=lambda: changes.append("host")
    )
    guest = service.join_casino(
        host.address, name="Bob", lang="de", on_change=lambda: changes.append("guest")
    )
    guest.take_box(3)  # asked for in the lobby: taken as soon as the table begins
    run([host, guest], lambda: len(host._keys) == 1 and host.lobby.seating.can_start(), clock)
    assert host.snapshot().stage is CasinoStage.LOBBY
    host.start()
    run([host, guest], lambda: guest.snapshot().stage is CasinoStage.BETTING, clock)
    run([host, guest], lambda: guest.snapshot().boxes == {3: "p1"}, clock)
    host.take_box(1)
    host.act(Action.bet("p0", 1, 20))
    run([host, guest], lambda: guest.snapshot().round.box_owner(1) == "p0", clock)
    snap = guest.snapshot()
    assert snap.me == "p1" and snap.names == {"p0": "Ann", "p1": "Bob"}
    assert snap.chips["p0"] == 980 and snap.chips["p1"] == 1000
    assert snap.rules.hole_card == "enhc" and snap.deadline is not None
    assert "host" in changes and "guest" in changes
    with pytest.raises(IllegalAction) as exc:
        guest.act(Action.bet("p1", 1, 10_000))  # over the box limit: refused on the phone
    assert exc.value.code == "bet_above_limit"
    guest.leave()
    host.leave()
