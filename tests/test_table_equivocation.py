"""A host that equivocates, at the table (issue 30, finding 3 and its residuals): the
real host and guests over TCP links, only the host's phone modified. Every honest
phone names the host; nobody honest is named, or shown as removed, by an honest phone.
"""

from __future__ import annotations

import pytest
from test_table_sra import make_table, run

from app.protocol import shuffle
from app.protocol.group import unsafe_test_group
from app.protocol.keys import DeterministicRng
from app.protocol.messages import VERSION, Kind, Message
from app.rules.table_rules import TableRules
from app.table.casino.host import CasinoHost
from app.table.casino.sra_shoe import SraShoe
from app.table.clock import FakeClock
from app.table.messages import ProtocolFrame
from tests.casino_net import GROUP, open_table
from tests.casino_net import run as run_casino

TOY = unsafe_test_group()


def named(side, seat: int) -> bool:
    """Did this phone name ``seat`` (a cheat, a violation) or show him removed for one?"""
    for n in side.notices:
        if n.code in ("cheat_named", "violation") and n.details.get("seat") == seat:
            return True
        left = n.code == "player_left" and n.details.get("seat") == seat
        if left and n.details.get("reason") not in ("left", "lost"):
            return True
    return False


def host_of(side) -> bool:
    """Did this phone name the host and leave?"""
    return any(n.code == "violation" and n.details.get("seat") == 0 for n in side.notices)


@pytest.mark.parametrize(("guests", "seed"), [(2, 41), (3, 41), (3, 42), (3, 43)])
def test_a_host_sending_the_next_shuffler_another_pass_is_named_not_him(
    guests: int, seed: int
) -> None:
    """The host's phone sends the guest that computes next on its shuffle pass another
    signed version of it (two cards swapped) and the others the honest one (as their
    body, later). Every other guest's audit used to name that honest guest
    ``bad_shuffle`` and the host removed him as a cheater. Now he attests in his AUDIT
    what he got from the host, and every guest names the host."""
    host, players, clock = make_table(guests, seed=seed, rounds=2)
    send = host.lobby.send
    victims: list[int] = []

    def equivocating(link, message):  # the host's phone, modified
        data = getattr(message, "data", b"")
        if not victims and data[:1] == bytes([VERSION]):
            msg = Message.decode(data, TOY)
            seat = host.phone.dealer.current._seat
            if msg.sender == 0 and msg.kind == Kind.SHUFFLE and msg.start == 0:
                reader = shuffle.consumer(seat.round(msg.round_id), msg)
                if reader is not None and link is host.link_of(reader):
                    vals = list(msg.values)
                    vals[0], vals[1] = vals[1], vals[0]  # valid cards, another order
                    alt = seat.core.sign(
                        Message(msg.kind, msg.round_id, 0, msg.seq, 0, tuple(vals))
                    )
                    victims.append(reader)
                    message = ProtocolFrame(alt.encode(TOY))
        return send(link, message)

    host.lobby.send = equivocating
    done = lambda: all(p.closed or (p.phone and p.phone.match.over) for p in players)  # noqa: E731
    run(host, players, clock, until=done)
    assert victims, "the host's pass had no guest computing on it"
    victim = victims[0]
    for p in players:
        assert host_of(p), (p.seat, p.notices)  # every guest names the host and leaves
        assert not named(p, victim), (p.seat, p.notices)
        assert not any(named(p, s) for s in range(1, guests + 1)), (p.seat, p.notices)


class EquivocatingShoeHost(CasinoHost):
    """The casino host's phone, modified: the guest that computes next on its first
    shuffle frame of a shoe gets another signed version (two cards swapped), the other
    guests the honest one."""

    victims: list[int]

    def _flush(self) -> None:
        phone = self.phone
        if phone is not None and not getattr(self, "victims", None):
            for i, item in enumerate(phone.outbox):
                alt = self._other_version(item) if isinstance(item, bytes) else None
                if alt is None:
                    continue
                reader, frame = alt
                self.victims = [reader]
                before, phone.outbox = phone.outbox[:i], phone.outbox[i + 1 :]
                outbox, phone.outbox = phone.outbox, before
                super()._flush()
                for peer in self.lobby._peers.values():
                    same = peer.link is not self.link_of(reader)
                    self.lobby.send(peer.link, ProtocolFrame(item if same else frame))
                phone.outbox = outbox
                break
        super()._flush()

    def _other_version(self, item: bytes) -> tuple[int, bytes] | None:
        msg = Message.decode(item, GROUP)
        if msg.sender != 0 or msg.kind != Kind.SHUFFLE or msg.start != 0:
            return None
        dealer = self.phone.dealer._for(msg.round_id)
        seat = dealer._seat
        reader = shuffle.consumer(seat.round(msg.round_id), msg)
        if reader is None or reader == 0:
            return None
        vals = list(msg.values)
        vals[0], vals[1] = vals[1], vals[0]
        alt = seat.core.sign(Message(msg.kind, msg.round_id, 0, msg.seq, 0, tuple(vals)))
        return reader, alt.encode(GROUP)


