"""Hostile input at the table level (issue 13, findings 4, 6, 8, 9): the real host and
guests over real TCP links (127.0.0.1), only the attacker's side modified. No input
from any peer, seated or not, host or guest, raises out of an honest phone's loop:
each is a refused frame or a named violation, and nobody honest is dropped."""

from __future__ import annotations

import queue
import socket
import threading
import time
import tracemalloc

import pytest
import table_net
from protocol_tools import forged, send, tamper_with
from table_net import open_dealer_table, open_table

from app.bluetooth.framing import DEFAULT_MAX_FRAME, encode_frame
from app.bluetooth.link import DEFAULT_INBOX_QUOTA, Received
from app.bluetooth.tcp import TcpTransport
from app.protocol.group import unsafe_test_group
from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round
from app.table.clock import FakeClock
from app.table.errors import TableError
from app.table.frame_budget import DECK_FRAMES, KIND_LIMITS, FrameBudget, buffer_bound
from app.table.lobby import EVENTS_PER_STEP, JOIN_WITHIN, MAX_UNSEATED
from app.table.messages import (
    CONTROL,
    Left,
    Options,
    Pong,
    ProtocolFrame,
    Rekey,
    Welcome,
    encode,
)
from app.table.oczko.guest import GuestTable, HostTable
from app.table.oczko.sra_deck import SraDealer, sra_dealer_factory

WAIT = 30.0


def pump(*sides, until, timeout: float = WAIT) -> None:
    table_net.pump(*sides, until=until, timeout=timeout)


def sra_table(guests: int = 2, *, seed: int = 0, rounds: int = 1, factory=None):
    """A table with the real SRA dealer on the small test group."""
    clock = FakeClock()
    group = unsafe_test_group()

    def honest(seat: int, players: int) -> SraDealer:
        return SraDealer(seat, players, group=group, rng=DeterministicRng(seed * 100 + seat))

    host, players = open_table(
        guests,
        factory=factory or honest,
        options=Options(rounds=rounds, turn_time=30),
        clock=clock,
        settle=lambda sides, until: pump(*sides, until=until),
    )
    return host, players, clock


def finished(host, guests) -> bool:
    phones = [host.phone] + [g.phone for g in guests]
    return all(p is not None and p.match.over for p in phones)


def stranger(host) -> tuple:
    inbox: queue.Queue = queue.Queue()
    link = TcpTransport().connect(host.address, timeout=5, inbox=inbox)
    return link, inbox


# -- finding 6: a stranger's wrong-type frame ------------------------------------------


def test_a_strangers_wrong_type_frame_is_refused_and_the_table_plays_on() -> None:
    host, players, _ = open_dealer_table()
    link, _ = stranger(host)
    for payload in (b'\x01{"t":[]}', b'\x01{"t":{}}', b"\x01[1]", b'\x01{"t":"join","name":[]}'):
        link.send(payload)
    pump(host, *players, until=lambda: finished(host, players))
    assert not host.closed and all(not p.closed for p in players)
    assert not any(n.code == "player_left" for n in host.notices)
    pump(host, until=lambda: link.closed)  # the stranger is cut off


# -- finding 9: a malicious host's well-formed events ------------------------------------


def _named_host(guest) -> bool:
    return guest.closed and any(n.code in ("host_violation", "violation") for n in guest.notices)


def test_a_host_rekeying_a_deck_that_does_not_exist_is_named() -> None:
    host, players, _ = sra_table()
    pump(host, *players, until=lambda: host.stage == "play" and host.book.deck >= 1)
    host.send(host.link_of(1), Rekey(1, (0, 1, 2)))
    pump(host, *players, until=lambda: _named_host(players[0]))


def test_a_host_telling_a_guest_he_left_in_the_set_up_is_named() -> None:
    host, players, _ = sra_table()
    host.send(host.link_of(1), Left(1, "left"))
    pump(host, *players, until=lambda: _named_host(players[0]))


def test_a_host_moving_a_guest_to_a_seat_outside_the_table_is_named() -> None:
    host, players, _ = sra_table()
    pump(host, *players, until=lambda: host.stage == "play")
    victim = host.link_of(1)
    host.send(victim, Welcome(5))
    host.send(victim, Rekey(host.book.deck + 1, (0, 2, 5)))
    pump(host, *players, until=lambda: _named_host(players[0]))


