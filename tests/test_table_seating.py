"""Seating (app/table/seating.py) and the injected clock (app/table/clock.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.table.clock import FakeClock, Timers
from app.table.errors import TableError
from app.table.messages import VERSION, Options
from app.table.seating import Seating

IDS = [c * 32 for c in "abcdef0123"]


def _table(n: int) -> Seating:
    s = Seating.new(IDS[0], "Host", "pl")
    for i in range(1, n):
        s, seat, rejoin = s.join(IDS[i], f"P{i}", "de")
        assert (seat, rejoin) == (i, False)
    return s


def test_join_ready_start() -> None:
    s = _table(3)
    assert not s.can_start()
    s = s.set_ready(1, True)
    assert not s.can_start()
    s = s.set_ready(2, True)
    assert s.can_start()
    s = s.start()
    assert s.started and not s.can_start()
    lobby = s.lobby()
    assert [p.name for p in lobby.players] == ["Host", "P1", "P2"]
    assert "player_id" not in str(lobby.to_json())  # never told to the others


def test_alone_the_host_cannot_start() -> None:
    s = _table(1)
    assert not s.can_start()
    with pytest.raises(TableError) as info:
        s.start()
    assert info.value.code == "not_ready"


def test_seven_seats_at_most() -> None:
    s = _table(7)
    with pytest.raises(TableError) as info:
        s.join(IDS[8], "Eighth", "pl")
    assert info.value.code == "table_full"
    small = Seating.new(IDS[0], "Host", "pl", max_players=2)
    small, _, _ = small.join(IDS[1], "A", "pl")
    with pytest.raises(TableError):
        small.join(IDS[2], "B", "pl")
    with pytest.raises(TableError) as bad:
        Seating.new(IDS[0], "Host", "pl", max_players=8)
    assert bad.value.code == "bad_options"


def test_a_new_phone_cannot_join_a_running_match_but_a_dropped_player_can_return() -> None:
    s = _table(3).set_ready(1, True).set_ready(2, True).start()
    with pytest.raises(TableError) as info:
        s.join(IDS[5], "Late", "pl")
    assert info.value.code == "game_running"
    s = s.leave(2)
    assert len(s.sitters) == 3 and not s.sitters[2].connected
    s, seat, rejoin = s.join(IDS[2], "P2", "pl")
    assert (seat, rejoin) == (2, True)
    assert s.sitters[2].connected and s.sitters[2].returning
    s = s.back_in_play(2)
    assert not s.sitters[2].returning


def test_leaving_before_the_match_frees_the_seat() -> None:
    s = _table(4).leave(1)
    assert [x.name for x in s.sitters] == ["Host", "P2", "P3"]
    assert s.seat_of(IDS[3]) == 2
    with pytest.raises(TableError):
        s.leave(0)
    with pytest.raises(TableError) as info:
        s.leave(5)
    assert info.value.code == "unknown_seat"


def test_reconnect_before_the_match_keeps_the_seat() -> None:
    s = _table(3)
    s2, seat, rejoin = s.join(IDS[1], "P1 again", "en")
    assert (seat, rejoin) == (1, True)
    assert s2.sitters[1].name == "P1 again" and not s2.sitters[1].returning


def test_names_are_made_unique_and_checked() -> None:
    s = _table(1)
    s, _, _ = s.join(IDS[1], "host", "pl")
    s, _, _ = s.join(IDS[2], "Host", "pl")
    assert [x.name for x in s.sitters] == ["Host", "host 2", "Host 3"]
    with pytest.raises(TableError) as info:
        s.join(IDS[3], "\x07", "pl")
    assert info.value.code == "bad_name"
    with pytest.raises(TableError) as version:
        s.join(IDS[3], "V", "pl", version=VERSION + 1)
    assert version.value.code == "bad_version"
    with pytest.raises(TableError):
        s.join(IDS[0], "Me", "pl")  # the host's own id


def test_options_are_fixed_once_the_match_runs() -> None:
    s = _table(2).set_options(Options(rounds=3, turn_time=60))
    assert s.lobby().options == Options(3, 60)
    s = s.set_ready(1, True).start()
    with pytest.raises(TableError):
        s.set_options(Options())


@given(
    st.lists(st.tuples(st.sampled_from(["join", "leave", "ready"]), st.integers(0, 9)), max_size=40)
)
def test_seating_invariants_hold_under_any_sequence(ops) -> None:
    s = _table(1)
    for op, k in ops:
        try:
            if op == "join":
                s, _, _ = s.join(IDS[k], f"N{k}", "pl")
            elif op == "leave":
                s = s.leave(k % max(1, len(s.sitters)))
            else:
                s = s.set_ready(k % len(s.sitters), True)
        except TableError:
            pass
        # Fails if a leave removed the host or a join went past seven seats.
        assert 1 <= len(s.sitters) <= 7
        assert s.sitters[0].player_id == IDS[0] and s.sitters[0].ready
        assert len({x.player_id for x in s.sitters}) == len(s.sitters)
        assert len({x.name.casefold() for x in s.sitters}) == len(s.sitters)


def test_timers_on_a_fake_clock() -> None:
    clock = FakeClock()
    timers = Timers(clock)
    assert timers.next_in() is None and timers.due() == []
    timers.set("turn", 30)
    timers.set("ping", 5)
    assert timers.next_in() == 5
    clock.advance(5)
    assert timers.due() == ["ping"]
    assert timers.remaining("turn") == 25
    timers.set("turn", 30)  # re-armed: the old deadline is gone
    clock.advance(29)
    assert timers.due() == []
    timers.cancel("turn")
    timers.cancel("never set")
    clock.advance(100)
    assert timers.due() == [] and timers.remaining("turn") is None
    with pytest.raises(ValueError):
        clock.advance(-1)
