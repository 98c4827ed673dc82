"""Bodies later at the table (issue 17): the real host and guests over TCP links; the
host sends the guests that only check a pass or lock its stub now and its body later.
Only the attacker's phone (the host) is modified: it changes a body, or keeps the
bodies. Each time the guest it cheated names the host and leaves; no honest guest is
named by anybody."""

from __future__ import annotations

from test_table_sra import finished, make_table, run

from app.protocol.group import unsafe_test_group
from app.protocol.messages import HEADER_LEN, STUB_VERSION, Message
from app.table.messages import ProtocolFrame

TOY = unsafe_test_group()


def named_guests(side) -> set[int]:
    """The guests a phone named (a cheat, a violation)."""
    codes = ("cheat_named", "violation")
    return {n.details["seat"] for n in side.notices if n.code in codes} - {0, None}


def test_a_match_with_bodies_later_ends_alike_on_every_phone() -> None:
    sent: list[bytes] = []
    host, players, clock = make_table(3, seed=21, rounds=2)
    send = host.lobby.send
    host.lobby.send = lambda link, m: (sent.append(getattr(m, "data", b"")), send(link, m))[1]
    run(host, players, clock, until=lambda: finished(host, players))
    assert any(d[:1] == bytes([STUB_VERSION]) for d in sent)  # stubs went out...
    assert not host._bodies  # ...and every body after them
    results = {(p.phone.match.winner, p.phone.match.points) for p in (host, *players)}
    assert len(results) == 1
    for side in (host, *players):
        assert not named_guests(side) and not [n for n in side.notices if n.code == "violation"]


def test_a_host_that_changes_a_body_is_named_by_the_guest_that_got_it() -> None:
    host, players, clock = make_table(3, seed=22, rounds=2)
    victim = players[-1]
    send = host.lobby.send
    changed: list[int] = []

    def changing(link, message):  # the host's phone, modified: one body, one bit
        data = getattr(message, "data", b"")
        if link is victim.link_at_host and data[:1] == b"\x01" and not changed:
            msg = Message.decode(data, TOY)
            if msg.values and (msg.sender, msg.seq) in owed(victim):
                changed.append(msg.sender)
                data = data[:HEADER_LEN] + bytes([data[HEADER_LEN] ^ 1]) + data[HEADER_LEN + 1 :]
                message = ProtocolFrame(data)
        return send(link, message)

    host.lobby.send = changing
    for p in players:
        p.link_at_host = host.link_of(p.seat)
    run(host, players, clock, until=lambda: victim.closed or finished(host, players))
    assert changed, "no body went to the victim: pick another seed"
    violation = next(n for n in victim.notices if n.code == "violation")
    assert violation.details["seat"] == 0, victim.notices  # the host, not the pass's sender
    for side in (host, *players):
        assert not named_guests(side), side.notices


def owed(guest) -> set[tuple[int, int]]:
    """(sender, seq) of the stubs whose bodies ``guest``'s dealer still waits for."""
    seat = guest.phone.dealer.current._seat
    return {(s.sender, s.seq) for r in seat.rounds() for s in seat.round(r).withheld}


def test_a_host_that_keeps_the_bodies_is_named_by_the_guests_that_wait_for_them() -> None:
    """The guests' audits wait for the bodies (their results with them); once the
    round's play is over they wait half a turn for the host, then name it and leave,
    before the host could drop them as stalled. No honest phone names a guest."""
    host, players, clock = make_table(3, seed=23, rounds=2, turn_time=5)
    host._send_bodies = lambda: None  # the host's phone, modified: no body ever goes
    done = lambda: all(p.closed for p in players) or finished(host, players)  # noqa: E731
    run(host, players, clock, until=done)
    waited = [p for p in players if owed(p)]
    assert waited, "no guest waited for a body: pick another seed"
    for p in waited:
        violation = [n.details for n in p.notices if n.code == "violation"]
        assert [(v["seat"], v["code"]) for v in violation] == [(0, "stalled")], p.notices
    assert not [n for n in host.notices if n.code == "player_left"], host.notices
    for side in (host, *players):
        assert not named_guests(side), side.notices
