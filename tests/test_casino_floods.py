"""Floods at the table (issue 30, findings 6 and 7): the real host and guests over TCP
loopback on the fake clock, only the attacker's phone modified.

* The casino table charges every shoe frame to its sender, per shoe, with the budget
  of app/table/frame_budget.py (the Oczko table's limits, sized for a shoe): frames of a
  shoe the table has not started are refused at once (``ahead``), and a sender over
  his budget (thousands of EVIDENCE frames) is removed (``flood``); the honest guests,
  a slow one included, play on.
* A host's flood of control messages that each become a notice (``Turn`` at the
  Oczko table, ``Lobby`` and ``CNo`` at the casino) no longer grows a guest's memory:
  the notices kept are bounded (the newest), and the guest plays on."""

from __future__ import annotations

import random
import time
from dataclasses import replace
from typing import Any

import table_net
from protocol_tools import send

from app.bluetooth.tcp import TcpTransport
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind
from app.rules.table_rules import TableRules
from app.table.casino.bot import casino_bot
from app.table.casino.digests import AGREE_CONTEXT
from app.table.casino.guest import CasinoGuest
from app.table.casino.host import CasinoHost
from app.table.casino.messages import CAgree, CNo
from app.table.casino.side import KEEP_NOTICES
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.lobby import MAX_NOTICES
from app.table.messages import PROTOCOL, Options, ProtocolFrame, Turn
from tests.casino_net import GROUP, IDS, open_table, run, settled

RULES = TableRules.preset("european", decks=1, penetration="1/2")


def sra(seat: int, players: int) -> SraShoe:
    return SraShoe(seat, players, group=GROUP, rng=DeterministicRng(40 + seat))


def left_for(side: Any) -> dict[str, str]:
    return {e["player"]: e["reason"] for e in side.phone.log if e.get("event") == "player_left"}


class _SlowRadio:
    """A guest's link that reads at most 2 KB per 10 ms (a slow, honest radio)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int) -> bytes:
        time.sleep(0.01)
        data: bytes = self._stream.read(min(max_bytes, 2048))
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _table_with_a_slow_guest(clock: FakeClock) -> tuple[CasinoHost, CasinoGuest, CasinoGuest]:
    """Host, p1 (the flooder, on a fast link) and p2 (honest, on a slow radio), SRA."""
    host = CasinoHost(
        TcpTransport().listen(),
        player_id=IDS[0],
        name="Host",
        lang="en",
        clock=clock,
        shoe_factory=sra,
        rules=RULES,
        bet_time=10,
        turn_time=10,
        bot=casino_bot,
        group=GROUP,
    )
    guests: list[CasinoGuest] = []
    for i, transport in ((1, TcpTransport()), (2, TcpTransport(wrap_stream=_SlowRadio))):
        guests.append(
            CasinoGuest.join(
                transport,
                host.address,
                player_id=IDS[i],
                name=f"P{i}",
                lang="de",
                clock=clock,
                shoe_factory=sra,
                bot=casino_bot,
                group=GROUP,
            )
        )
        run([host, *guests], lambda i=i: len(host._keys) == i, clock)
    sitters = host.lobby.seating.sitters
    run([host, *guests], lambda: all(s.ready for s in sitters) and len(sitters) == 3, clock)
    host.start()
    run([host, *guests], lambda: all(g.phone is not None for g in guests), clock)
    return host, guests[0], guests[1]


def test_frames_of_a_shoe_not_started_are_refused_and_the_slow_honest_guest_stays() -> None:
    """60 signed frames of 200 KB for shoe 10**6 (12 MB): on main they were kept and
    relayed to every phone, and the honest guest on a slow link was cut off
    (``send_overflow``). The first is refused: its sender is removed (``ahead``) before
    anything is relayed, and the table plays on with the slow guest."""
    clock = FakeClock()
    host, flooder, slow = _table_with_a_slow_guest(clock)
    sides = [host, flooder, slow]
    run(sides, lambda: all(s.phone.dealer.ready for s in sides), clock)
    seat = flooder.phone.dealer.current._seat
    big = tuple(range(2, 2 + (200 << 10) // GROUP.byte_len))
    for _ in range(60):
        msg = send(seat, Kind.SHUFFLE, 10**6, values=big)
        flooder.send(flooder.link, ProtocolFrame(msg.encode(GROUP)))
    rest = [host, slow]
    run(rest, settled(rest, 2), clock)
    assert left_for(host) == {"p1": "ahead"} and left_for(slow) == {"p1": "ahead"}
    assert not slow.closed and not slow.over and slow.phone.fault is None
    assert host.phone.players["p2"].present
    assert host.phone.records[2].digest == slow.phone.records[2].digest


def test_a_guest_flooding_evidence_frames_is_removed_by_his_budget() -> None:
    """2,000 signed EVIDENCE frames, each a copy of a frame every phone saw
    (on main each was checked, a signature's work on every phone, and nobody was
    charged): past his budget for the shoe he is removed (``flood``), nobody honest
    is, and the table plays on."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, factory=sra)
    sides = [host, p1, p2]
    run(sides, settled(sides, 1), clock)
    seat = p1.phone.dealer.current._seat
    shoe = p1.phone.live_shoe().shoe
    rnd = seat.round(shoe)
    seen = next(m for _, m in sorted(rnd.frames.items()))  # (the host's: every phone has it)
    copy = seen.encode(GROUP)
    for _ in range(2000):
        msg = send(seat, Kind.EVIDENCE, shoe, data=copy)
        p1.send(p1.link, ProtocolFrame(msg.encode(GROUP)))
    rest = [host, p2]
    run(rest, lambda: all(not s.phone.players["p1"].present for s in rest), clock)
    assert left_for(host) == {"p1": "flood"} and left_for(p2) == {"p1": "flood"}
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    for s in rest:
        assert not s.over and s.phone.fault is None, s.me


