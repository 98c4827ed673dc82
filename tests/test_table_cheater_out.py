"""Issue 30, findings 4 and 5 and the strangers' residual, at the table: the real host
and guests over TCP links, only the attacker's phone modified (tests/cheats.py).

* A named cheater stays out for the rest of the match: his id is refused at the door,
  every phone that named him refuses his readmission, and a host that readmits him all
  the same is named by those guests.
* Leaving does not escape the audit of a round already played: a deck whose leaver
  revealed his seed is audited (and names him in his absence); one whose leaver had
  not cannot be audited, so its round is void, not scored.
* Strangers holding every unseated slot cannot keep a returning player out.
"""

from __future__ import annotations

import queue
import random
from typing import Any

import pytest
import table_net
from cheats import (
    FalseComplaint,
    RevealingFalseComplaint,
    Stacker,
    Tagger,
    _StackedSecret,
    find_tagged,
)
from protocol_tools import tamper_with, withhold
from test_table_sra import agreed, come_back, departures, finished, make_table, run

from app.bluetooth.tcp import TcpTransport
from app.protocol.messages import Kind, Message
from app.protocol.transcript import Round
from app.table.clock import FakeClock
from app.table.dealer import OpenDealer
from app.table.messages import Options


def refused(side: Any) -> list[str]:
    """The codes of the host's refusals a phone was told."""
    return [n.details.get("code") for n in side.notices if n.code == "refused"]


def named(side: Any) -> set[int]:
    """The seats a phone's screen said were named for cheating."""
    return {n.details["seat"] for n in side.notices if n.code == "cheat_named"}


# -- finding 4: a named cheater comes straight back ----------------------------------------


@pytest.mark.parametrize("kind", [RevealingFalseComplaint, FalseComplaint])
def test_a_named_cheater_is_refused_for_the_rest_of_the_match_on_every_phone(kind: type) -> None:
    """Seat 2 complains falsely about a card that opened (revealing his seed: the audit
    names him; keeping it: he is removed for holding up the audit of his own complaint,
    and every phone holds his signed complaint and saw no seed of his). Removed, he comes
    back on a fresh phone with his player id: the host refuses him (``banned``), every
    honest phone counts him among the cheaters it named itself, and the match plays on
    without him to its end. (Before: he was readmitted at the next round.)"""
    host, players, clock = make_table(3, seed=33, rounds=3, dealers={2: kind})
    honest = [players[0], players[2]]
    run(host, players, clock, until=lambda: 2 in host.phone.match.gone)
    back = come_back(host, clock, seat=2)
    run(host, [*honest, back], clock, until=lambda: back.closed)
    assert refused(back) == ["banned"] and back.phone is None
    run(host, honest, clock, until=lambda: finished(host, honest) or host.closed)
    assert not host.closed
    phones = agreed(host, honest)
    assert departures(host) == [(2, "cheat" if kind is RevealingFalseComplaint else "stalled")]
    for phone in phones:
        assert 2 in phone.cheaters and 2 in phone.match.gone
        assert not any(e.get("event") == "rejoined" for e in phone.log)
    for side in (host, *honest):
        assert not side.closed and side.phone.violation is None


def test_a_host_that_readmits_a_named_cheater_is_named_by_the_guests() -> None:
    """The host (the attacker here: its lobby forgets the ban, its phone what it named)
    lets the cheater of the test above back in. Every guest whose own phone named him
    refuses the ``Rejoin`` and leaves naming the host (``barred_rejoin``)."""
    host, players, clock = make_table(3, seed=33, rounds=3, dealers={2: RevealingFalseComplaint})
    host._ban_cheaters = lambda: None  # the modified host keeps no ban ...
    honest = [players[0], players[2]]
    run(host, players, clock, until=lambda: 2 in host.phone.match.gone)
    host.phone.cheaters.clear()  # ... and forgets whom its phone named
    host.phone.barred = lambda number: set()
    back = come_back(host, clock, seat=2)
    run(host, [*honest, back], clock, until=lambda: all(g.closed for g in honest))
    for guest in honest:
        violations = [n.details for n in guest.notices if n.code == "violation"]
        assert violations and violations[-1]["seat"] is None  # the host, who announced it
        assert violations[-1]["code"] == "barred_rejoin"
        assert 2 in named(guest)  # (named before, on this phone's own evidence)


# -- finding 5: colluders keep a stacked hand by leaving -----------------------------------


