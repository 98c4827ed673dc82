"""A host that equivocates, at the table (issue 30, finding 3 and its residuals): the
real host and guests over TCP links, only the host's phone modified. Every honest
phone names the host; nobody honest is named, or shown as removed, by an honest phone.
"""

from __future__ import annotations

import pytest
from test_table_sra import make_table, run

from app.protocol import shuffle
from app.protocol.group import unsafe_test_group
from app.protocol.messages import VERSION, Kind, Message
from app.table.messages import ProtocolFrame

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