# -- a host's control flood --------------------------------------------------------------


def test_a_hosts_flood_of_turns_keeps_a_guests_notices_bounded_and_he_plays_on() -> None:
    """Every ``Turn`` becomes a notice; on main they were never trimmed (+121 MiB in 71 s).
    Three times the bound of them: the guest keeps the newest MAX_NOTICES, stays at
    the table, and the match ends on every phone."""
    clock = FakeClock()
    rng = random.Random(3)
    host, players = table_net.open_table(
        2,
        factory=lambda seat, n: OpenDealer(seat, rng=rng),
        options=Options(rounds=2, turn_time=30),
        clock=clock,
        settle=lambda sides, until: table_net.pump(*sides, until=until),
    )
    guest = players[0]
    table_net.pump(host, *players, until=lambda: guest.phone is not None)
    link = host.link_of(guest.seat)
    for k in range(3 * MAX_NOTICES):
        host.send(link, Turn(1, 2, k % 1000))
    sides = [host, *players]
    deadline = time.monotonic() + table_net.HANG
    while not all(p.phone is not None and p.phone.match.over for p in sides):
        assert time.monotonic() < deadline, "hung"
        for side in sides:
            side.step(0.002)
        if table_net.quiet(sides):  # (a turn the flood hid from the bot times out)
            clock.advance(1.0)
    assert len(guest.notices) <= MAX_NOTICES
    assert not guest.closed and not any(n.code == "violation" for n in guest.notices)
    assert [n.code for n in guest.notices].count("match_over") == 1
    assert not any(n.code == "player_left" for n in host.notices)


def test_a_hosts_flood_of_control_messages_keeps_a_casino_guests_memory_bounded() -> None:
    """The casino guest: a ``Lobby`` becomes a notice, a ``CNo`` a refusal kept for the
    intent it names. Thousands of both: the notices, the screen's notes and the
    refusals kept stay bounded, and the guest plays on."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, seed=8)
    sides = [host, p1, p2]
    run(sides, settled(sides, 1), clock)
    link = host.link_of(1)
    lobby = host.lobby.seating.lobby()
    sent = p1.phone.sent
    for k in range(2 * MAX_NOTICES):
        host.lobby.send(link, lobby)
        host.lobby.send(link, CNo(sent + 1 + k, "not_now"))
    run(sides, settled(sides, 3), clock)
    assert len(p1.notices) <= MAX_NOTICES and len(p1._notes) <= KEEP_NOTICES
    assert len(p1._refused) <= p1.phone.sent - p1.phone.players["p1"].n
    for s in sides:
        assert not s.over and s.phone.fault is None, s.me
        assert all(p.present for p in s.phone.players.values())


def test_a_hosts_signed_digests_of_far_rounds_are_refused_not_kept() -> None:
    """A round digest (``CAgree``) is kept per round; a host signing its own for rounds
    far ahead grew a guest's memory with each. One 16 or more rounds off is refused:
    the guest names the host (``forged_agreement``) and leaves; the other guest plays on."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, seed=9)
    sides = [host, p1, p2]
    run(sides, settled(sides, 1), clock)
    link = host.link_of(1)
    for rnd in range(1000, 1100):
        unsigned = CAgree("p0", rnd, "00" * 32)
        sig = host.identity.sign(AGREE_CONTEXT, unsigned.signed_bytes(host.phone.table))
        host.lobby.send(link, replace(unsigned, sig=sig.hex()))
    run(sides, lambda: p1.closed, clock)
    assert {n.details["code"] for n in p1.notices if n.code == "host_violation"} == {
        "forged_agreement"
    }
    assert max(p1.phone.digests.received) < 1000
    rest = [host, p2]
    run(rest, settled(rest, host.phone.round_no + 1), clock)
    assert not p2.over and p2.phone.fault is None


def test_a_shoe_frame_sent_twice_is_ignored_not_taken_for_a_cheat() -> None:
    """Issue 31 (one table): the Oczko host ignores a copy of a dealer frame it has
    accepted from the same guest (issue 17: its sequence number is spent, it is a
    no-op); the casino host took it for a replay, dropped the guest as a cheat and
    removed an honest player for a radio's repeat. Now both hosts take frames through
    one shell: the copy is ignored, and the guest plays on."""
    clock = FakeClock()
    host, (p1, p2) = open_table(3, RULES, clock=clock, factory=sra)
    link = p1.link
    sent: list[bytes] = []
    send_bytes = link.send

    def recording(data: bytes) -> None:
        if data[:1] == PROTOCOL:
            sent.append(bytes(data))
        send_bytes(data)

    link.send = recording
    sides = [host, p1, p2]
    run(sides, settled(sides, 1), clock)
    assert sent
    link.send(sent[-1])  # the same frame again
    run(sides, settled(sides, 3), clock)
    assert left_for(host) == {} and left_for(p2) == {}
    for s in sides:
        assert not s.over and s.phone.fault is None and s.phone.players["p1"].present, s.me