class _CleanStack(_StackedSecret):
    """The stacker's permutation of finding 3, and more: the four tagged cards (powers
    of the aces' ciphertexts, junk when opened) go to the bottom of the deck, never
    dealt, so nobody's card fails to open and nobody complains: the round ends at the
    deal with the partner's Persian 21."""

    def permutation(self, n: int) -> tuple[int, ...]:
        if self._perm is None:
            perm = list(super().permutation(n))
            inp, p = list(self._rnd.stages[-2]), self._p
            aces = find_tagged(inp, p)
            junk = [
                inp.index(pow(inp[aces[ace]], r, p))
                for ace, powers in ((0, (2, 3)), (1, (5, 7)))
                if ace in aces
                for r in powers
            ]
            for k, index in enumerate(junk):
                src, dest = perm.index(index), n - 1 - k
                perm[src], perm[dest] = perm[dest], perm[src]
            self._perm = tuple(perm)
        return self._perm


class CleanStacker(Stacker):
    """The last shuffler of deck 3 stacking the tagged aces for his partner, the junk
    out of the way."""

    def start_deck(self, deck: int, order: Any) -> list[bytes]:
        out = super().start_deck(deck, order)
        if deck == self.deck and order[-1] == self.seat:
            rnd = self._seat.round(deck)
            rnd.secret = _CleanStack(rnd, self.partner, self._seat.group.p)
        return out


