"""The malicious-phone harness (issue 13): seeded table sessions in which one phone
(a guest's, or about one time in four the host's) deviates from the protocol at a
random moment, against the real HostTable,
GuestTable and SraDealer over TCP links.

A deviation is a function ``(rng) -> dealer class`` in :data:`DEVIATIONS`; the class
is an :class:`~app.table.oczko.sra_deck.SraDealer` that misbehaves once (or from some
point on) and records in ``cheated`` the decks in which it did. More kinds (strangers,
floods, wrong types) are added by appending to the list. :func:`session` plays one
seeded match and checks the invariants; it returns a one-line summary.

Invariants, on every session: no exception escapes an honest phone (the loop would
raise); the cheater keeps no point from a round he cheated in on any honest phone.
A cheating guest: no honest phone is named, dropped or closed, and every honest phone
ends with the same result. A cheating host: an honest guest names nobody but the
host (and leaves) or plays on; the guests that finish agree.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cheats

from app.protocol.keys import DeterministicRng
from app.protocol.messages import Kind, Message
from app.rules.oczko.round import total_of
from app.table.oczko.sra_deck import SraDealer

Deviation = Callable[[random.Random], type]
_BLAMES = ("cheat_named", "violation")


def _frame_deviation(name: str, mutate: Callable[[Any, list[Message], random.Random], list | None]):
    """A dealer whose ``at``-th outgoing frame (counted over the match) is changed by
    ``mutate(dealer, messages, rng)``, which returns the frames to send instead (None:
    this frame cannot be changed that way, it goes out as it is)."""

    def make(rng: random.Random) -> type:
        at = rng.randint(1, 24)
        seed = rng.randrange(1 << 30)

        class Deviant(SraDealer):
            label = f"{name}@{at}"

            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                self.count = 0
                self.cheated: set[int] = set()
                self.sent: list[Message] = []
                self.rng = random.Random(seed)
                self.stopped = False

            def _encode(self, messages: list[Message]) -> list[bytes]:
                out: list = []
                for msg in messages:
                    self.count += 1
                    if self.stopped:
                        self.cheated.add(msg.round_id)
                        continue
                    changed = mutate(self, [msg], self.rng) if self.count == at else None
                    if changed == [msg]:
                        changed = None  # (the change came out the same: no deviation)
                    if changed is not None and msg.round_id:
                        self.cheated.add(msg.round_id)
                        out += changed
                    else:
                        out.append(msg)
                    self.sent.append(msg)
                return [m if isinstance(m, bytes) else m.encode(self._group) for m in out]

        Deviant.__name__ = f"Deviant_{name}"
        return Deviant

    return make


def _resign(dealer: SraDealer, msg: Message, **fields: Any) -> Message:
    """``msg`` with other content, validly signed by its sender (the cheater)."""
    seat = dealer._seat
    body = replace(msg, sig=b"", **fields)
    return body.signed(seat.identity.sign(seat.table_id, body.body(seat.group)))


def _forged(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    msg = msgs[0]
    sig = bytearray(msg.sig)
    sig[rng.randrange(len(sig))] ^= 1 + rng.randrange(255)
    return [replace(msg, sig=bytes(sig))]


def _replayed(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    old = dealer.sent[rng.randrange(len(dealer.sent))] if dealer.sent else msgs[0]
    return [msgs[0], old]


def _reordered(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    dealer._held = msgs[0]  # goes out after the next frame (see _Reorder)
    return []


def _withheld(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    dealer.stopped = True  # from here on nothing goes out
    dealer.withholding = True  # (his only deviation: to the others he left)
    return []


def _related(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    """Values of the frame replaced by powers of its first value (related values)."""
    msg = msgs[0]
    if len(msg.values) < 2:
        return None  # nothing to relate: the deviation does not apply here
    p = dealer._seat.group.p
    x = msg.values[0]
    values = tuple([x, *(pow(x, r + 2, p) for r in range(len(msg.values) - 1))])
    return [_resign(dealer, msg, values=values)]


def _wrong_values(dealer: Any, msgs: list[Message], rng: random.Random) -> list:
    """One value (a key, a lock, a pass entry) swapped for another valid one."""
    msg = msgs[0]
    if not msg.values:
        return [_resign(dealer, msg, data=bytes(reversed(msg.data)))]
    group = dealer._seat.group
    values = list(msg.values)
    i = rng.randrange(len(values))
    values[i] = pow(values[i], 3, group.p) if msg.kind != Kind.KEYS else (values[i] * 3) % group.q
    return [_resign(dealer, msg, values=tuple(values))]


def _reorder_class(rng: random.Random) -> type:
    base = _frame_deviation("reordered", _reordered)(rng)

    class Reorder(base):  # type: ignore[misc,valid-type]
        _held: Message | None = None

        def _encode(self, messages: list[Message]) -> list[bytes]:
            held = self._held
            out = super()._encode(messages)
            if held is not None and held is self._held and out:
                self._held = None
                out.append(held.encode(self._group))
                if all(m.round_id != held.round_id for m in messages):
                    # Overtaken by another round's frames only: each round's sequence
                    # is intact (rounds overlap by design), so nothing was reordered.
                    self.cheated.discard(held.round_id)
            return out

    return Reorder


def _lie(kind: type) -> Deviation:
    """A scripted lie from tests/cheats.py (it records the decks it lied in)."""

    def make(rng: random.Random) -> type:
        return type(kind.__name__, (kind,), {"label": kind.__name__})

    return make


#: every deviation the harness draws from (table-robust adds strangers, floods, types)
DEVIATIONS: list[Deviation] = [
    _frame_deviation("forged", _forged),
    _frame_deviation("replayed", _replayed),
    _reorder_class,
    _frame_deviation("withheld", _withheld),
    _frame_deviation("related", _related),
    _frame_deviation("wrong_values", _wrong_values),
    _lie(cheats.FalsePersian),
    _lie(cheats.FalseShowdown),
    _lie(cheats.HiddenBust),
    _lie(cheats.SilentPersian),
    _lie(cheats.FalseComplaint),
    _lie(cheats.RevealingFalseComplaint),
    _lie(cheats.MinusX),
]


def session(seed: int, *, sides: list | None = None) -> str:
    """One seeded table session with one deviating phone (a guest, or the host about
    one time in four); asserts the invariants."""
    from test_table_sra import make_table, run

    rng = random.Random(seed)
    guests = rng.randint(1, 3)
    cheater = 0 if rng.random() < 0.25 else rng.randint(1, guests)
    deviation = rng.choice(DEVIATIONS)(rng)
    host, players, clock = make_table(
        guests, seed=seed, rounds=rng.randint(1, 2), turn_time=5, dealers={cheater: deviation}
    )
    host.silence_limit = 600  # the watchdog, not the heartbeat, judges a silent phone
    by_seat = {0: host, **{p.seat: p for p in players}}  # (seats go by order of joining)
    if deviation.label == "HiddenBust":
        by_seat[cheater].bot = cheats.greedy_bot
    honest = [side for seat, side in by_seat.items() if seat != cheater]
    if sides is not None:
        sides += [host, *players]  # (for a debugger)
    label = f"seed {seed}: {guests + 1} seats, seat {cheater} {deviation.label}"
    # the table's clock moves only while nothing is in flight (a loaded machine never
    # sees a watchdog fire in the middle of a protocol step); HANG guards a hung test
    run(host, players, clock, until=lambda: all(side.closed or _over(side) for side in honest))
    check = _check_host_cheat if cheater == 0 else _check_guest_cheat
    check(label, host, players, honest, cheater)
    dealer = _dealer_of(by_seat[cheater])
    for side in honest:
        if _over(side):
            _kept_nothing(label, side, dealer, cheater)
    acted = bool(getattr(dealer, "cheated", None))
    caught = (
        _caught(host, cheater)
        if cheater
        else any(
            n.code == "violation" and n.details.get("seat") in (0, None)
            for side in honest
            for n in side.notices
        )
    )
    host.close()
    for p in players:
        p.link.close(linger=0)
    verdict = "named" if caught else "unnoticed" if acted else "never acted"
    return f"{label}: {verdict}"


def _over(side: Any) -> bool:
    return side.phone is not None and side.phone.match.over


def _check_guest_cheat(label: str, host: Any, players: list, honest: list, cheater: int) -> None:
    """A guest cheated: every honest phone plays on to the end, only he is removed."""
    from test_table_sra import departures

    assert not host.closed, f"{label}: the host closed: {host.notices[-3:]}"
    left = departures(host)
    assert {s for s, _ in left} <= {cheater}, (
        f"{label}: honest dropped: {left}; host: {host.notices[-6:]}; "
        f"guests: {[(p.seat, p.closed, p.notices[-3:]) for p in players]}"
    )
    for side in honest:
        assert not side.closed and side.phone.violation is None, (
            f"{label}: seat {side.phone.seat}: {side.notices[-3:]}; host: {host.notices[-4:]}"
        )
        blamed = {n.details.get("seat") for n in side.notices if n.code in _BLAMES}
        assert blamed <= {cheater}, f"{label}: blamed {blamed}"
    results = {(p.phone.match.winner, p.phone.match.points, p.phone.match.gone) for p in honest}
    assert len(results) == 1, f"{label}: phones disagree: {results}"


def _check_host_cheat(label: str, host: Any, players: list, honest: list, cheater: int) -> None:
    """The host cheated: an honest guest either names the host and leaves or plays on;
    it never blames another guest; those who finish agree."""
    for side in honest:
        blamed = {n.details.get("seat") for n in side.notices if n.code in _BLAMES}
        assert blamed <= {0, None}, f"{label}: a guest blamed {blamed}"
    done = {
        (p.phone.match.winner, p.phone.match.points, p.phone.match.gone) for p in honest if _over(p)
    }
    assert len(done) <= 1, f"{label}: guests disagree: {done}"


def _kept_nothing(label: str, side: Any, dealer: Any, cheater: int) -> None:
    """On ``side``'s phone the cheater won no round he cheated in (void or not his),
    unless he only withheld: then he left, and a hand he decided before leaving and
    that was proven at the showdown stands (docs/protocol.md, section 4: a disconnect
    busts the round "unless decided"; a deck a player left is not audited, its claims
    stand). Leaving costs him the match either way."""
    match = side.phone.match
    decks = side.phone._decks
    cheated = {decks[d].round for d in getattr(dealer, "cheated", ()) if d in decks}
    for r in match.history:
        if r.number in cheated and r.reason != "void" and r.winner == cheater:
            fair = _left_decided(side, r, dealer, cheater) or _no_lie_went_out(r, dealer, cheater)
            assert fair, f"{label}: kept round {r.number}"
    if cheater in match.gone:
        assert match.winner != cheater, f"{label}: the leaver won the match"


def _left_decided(side: Any, result: Any, dealer: Any, cheater: int) -> bool:
    """The cheater only withheld frames (no frame of his was false), this phone removed
    him and shows why, and his hand in ``result`` was decided and proven: a player who
    left, whose held result stands like any dropout's."""
    hand = next(h for h in result.hands if h.seat == cheater)
    removed = any(
        n.code == "player_left" and n.details.get("seat") == cheater for n in side.notices
    )
    return (
        getattr(dealer, "withholding", False)
        and cheater in side.phone.match.gone
        and removed
        and hand.dropped
        and hand.shown
    )


