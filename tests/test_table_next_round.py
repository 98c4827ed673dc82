"""Every phone shows a round's result until everybody has read it (issue 16), over TCP
loopback: the host deals the next round once every player still in the match sent
``NextRound`` (the host's own player through :meth:`HostTable.read_result`), or when the
pause runs out (at most a turn's time, on the injected clock). A ``NextRound`` for a
round that is not waiting is refused by a notice and changes nothing."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import table_net

from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.messages import NextRound, Options
from app.table.oczko.guest import GuestTable, HostTable

HANG = 30.0  # a guard against a hang, not a speed target


def settle(sides: Sequence[Any], until: Callable[[], bool]) -> None:
    """Step every phone until ``until()``; a guest without a bot holds on its turn."""
    deadline = time.monotonic() + HANG
    while not until():
        assert time.monotonic() < deadline, "hung: the awaited event never came"
        for side in sides:
            side.step(0.005)
            turn = getattr(side, "turn", None)
            mine = isinstance(side, GuestTable) and turn is not None and turn.seat == side.seat
            if mine and side.bot is None:
                side.turn = None
                side.act("hold")


def table(guests: int = 2) -> tuple[HostTable, list[GuestTable], FakeClock]:
    clock = FakeClock()
    host, players = table_net.open_table(
        guests,
        factory=lambda seat, players: OpenDealer(seat),
        options=Options(rounds=3, turn_time=30, secret=False),
        clock=clock,
        settle=settle,
        bot=None,
    )
    host.round_pause = 30.0  # the app's tables: a turn's time
    return host, players, clock


def codes(host: HostTable, code: str) -> list[dict[str, Any]]:
    return [n.details for n in host.notices if n.code == code]


def play_round(host: HostTable, sides: list[Any]) -> None:
    """The host holds on its turns too; play until the next round waits for its deal."""

    def host_holds() -> bool:
        m = host.phone.match if host.phone is not None else None
        if m is not None and m.to_act == 0 and host.book.turn_key is not None:
            host.act("hold")
        return host.book.pausing is not None or (m is not None and m.over)

    settle(sides, host_holds)


def test_the_next_deal_waits_until_every_player_has_read_the_result() -> None:
    host, players, clock = table(2)
    sides = [host, *players]
    try:
        play_round(host, sides)
        assert host.book.pausing == 2 and 2 not in host.book.went
        # the pause holds the deal while the phones are quiet
        settle(sides, lambda: table_net.quiet(sides))
        assert 2 not in host.book.went
        # a NextRound for a round that is not waiting: refused, nothing changes
        book = host.book
        players[0].send(players[0].link, NextRound(7))
        settle(sides, lambda: bool(codes(host, "next_round_refused")))
        assert host.book == book and not host.closed and players[0].seat == 1
        assert codes(host, "next_round_refused")[0]["seat"] == 1
        # two of three have read it: still no deal
        assert players[0].read_result() and players[0].read_result()  # (a second tap)
        host.read_result()
        settle(sides, lambda: host.book.read == {0, 1} and table_net.quiet(sides))
        assert 2 not in host.book.went
        # the last one reads it: the next round is dealt at once, the clock never moved
        now = clock.now()
        assert players[1].read_result()
        settle(sides, lambda: 2 in host.book.went)
        assert clock.now() == now and codes(host, "all_read") == [{"round": 2}]
    finally:
        host.close()
        for p in players:
            p.leave()


def test_a_guest_that_never_reads_is_waited_for_only_one_turn() -> None:
    host, players, clock = table(1)
    sides: list[Any] = [host, *players]
    try:
        play_round(host, sides)
        host.read_result()
        settle(sides, lambda: table_net.quiet(sides))
        assert 2 not in host.book.went
        for _ in range(29):  # (a second at a time: the heartbeats keep the links alive)
            clock.advance(1.0)
            for side in sides:
                side.step(0.0)  # (the timers due now: heartbeats, and no deal yet)
            settle(sides, lambda: table_net.quiet(sides))
        assert 2 not in host.book.went  # a second before the limit: still waiting
        clock.advance(1.0)
        settle(sides, lambda: 2 in host.book.went)
        assert [p.closed for p in players] == [False]
        assert not codes(host, "all_read")  # dealt by the timer, not by the taps
    finally:
        host.close()
        for p in players:
            p.leave()