def test_a_casino_host_sending_the_next_shuffler_another_pass_is_named_not_him() -> None:
    """The same at the casino table: its shoe is shuffled with the same passes through
    the same relay. Every guest names the host; nobody names the next shuffler."""
    clock = FakeClock()
    sra = lambda seat, n: SraShoe(seat, n, group=GROUP, rng=DeterministicRng(seat))  # noqa: E731
    rules = TableRules.preset("european", decks=1, penetration="1/2")
    host, guests = open_table(4, rules, clock=clock, factory=sra, host_cls=EquivocatingShoeHost)
    run_casino([host, *guests], lambda: all(g.over for g in guests), clock)
    victim = f"p{host.victims[0]}"
    for g in guests:
        assert any(n.code == "cheat_named" and n.params.get("player") == "p0" for n in g._notes), (
            g.me,
            [(n.code, n.params) for n in g._notes],
        )
        assert not any(
            n.code == "cheat_named" and n.params.get("player") != "p0" for n in g._notes
        ), (g.me, [(n.code, n.params) for n in g._notes])
        shown = [e for e in g.phone.log if e.get("event") == "player_left"]
        assert not any(e["player"] == victim and e["reason"] != "left" for e in shown), shown


def test_a_host_withholding_its_keys_from_a_guest_is_named_by_him_first() -> None:
    """Residual of issue 30: the host's phone keeps its KEYS frame of a deal (and its
    frames after it in that deck, so no sequence gap shows) from one guest, whose
    cards then cannot open. The host's watchdog dropped him as ``stalled`` (his report
    of the deal never came) a turn later, before his patience with the host ran out.
    Now a guest that waits for nothing but the host's keys of a card dealt to him names
    the host first, and is never shown as stalled by an honest phone."""
    host, players, clock = make_table(3, seed=44, rounds=2, turn_time=10)
    victim = players[0]
    send = host.lobby.send
    kept: list[int] = []

    def withholding(link, message):  # the host's phone, modified
        data = getattr(message, "data", b"")
        if link is host.link_of(victim.seat) and data[:1] == bytes([VERSION]):
            msg = Message.decode(data, TOY)
            if (
                msg.sender == 0
                and msg.round_id
                and (
                    kept == [msg.round_id]
                    or (not kept and msg.kind == Kind.KEYS and victim.seat in dealt_to(host, msg))
                )
            ):
                kept[:] = [msg.round_id]
                return True
        return send(link, message)

    host.lobby.send = withholding
    done = lambda: victim.closed or (victim.phone and victim.phone.match.over)  # noqa: E731
    run(host, players, clock, until=done)
    assert kept, "no key of the host went to the victim"
    assert [
        (n.details["seat"], n.details["code"]) for n in victim.notices if n.code == "violation"
    ] == [(0, "stalled")], victim.notices
    run(
        host,
        players,
        clock,
        until=lambda: (
            all(p.closed or (p.phone and p.phone.match.over) for p in players)
            or victim.seat in host.phone.match.gone
        ),
    )
    for p in players[1:]:
        assert not named(p, victim.seat), (p.seat, p.notices)


def dealt_to(host, msg: Message) -> set[int]:
    """The seats the positions of a KEYS frame are dealt to (on the host's copy)."""
    rnd = host.phone.dealer.current._seat.round(msg.round_id)
    return {rnd.owner.get(p) for p in msg.data}


class KeyKeepingHost(CasinoHost):
    """The casino host's phone, modified: from round 2 on, its KEYS frames (and its
    later frames of that shoe, so no sequence gap shows) do not go to guest p1."""

    kept: list[int]

    def _flush(self) -> None:
        phone = self.phone
        if phone is None or phone.round_no < 2:
            super()._flush()
            return
        kept = getattr(self, "kept", [])
        link = self.link_of(1)
        while phone.outbox and isinstance(phone.outbox[0], bytes):
            item = phone.outbox.pop(0)
            msg = Message.decode(item, GROUP)
            if kept == [msg.round_id] or (not kept and msg.kind == Kind.KEYS):
                kept = self.kept = [msg.round_id]
                for peer in self.lobby._peers.values():
                    if peer.link is not link:
                        self.lobby.send(peer.link, ProtocolFrame(item))
            else:
                self.lobby.broadcast(ProtocolFrame(item))
        super()._flush()


def test_a_casino_host_withholding_its_keys_from_a_guest_is_named_by_him_first() -> None:
    """The same at the casino table: the guest that cannot open a card for want of the
    host's key names the host before the host's watchdog drops him as stalled."""
    clock = FakeClock()
    sra = lambda seat, n: SraShoe(seat, n, group=GROUP, rng=DeterministicRng(seat))  # noqa: E731
    rules = TableRules.preset("european", decks=1, penetration="1/2")
    host, guests = open_table(3, rules, clock=clock, factory=sra, host_cls=KeyKeepingHost)
    victim = guests[0]
    run_casino([host, *guests], lambda: victim.over, clock)
    assert host.kept
    codes = [
        (n.details["seat"], n.details["code"]) for n in victim.notices if n.code == "violation"
    ]
    assert codes == [(0, "stalled")], [(n.code, n.params) for n in victim._notes]
    for g in guests[1:]:
        shown = [e for e in g.phone.log if e.get("event") == "player_left"]
        assert not any(e["player"] == "p1" and e["reason"] == "stalled" for e in shown), shown