def _no_lie_went_out(result: Any, dealer: Any, cheater: int) -> bool:
    """A HiddenBust phone deceives only itself (it sees low cards); its lie reaches the
    table only as a move its true cards forbid: a draw at 21 or over, or a hold over 21.
    If his cards, proven at the showdown, allow every move he made, he played a fair
    hand that round and may win it."""
    if getattr(dealer, "label", None) != "HiddenBust":
        return False
    hand = next(h for h in result.hands if h.seat == cheater)
    totals = [total_of(hand.cards[:i]) for i in range(2, len(hand.cards) + 1)]
    if not hand.shown or not totals or None in totals:
        return False
    *drew_at, final = (t or 0 for t in totals)
    return all(t < 21 for t in drew_at) and (final <= 21 or hand.status != "held")


def _dealer_of(side: Any) -> Any:
    phone = side.phone
    return None if phone is None else phone.dealer.current


def _caught(host: Any, cheater: int) -> bool:
    return any(
        n.details.get("seat") == cheater
        for n in host.notices
        if n.code in ("cheat_named", "player_left")
        and (n.code == "cheat_named" or n.details.get("reason") in ("cheat", "stalled"))
    )


def fresh_seed(tag: str) -> int:
    """A new seed for a parametrized test (``tag``: which one). Under pytest-xdist every
    worker collects the tests itself, so the seed comes from the run's id and the tag,
    the same on every worker (else the workers collect different tests and the run
    stops at collection); outside xdist, from the system's randomness."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    rng = random.Random(f"{run}/{tag}") if run else random.SystemRandom()
    return rng.randrange(10**9)


def seeds(fixed: list[int], fresh: int, tag: str = "seeds") -> list[int]:
    """The fixed seeds plus ``fresh`` new ones (printed by the caller)."""
    return [*fixed, *(fresh_seed(f"{tag}/{i}") for i in range(fresh))]


__all__ = ["DEVIATIONS", "DeterministicRng", "fresh_seed", "seeds", "session"]