# -- finding 4: a wrong card key ---------------------------------------------------------


def _wrong_keys(dealer: SraDealer) -> SraDealer:
    """This seat's KEYS carry a wrong key for every card (still a valid exponent)."""
    seat = dealer._seat

    def send_wrong(rnd: Round, honest: Message) -> list[Message] | None:
        if honest.kind != Kind.KEYS:
            return None
        q = seat.group.q
        wrong = tuple(k * 2 % q or 1 for k in honest.values)
        for p, k in zip(list(honest.data), wrong, strict=True):
            rnd.keys[p][seat.seat] = k
        return [forged(seat, honest, values=wrong)]

    tamper_with(seat, send_wrong)
    return dealer


@pytest.mark.parametrize("cheater", [0, 2])
def test_a_wrong_card_key_names_the_cheater_and_crashes_nobody(cheater: int) -> None:
    """Finding 4: the victim's phone raised CardError (Card.from_code(-1)) and left."""
    group = unsafe_test_group()

    def factory(seat: int, players: int) -> SraDealer:
        dealer = SraDealer(seat, players, group=group, rng=DeterministicRng(40 + seat))
        return _wrong_keys(dealer) if seat == cheater else dealer

    host, players, _ = sra_table(factory=factory)
    honest = [p for i, p in enumerate((host, *players)) if i != cheater]

    if cheater == 0:
        # A cheating host: every guest names it and leaves the table.
        def named() -> bool:
            return all(p.phone is not None and p.phone.violation is not None for p in honest)

        pump(host, *players, until=named)
        for p in honest:
            assert p.phone.violation.seat == cheater, p.phone.violation
        return

    # A cheating guest: named on every honest phone and removed; the honest play on.
    def named_by(side) -> set[int]:
        return {n.details["seat"] for n in side.notices if n.code == "cheat_named"} | {
            n.details["seat"]
            for n in side.notices
            if n.code == "player_left" and n.details.get("reason") == "cheat"
        }

    pump(host, *players, until=lambda: all(cheater in named_by(p) for p in honest))
    for p in honest:
        assert p.phone.violation is None and not p.closed
        assert named_by(p) == {cheater}, p.notices


# -- finding 10: no silent downgrade -------------------------------------------------------


def test_without_the_native_module_no_table_opens(monkeypatch) -> None:
    import sys

    from app.table.errors import TableError
    from app.terminal.commands import default_dealer, table_main

    monkeypatch.setitem(sys.modules, "app.native.sra", None)  # import fails
    with pytest.raises(TableError) as info:
        default_dealer()
    assert info.value.code == "no_secure_dealer"
    assert table_main(["--host", "--port", "0", "--quiet"]) == 1  # no listener opened


def test_the_open_dealer_only_by_choice_and_every_phone_says_so() -> None:
    from app.terminal.commands import dealer_factory, table_options

    clock = FakeClock()
    options = table_options(Options(rounds=1, turn_time=30), "open")
    chosen, secure = dealer_factory("open", seed=3), sra_dealer_factory(unsafe_test_group())
    host, players = open_table(
        2,
        # the host chose the open dealer; the guests' own is the SRA one, yet they follow
        # the host's explicit, announced choice (else the table could not deal at all)
        factory=lambda seat, n: chosen(seat, n) if seat == 0 else secure(seat, n),
        options=options,
        clock=clock,
        settle=lambda sides, until: pump(*sides, until=until),
    )
    pump(host, *players, until=lambda: finished(host, players))
    for side in (host, *players):
        assert "open_dealer" in [n.code for n in side.notices]
    assert table_options(Options(), "sra").secret


# -- finding 8: floods ---------------------------------------------------------------------


class _Flood(threading.Thread):
    """A stranger's raw socket sending ``chunk`` again and again, up to ``limit`` bytes
    (never reading); ``cut`` once the host hung up on it."""

    def __init__(self, address: str, chunk: bytes, limit: int) -> None:
        super().__init__(daemon=True)
        host, port = address.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=5)
        self.chunk, self.limit, self.sent, self.cut = chunk, limit, 0, False

    def run(self) -> None:
        try:
            while self.sent < self.limit:
                self.sock.sendall(self.chunk)
                self.sent += len(self.chunk)
        except OSError:
            self.cut = True
        finally:
            self.sock.close()


