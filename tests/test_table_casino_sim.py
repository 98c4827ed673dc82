"""The casino table in simulated time (app/sim/casino.py): the real casino host and
guests with the real SRA shoe on phone CPUs and Bluetooth links, its waits, and the
casino soak. Everything runs on the fake clock: no assertion here depends on the speed
of the machine."""

from __future__ import annotations

import io

import pytest

from app.bluetooth.btmodel import LINKS
from app.protocol.group import unsafe_test_group
from app.sim.casino import CASINO_KINDS, casino_match, open_casino, play_casino
from app.sim.oczko import JOIN_EVERY_S, open_table
from app.sim.phone_cpu import PROFILES
from app.sim.soak import soak

TOY = unsafe_test_group()
A53 = PROFILES["a53-arm64"]


def test_a_three_phone_casino_table_plays_its_rounds_and_measures_every_wait() -> None:
    """3 phones, a 1-deck shoe, 3 rounds: round 1's play loses the last phone, which
    comes back for round 3; every phone at the table agrees on every round, nobody
    honest is dropped, and every wait is measured (the dropout's and the return's too)."""
    table, ended = casino_match(
        [A53] * 3, LINKS["rfcomm"], seed=2, rounds=3, decks=1, drop_in_round=1, group=TOY
    )
    assert ended
    assert len(table.results()) == 1 and not table.faults()
    assert [seat for _, seat, _ in table.dropped] == [2]  # only the phone that died
    assert [who for _, who in table.returned] == ["p2"]
    waits = table.waits.summary()
    assert set(waits) == set(CASINO_KINDS)
    for kind in CASINO_KINDS:
        assert waits[kind]["n"] >= 1, kind
        assert 0 <= waits[kind]["median_s"] <= waits[kind]["worst_s"] < table.sim.now
    assert waits["bets_open"]["n"] == 3  # every phone, once
    # every phone still at the table settled the last round, the returner too
    assert all(3 in p.side.phone.records for p in table.live())
    assert len(table.live()) == 3


@pytest.mark.parametrize("phones", [3, 4])
def test_a_player_back_5_s_after_his_drop_is_readmitted_not_removed(phones: int) -> None:
    """8 decks: the last phone dies in round 1's play and its player is back 5 s after
    the host dropped it, while the host's copy still has him at the table (his
    departure waits there behind the cards of the fresh shoe shuffled without him).
    He is readmitted; only the dead phone was ever dropped, and the table agrees."""
    table, ended = casino_match(
        [A53] * phones, LINKS["rfcomm"], seed=0, rounds=3, decks=8, drop_in_round=1, group=TOY
    )
    last = phones - 1
    assert ended
    assert [(seat, why) for _, seat, why in table.dropped] == [(last, "silent")]
    assert [who for _, who in table.returned] == [f"p{last}"]
    (dropped_at, _, _), (back_at, _) = table.dropped[0], table.returned[0]
    assert back_at > dropped_at + 5.0
    assert len(table.results()) == 1 and not table.faults()
    assert all(3 in p.side.phone.records for p in table.live())
    assert len(table.live()) == phones


def test_a_casino_table_at_phone_speed_is_the_same_for_the_same_seed() -> None:
    """The same table, cards and waits for the same seed. (The shells draw their signing
    keys from the system's randomness, as on a phone: an exponent a bit shorter costs a
    little less, so the seconds agree to a thousandth, not to the last digit.)"""

    def run() -> tuple[float, dict[str, dict[str, float | int]], set[tuple[str, ...]]]:
        table = open_casino([A53] * 2, LINKS["rfcomm"], seed=5, rounds=1, decks=1, group=TOY)
        assert play_casino(table)
        cards = {tuple(str(c) for c in p.side.phone.records[1].body["cards"]) for p in table.live()}
        return table.sim.now, table.waits.summary(), cards

    (now, waits, cards), (now2, waits2, cards2) = run(), run()
    assert len(cards) == 1 and cards == cards2  # the same shoe, on every phone
    assert now == pytest.approx(now2, rel=1e-3)
    for kind in CASINO_KINDS:
        assert waits[kind]["n"] == waits2[kind]["n"]
        assert waits[kind]["worst_s"] == pytest.approx(waits2[kind]["worst_s"], rel=1e-2, abs=0.01)
    assert waits["bets_open"]["n"] == 2 and waits["first_card"]["n"] == 2
    assert 0 < waits["bets_open"]["worst_s"] < now


def test_a_gradual_lobby_seats_the_players_10_s_apart() -> None:
    cold = open_table([A53] * 3, LINKS["rfcomm"], seed=1, rounds=1, group=TOY)
    gradual = open_table([A53] * 3, LINKS["rfcomm"], seed=1, rounds=1, group=TOY, lobby="gradual")
    assert cold.waits._begin < JOIN_EVERY_S <= gradual.waits._begin < 2 * JOIN_EVERY_S + 5


def test_a_small_casino_soak_finishes_clean() -> None:
    """One faulty casino table (seed 23: 4 phones, a 1-deck shoe, stalls and pauses, and a
    phone that dies and comes back on a fresh phone): nothing wrong."""
    out = io.StringIO()
    report = soak([23], out=out, game="blackjack")
    text = out.getvalue()
    assert report.ok, text
    assert report.matches == 1 and report.rounds >= 2
    assert report.faults["kill"] == 1 and report.faults["rejoin"] == 1
    for line in ("matches 1,", "honest players dropped: 0", "disagreements: 0"):
        assert line in text
    assert "tables closed: 0" in text and "matches not ended: 0" in text