class LeavingStacker(CleanStacker):
    """... who never reveals his round seed of the stacked deck (he leaves before his
    audit could name him)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        seat = self._seat

        def withheld(rnd: Round, msg: Message) -> list[Message] | None:
            stacked = msg.kind == Kind.AUDIT and rnd.round_id == self.deck
            return withhold(seat, rnd, msg) if stacked else None

        tamper_with(seat, withheld)


def _stacked_round(stacker: type) -> tuple[Any, list[Any], Any]:
    """Seat 2 (first shuffler of deck 3) tags two aces, seat 1 (its last shuffler) finds
    them and deals them to seat 2: a Persian 21 in round 3. Played up to that deck."""
    host, players, clock = make_table(3, seed=34, rounds=5, dealers={2: Tagger, 1: stacker})
    run(host, players, clock, until=lambda: host.book.deck >= 3 or host.phone.match.over)
    assert host.phone.match.round.number == 3 and host.phone.match.round.order[0] == 2
    return host, players, clock


def test_a_stacker_leaving_before_he_reveals_leaves_the_round_void_not_scored() -> None:
    """The stacker leaves as soon as the stacked round has ended on his phone, his seed
    kept. The deck cannot be audited: on every phone the round is void (the Persian 21
    does not count), nobody honest is named or dropped, and he may not come back before
    the round played in its place is over. (Before: his partner's Persian 21 counted,
    nobody was named, and he was readmitted at once.)"""
    host, players, clock = _stacked_round(LeavingStacker)
    stacker, partner, other = players
    run(host, players, clock, until=lambda: 3 in stacker.phone._finished, halt=True)
    stacker.leave()
    alive = [partner, other]
    run(host, alive, clock, until=lambda: 1 in host.phone.match.gone, watch=[stacker])
    back = come_back(host, clock, seat=1)  # he comes back at once, on a fresh phone
    everyone = [*alive, back]
    run(host, everyone, clock, until=lambda: finished(host, everyone) or host.closed)
    assert not host.closed
    phones = agreed(host, [other, back])  # (his new phone too, once back)
    for phone in phones:
        third = phone.match.history[2]
        assert third.number == 3 and third.reason == "void" and third.winner is None
    for phone in (host.phone, other.phone):  # (his new phone began after round 3)
        assert {"event": "round_void", "round": 3, "unaudited": [1]} in phone.log
    m = host.phone.match
    assert m.points[2] == sum(r.winner == 2 for r in m.history)  # no point from round 3
    left = departures(host)
    assert left[0] == (1, "left") and all(seat in (1, 2) for seat, _ in left), left
    for side in (host, other):
        assert side.phone.violation is None and not side.closed
        assert not named(side) - {1, 2}
    # He sat out the round played in place of the void one: readmitted only after it.
    rejoined = [e["round"] for e in host.phone.log if e.get("event") == "rejoined"]
    assert rejoined and min(rejoined) == 5, rejoined  # (round 4 replayed round 3)


def test_a_stacker_leaving_after_he_revealed_is_named_in_his_absence() -> None:
    """The stacker reveals his seed as the round ends on his phone and leaves at once,
    before the verdict. The others audit the deck with his seed: both colluders are
    named on every honest phone, he in his absence; the round is void; his id is
    refused for the rest of the match."""
    host, players, clock = _stacked_round(CleanStacker)
    stacker, partner, other = players

    def revealed() -> bool:
        seat = stacker.phone.dealer._for(3)._seat
        return 3 in seat.rounds() and seat.round(3).audit_sent

    run(host, players, clock, until=revealed, halt=True)
    stacker.step(0)  # (his AUDIT goes out)
    stacker.leave()
    alive = [partner, other]
    gone = lambda: 2 in host.phone.match.gone or host.closed  # noqa: E731
    run(host, alive, clock, until=gone, watch=[stacker])
    back = come_back(host, clock, seat=1)
    run(host, [other, back], clock, until=lambda: back.closed)
    assert refused(back) == ["banned"]
    run(host, [other], clock, until=lambda: finished(host, [other]) or host.closed)
    assert not host.closed
    phones = agreed(host, [other])
    for phone in phones:
        assert {1, 2} <= phone.cheaters.keys()
        assert phone.match.history[2].reason == "void"
    for side in (host, other):
        assert {1, 2} <= named(side)
        assert side.phone.violation is None and not side.closed
    assert {seat for seat, _ in departures(host)} == {1, 2}


# -- the residual: strangers holding the unseated slots ------------------------------------


def test_strangers_holding_every_unseated_slot_cannot_keep_a_returning_player_out() -> None:
    """Eight strangers connect and hold every slot the host keeps for links not yet
    seated (they never join). A player who dropped comes back with his valid id: he is
    seated at once and readmitted, the match plays on. (Before: his link was closed at
    once for as long as the strangers stayed.)"""
    from app.table.lobby import MAX_UNSEATED

    clock = FakeClock()
    rng = random.Random(7)
    factory = lambda seat, n: OpenDealer(seat, rng=rng)  # noqa: E731
    host, players = table_net.open_table(
        2,
        factory=factory,
        options=Options(rounds=5, turn_time=30),
        clock=clock,
        settle=lambda sides, until: table_net.pump(*sides, until=until),
    )
    stays, victim = players
    table_net.pump(host, *players, until=lambda: host.phone.match.rounds_played >= 1)
    victim.link.close(linger=0)
    table_net.pump(host, stays, until=lambda: 2 in host.phone.match.gone)
    strangers = []
    for _ in range(MAX_UNSEATED):
        inbox: queue.Queue = queue.Queue()
        strangers.append(TcpTransport().connect(host.address, timeout=5, inbox=inbox))
    unseated = lambda: sum(p.seat is None for p in host.lobby._peers.values())  # noqa: E731
    table_net.pump(host, stays, until=lambda: unseated() == MAX_UNSEATED)
    back = table_net.guest(host, 2, clock, factory)
    table_net.pump(host, stays, back, until=lambda: back.seat is not None or back.closed)
    assert back.seat == 2 and not back.closed
    guests = [stays, back]
    # The fake clock moves on while the table is quiet: if he dropped during a round
    # (a loaded machine), that round is void and replayed without him before he is
    # readmitted, and its turns may need their timers.
    run(host, guests, clock, until=lambda: back.phone is not None)
    run(host, guests, clock, until=lambda: finished(host, guests))
    assert 2 not in host.phone.match.gone
    assert len({(p.phone.match.winner, p.phone.match.points) for p in (host, *guests)}) == 1
    assert all(p.phone.violation is None for p in (host, *guests))
    for link in strangers:
        link.close(linger=0)
    host.close()


# -- both games: the casino table ----------------------------------------------------------


def test_a_named_cheater_is_refused_at_the_casino_table_too() -> None:
    """p2's phone opens a card it does not hold: he is named and removed. Back on a
    fresh, honest phone with his player id, the host refuses him (``banned``) and the
    table plays on without him. (Before: readmitted between rounds with his chips.)"""
    from test_casino_faults import RULES, CardClaimingGuest, _join, honest_agree, left

    from app.table.casino.guest import CasinoGuest
    from tests.casino_net import open_table as casino_table
    from tests.casino_net import run as casino_run
    from tests.casino_net import settled

    clock = FakeClock()
    host, guests = casino_table(2, RULES, clock=clock, seed=14, start=False)
    attacker = _join(host, CardClaimingGuest, 2, clock)
    sides = [host, guests[0], attacker]
    casino_run(sides, lambda: len(host._keys) == 2 and host.lobby.seating.can_start(), clock)
    host.start()
    rest = [host, guests[0]]
    casino_run(sides, lambda: not host.phone.players["p2"].present, clock)
    assert all(left(s, "p2", "cheat") for s in rest)
    back = _join(host, CasinoGuest, 2, clock)
    casino_run([*rest, back], lambda: back.closed, clock)
    assert refused(back) == ["banned"] and back.phone is None
    casino_run(rest, settled(rest, host.phone.round_no + 2), clock)
    assert not host.phone.players["p2"].present and "p2" in host.phone.named
    assert not any(e.get("event") == "player_back" for s in rest for e in s.phone.log)
    honest_agree(rest, host.phone.round_no - 1)