def test_a_strangers_flood_is_cut_off_while_the_table_plays_on() -> None:
    """Finding 8: a stranger's Pong flood held the host loop (the inbox was drained
    before any timer ran), grew its memory without bound, and was never cut off."""
    host, players, _ = open_dealer_table(rounds=3)
    pong = encode_frame(encode(Pong(1)))
    flood = _Flood(host.address, pong * 4096, limit=256 << 20)
    flood.start()
    most = 0

    def done() -> bool:
        nonlocal most
        most = max(most, host.inbox.waiting_bytes())
        return finished(host, players) and not flood.is_alive()

    pump(host, *players, until=done)
    assert flood.cut and flood.sent < 64 << 20  # cut off mid-flood
    assert not any(n.code == "player_left" for n in host.notices)
    assert most <= MAX_UNSEATED * (DEFAULT_INBOX_QUOTA + DEFAULT_MAX_FRAME)


class _SlowRadio:
    """A guest's link that reads at most 2 KB per 10 ms (a slow, honest radio)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def read(self, max_bytes: int) -> bytes:
        time.sleep(0.01)
        return self._stream.read(min(max_bytes, 2048))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def test_a_guest_flooding_frames_for_a_far_deck_is_named_not_the_slow_honest_guest() -> None:
    """Finding 8: signed frames for round 10**12 were kept and relayed to everybody; an
    honest guest on a slow link overflowed the host's send queue and was cut off
    (send_overflow) while the flooder was not named."""
    clock = FakeClock()
    group = unsafe_test_group()

    def factory(seat: int, players: int) -> SraDealer:
        return SraDealer(seat, players, group=group, rng=DeterministicRng(70 + seat))

    host = HostTable(
        TcpTransport().listen(),
        player_id=table_net.IDS[0],
        name="Host",
        lang="pl",
        clock=clock,
        dealer_factory=factory,
        options=Options(rounds=2, turn_time=30),
        bot=table_net.simple_bot,
    )
    flooder = table_net.guest(host, 1, clock, factory)
    pump(host, flooder, until=lambda: flooder.seat is not None)
    slow = GuestTable.join(
        TcpTransport(wrap_stream=_SlowRadio),
        host.address,
        player_id=table_net.IDS[2],
        name="Slow",
        lang="pl",
        clock=clock,
        dealer_factory=factory,
        bot=table_net.simple_bot,
    )
    pump(host, flooder, slow, until=lambda: slow.seat is not None)
    flooder.set_ready()
    slow.set_ready()
    pump(host, flooder, slow, until=lambda: host.seating.can_start())
    host.begin()
    pump(host, flooder, slow, until=lambda: host.stage == "play" and flooder.phone.dealer.ready)
    seat = flooder.phone.dealer.current._seat
    big = tuple(range(2, 2 + (200 << 10) // group.byte_len))
    for _ in range(60):  # ~12 MB, each frame signed, in sequence, for round 10**12
        msg = send(seat, Kind.SHUFFLE, 10**12, values=big)
        flooder.send(flooder.link, ProtocolFrame(msg.encode(group)))
    pump(host, slow, until=lambda: finished(host, [slow]), timeout=60)
    left = {n.details["seat"]: n.details["reason"] for n in host.notices if n.code == "player_left"}
    assert left == {flooder.seat: "ahead"}
    assert not slow.closed and slow.seat in host.phone.match.active


def test_a_busy_hosts_buffered_frames_stay_under_the_stated_bound() -> None:
    """docs/transport.md: what a phone may spend on buffered frames. Three strangers
    flood as fast as TCP lets them while the host does not read its inbox at all (a
    busy phone): the host's buffered frames, and the Python heap, stay under the bound
    (on main the inbox grew without limit); then every flooder is cut off."""
    host, players, _ = open_dealer_table(rounds=1)
    big = encode_frame(CONTROL + b" " * 200_000)  # (refused once read: nothing is read)
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        floods = [_Flood(host.address, big * 4, limit=64 << 20) for _ in range(3)]
        for flood in floods:
            flood.start()
        # The host is busy: nothing is read from its inbox while the floods fill their
        # quotas (waited for, however slow the machine; HANG only guards a hung test).
        deadline = time.monotonic() + table_net.HANG
        while host.buffered_bytes() < 3 * (DEFAULT_INBOX_QUOTA // 2):
            assert time.monotonic() < deadline, "the floods never filled their quotas"
            time.sleep(0.01)
        time.sleep(0.2)  # (a reader that did not wait would overshoot its quota now)
        held = host.buffered_bytes()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    bound = buffer_bound(3)
    assert held <= bound and peak - base <= bound, (held, peak - base, bound)
    assert held >= 3 * (DEFAULT_INBOX_QUOTA // 2)  # (the floods did fill their quotas)
    pump(
        host,
        *players,
        until=lambda: finished(host, players) and not any(f.is_alive() for f in floods),
    )
    assert all(f.cut for f in floods)
    assert not any(n.code == "player_left" for n in host.notices)


def test_the_join_deadline_runs_while_frames_keep_arriving() -> None:
    """Finding 8: the inbox was drained before any timer ran, so a steady stream of
    frames kept a stranger past his join deadline. Now a step handles a bounded batch
    of events, then the due timers."""
    host, _, clock = open_dealer_table(rounds=1)
    host.silence_limit = 60.0  # (the guests, not stepped here, stay)
    lurker, _ = stranger(host)  # connects, never joins
    pump(host, until=lambda: sum(p.seat is None for p in host.lobby._peers.values()) == 1)
    clock.advance(JOIN_WITHIN + 1)
    noise = Received(object(), encode(Pong(1)))  # (a link long gone: each costs a lookup)
    for _ in range(10 * EVENTS_PER_STEP):
        host.inbox.put(noise)
    host.step(0)
    assert not any(p.seat is None for p in host.lobby._peers.values())  # the lurker is cut off
    assert host.inbox.qsize() > 0  # while frames were still waiting
    pump(host, until=lambda: lurker.closed)


def test_a_host_relaying_bytes_that_are_no_frame_is_named_not_the_seat_they_name() -> None:
    """Found by the fuzz: undecodable dealer bytes whose fourth byte reads 2 made a
    guest name seat 2, an honest player. Nobody signed them: the host is named."""
    host, players, _ = sra_table()
    pump(host, *players, until=lambda: host.stage == "play")
    host.send(host.link_of(1), ProtocolFrame(b"\x09\x09\x09\x02" + bytes(40)))
    pump(host, *players, until=lambda: players[0].closed)
    named = [n.details["seat"] for n in players[0].notices if n.code == "violation"]
    assert named == [0]


def test_the_frame_budget_per_sender_and_deck() -> None:
    """The limits of app/table/frame_budget.py, one by one (each sender and deck apart)."""
    group = unsafe_test_group()

    def frame(kind: Kind, deck: int, sender: int = 1, values=()) -> bytes:
        msg = Message(kind, deck, sender, 0, values=values, sig=bytes(16 + group.byte_len))
        return msg.encode(group)

    budget = FrameBudget()
    for _ in range(KIND_LIMITS[Kind.EVIDENCE]):
        budget.charge(1, frame(Kind.EVIDENCE, 3), deck=3, newest=3)
    with pytest.raises(TableError) as info:
        budget.charge(1, frame(Kind.EVIDENCE, 3), deck=3, newest=3)
    assert info.value.code == "flood"
    budget.charge(2, frame(Kind.EVIDENCE, 3, 2), deck=3, newest=3)  # another sender
    budget.charge(1, frame(Kind.EVIDENCE, 2), deck=2, newest=3)  # another deck
    big = frame(Kind.SHUFFLE, 4, values=tuple(range(2, 600)))
    with pytest.raises(TableError) as info:
        for _ in range(DECK_FRAMES):
            budget.charge(1, big, deck=4, newest=4)
    assert info.value.code == "flood"  # (bytes: 96 frames of 38 KB are over 288 KiB)
    with pytest.raises(TableError) as info:
        budget.charge(1, frame(Kind.KEYS, 5), deck=5, newest=4)
    assert info.value.code == "ahead"
    for _ in range(2):
        budget.charge(1, frame(Kind.HELLO, 0), deck=0, newest=4)
    with pytest.raises(TableError):
        budget.charge(1, frame(Kind.HELLO, 0), deck=0, newest=4)
    budget.new_setup()  # a player is back: a fresh set-up
    budget.charge(1, frame(Kind.HELLO, 0), deck=0, newest=4)
