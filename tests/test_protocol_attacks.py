"""Attacks on the SRA protocol: each a malicious seat or host written for the purpose.

Each test checks that the attack is detected and the cheater named on every honest
seat that can see it (see docs/protocol.md for what a star relay allows). Most run on
the toy test group for speed; the group-sensitive ones also run on ffdhe2048.
"""

from __future__ import annotations

import pytest
from protocol_tools import TamperingSeat, claim_message, forged, send

from app.protocol import errors as E
from app.protocol.group import FFDHE2048, unsafe_test_group
from app.protocol.harness import LocalTable
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import RoundSpec, Seat
from app.protocol.transcript import Round

TOY = unsafe_test_group()


def honest_named(table: LocalTable, cheater: int, honest: list[int]) -> None:
    for s in honest:
        assert cheater in table.named_by(s), (s, table.codes_by(s))
        # nobody honest is blamed by an honest seat
        assert table.named_by(s) <= {cheater}, (s, table.codes_by(s))


def factory(bad_seat: int, cls: type[Seat]):
    return lambda s, c, r: (cls if s == bad_seat else Seat)(s, c, r)


# ---------------------------------------------------------------- malicious seats


def _shuffler(seat: Seat, rnd: Round, msg: Message) -> bool:
    """``msg`` is the seat's own (non-last) shuffle pass."""
    return msg.kind == Kind.SHUFFLE and rnd.order[-1] != seat.seat


class SubstitutingSeat(TamperingSeat):
    """Replaces one card of its shuffle output with a fresh subgroup element."""

    def tamper(self, rnd, msg):
        if not _shuffler(self, rnd, msg):
            return None
        values = list(msg.values)
        values[0] = pow(values[0], 3, self.group.p)  # a valid element, but not a card
        rnd.stages[rnd.order.index(self.seat)] = values
        return forged(self, msg, values=tuple(values))


class SubstitutingLastSeat(TamperingSeat):
    """As the last shuffler, outputs a value that is no card at position 1."""

    def tamper(self, rnd, msg):
        if msg.kind != Kind.SHUFFLE or rnd.order[-1] != self.seat or msg.start != 0:
            return None
        values = list(msg.values)
        values[1] = pow(values[1], 5, self.group.p)
        rnd.stages[-1][1] = values[1]
        return forged(self, msg, values=tuple(values))


class DuplicatingSeat(TamperingSeat):
    """Duplicates one card in its shuffle output."""

    def tamper(self, rnd, msg):
        if not _shuffler(self, rnd, msg):
            return None
        values = list(msg.values)
        values[1] = values[0]
        return forged(self, msg, values=tuple(values))


class NonResidueSeat(TamperingSeat):
    """Puts a value outside the QR subgroup into its shuffle output (Lipton's attack)."""

    def tamper(self, rnd, msg):
        if not _shuffler(self, rnd, msg):
            return None
        values = list(msg.values)
        values[2] = self.group.p - values[2]  # -x: Jacobi symbol -1 since p = 3 mod 4
        return forged(self, msg, values=tuple(values))


class NegatingSeat(TamperingSeat):
    """Puts x and -x into its output: an even key would map both to one value."""

    def tamper(self, rnd, msg):
        if not _shuffler(self, rnd, msg):
            return None
        values = list(msg.values)
        values[3] = self.group.p - values[2]
        return forged(self, msg, values=tuple(values))


class WrongKeySeat(TamperingSeat):
    """Broadcasts a wrong card key for the first position it reveals."""

    def tamper(self, rnd, msg):
        if msg.kind != Kind.KEYS:
            return None
        keys = list(msg.values)
        keys[0] = keys[0] % (self.group.q - 1) + 1
        return forged(self, msg, values=tuple(keys))


class WrongLockSeat(TamperingSeat):
    """Locks one position with a wrong exponent."""

    def tamper(self, rnd, msg):
        if msg.kind != Kind.LOCK or msg.start != 0:
            return None
        values = list(msg.values)
        values[0] = pow(values[0], 7, self.group.p)
        rnd.locks[rnd.order.index(self.seat)][0] = values[0]
        return forged(self, msg, values=tuple(values))


def false_claim(seat: Seat, kind: ClaimKind, codes: list[int], total: int | None = None) -> Message:
    from app.hands import oczko_total

    rnd = seat.round(1)
    mine = sorted(p for p, d in rnd.owner.items() if d == seat.seat)
    if kind == ClaimKind.PERSIAN:
        mine = mine[:2]
    total = oczko_total(codes) if total is None else total
    return claim_message(seat, rnd.round_id, kind, mine, codes, total)


def dealt_table(n: int, group=TOY, *, seed: int = 0, **kw) -> LocalTable:
    t = LocalTable(n, group, seed=seed, **kw)
    t.setup()
    order = tuple(range(n))
    t.start(RoundSpec(1, order))
    t.reveal([(j, j % n) for j in range(2 * n)], order)
    return t


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize(
    ("bad", "group"), [(0, TOY), (1, TOY), (1, FFDHE2048)], ids=["toy-0", "toy-1", "ffdhe2048-1"]
)
def test_substituted_card_in_shuffle_is_named_at_audit(bad, group):
    t = dealt_table(3, group, seat_factory=factory(bad, SubstitutingSeat))
    for s in range(3):
        if s != bad and all(p in t.seats[s].hand(1) for p in (s, s + 3)):
            t.claim(s)
    t.finish(range(3))
    honest_named(t, bad, [s for s in range(3) if s != bad])
    for s in range(3):
        if s != bad:
            assert (bad, E.BAD_SHUFFLE) in t.codes_by(s)
            assert not t.seats[s].verdict(1).ok


def test_substitution_by_last_shuffler_is_caught_when_dealt():
    t = dealt_table(3, seat_factory=factory(2, SubstitutingLastSeat))
    # position 1 belongs to seat 1: its card cannot open, it complains, the round is void
    assert t.seats[1].hand(1)[1] == -1
    honest_named(t, 2, [0, 1])
    assert all((2, E.BAD_SHUFFLE) in t.codes_by(s) for s in (0, 1))


def test_duplicated_card_is_rejected_immediately():
    t = LocalTable(3, TOY, seat_factory=factory(1, DuplicatingSeat))
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    honest_named(t, 1, [0, 2])
    assert all((1, E.DUPLICATE_VALUE) in t.codes_by(s) for s in (0, 2))


@pytest.mark.parametrize("group", [TOY, FFDHE2048], ids=["toy", "ffdhe2048"])
def test_value_outside_subgroup_is_rejected(group):
    t = LocalTable(2, group, seat_factory=factory(0, NonResidueSeat))
    t.setup()
    t.start(RoundSpec(1, (0, 1)))
    honest_named(t, 0, [1])
    assert (0, E.NOT_ELEMENT) in t.codes_by(1)


def test_x_and_minus_x_names_the_sender_not_the_next_shuffler():
    t = LocalTable(3, TOY, seat_factory=factory(0, NegatingSeat))
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    honest_named(t, 0, [1, 2])
    assert (0, E.NOT_ELEMENT) in t.codes_by(1)
    assert not t.seats[1].round(1).shuffle_sent  # nothing derived from it was released


@pytest.mark.parametrize("group", [TOY, FFDHE2048], ids=["toy", "ffdhe2048"])
def test_wrong_key_is_named_by_the_transcript_check(group):
    t = dealt_table(3, group, seat_factory=factory(2, WrongKeySeat))
    # seat 2's first KEYS message covers positions 0, 1, 3, 4: seat 0 cannot open position 0
    assert t.seats[0].hand(1)[0] == -1
    honest_named(t, 2, [0, 1])
    assert all((2, E.BAD_KEY) in t.codes_by(s) for s in (0, 1))
    assert all(not t.seats[s].verdict(1).ok for s in (0, 1))


def test_wrong_lock_is_named_by_the_transcript_check():
    t = dealt_table(3, seat_factory=factory(1, WrongLockSeat))
    assert t.seats[0].hand(1)[0] == -1
    honest_named(t, 1, [0, 2])
    assert all((1, E.BAD_LOCK) in t.codes_by(s) for s in (0, 2))


def test_false_total_is_rejected_on_sight():
    t = dealt_table(3)
    seat = t.seats[1]
    codes = [seat.hand(1)[p] for p in sorted(seat.hand(1))]
    from app.hands import oczko_total

    t.post(1, [false_claim(seat, ClaimKind.SHOWDOWN, codes, oczko_total(codes) - 1)])
    t.run()
    honest_named(t, 1, [0, 2])
    assert all((1, E.FALSE_CLAIM) in t.codes_by(s) for s in (0, 2))


@pytest.mark.parametrize("both", [True, False], ids=["both-cards", "second-card"])
def test_false_cards_claim_is_named_by_the_audit(both):
    t = dealt_table(3)
    seat = t.seats[2]
    real = [seat.hand(1)[p] for p in sorted(seat.hand(1))]
    other = [c for c in range(4, 52) if c not in real][:2]  # cards it does not hold
    fake = other if both else [real[0], other[0]]
    t.post(2, [false_claim(seat, ClaimKind.SHOWDOWN, fake)])
    t.run()
    honest_named(t, 2, [0, 1])
    assert all((2, E.FALSE_CLAIM) in t.codes_by(s) for s in (0, 1))


def test_false_persian_21_is_named_by_the_audit():
    t = dealt_table(3, seed=1)
    # a seat without a real Persian 21 (two aces are codes 0..3)
    bad = next(s.seat for s in t.seats if not all(c < 4 for c in s.hand(1).values()))
    t.post(bad, [false_claim(t.seats[bad], ClaimKind.PERSIAN, [0, 1])])
    t.run()
    honest = [s for s in range(3) if s != bad]
    honest_named(t, bad, honest)
    assert all((bad, E.FALSE_CLAIM) in t.codes_by(s) for s in honest)


def test_false_complaint_is_named():
    t = dealt_table(3)
    rnd = t.seats[1].round(1)
    t.post(1, [send(t.seats[1], Kind.COMPLAIN, rnd.spec.round_id, data=bytes([1]))])
    rnd.audit_wanted = True  # it reveals its seed, as a complainer must (else nobody does)
    t.run()
    honest_named(t, 1, [0, 2])
    assert all((1, E.FALSE_COMPLAINT) in t.codes_by(s) for s in (0, 2))


def test_host_equivocating_its_own_keys_is_named_everywhere():
    """The host sends guest 1 a wrong key and guest 2 the right one, both signed."""
    table: list[LocalTable] = []

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 0 and receiver == 1 and msg.kind == Kind.KEYS:
            host = table[0].seats[0]
            keys = list(msg.values)
            keys[0] = keys[0] % (TOY.q - 1) + 1
            alt = Message(msg.kind, msg.round_id, 0, msg.seq, msg.start, tuple(keys), msg.data)
            return alt.signed(host.identity.sign(host.table_id, alt.body(TOY))).encode(TOY)
        return frame

    t = LocalTable(3, TOY, relay=relay, seed=3)
    table.append(t)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))  # KEYS cover 1, 2, 4, 5: 1 is seat 1's
    assert t.seats[1].hand(1)[1] == -1  # guest 1's card did not open: it complained
    honest_named(t, 0, [1, 2])
    assert (0, E.BAD_KEY) in t.codes_by(1)
    assert (0, E.EQUIVOCATION) in t.codes_by(2)
    assert (1, E.FALSE_COMPLAINT) not in set(t.seats[2].verdict(1).cheaters)


def test_complaint_about_an_unlocked_position_is_named_on_sight():
    t = LocalTable(3, TOY, seed=4)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2), lock_ahead=6))
    t.post(1, [send(t.seats[1], Kind.COMPLAIN, 1, data=bytes([40]))])  # never locked
    t.run()
    honest_named(t, 1, [0, 2])
    assert all((1, E.FALSE_COMPLAINT) in t.codes_by(s) for s in (0, 2))


def _tamper(frame: bytes) -> bytes:
    b = bytearray(frame)
    b[-300] ^= 1  # inside the values
    return bytes(b)


def test_host_altering_a_relayed_message_is_named():
    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        return _tamper(frame) if sender == 1 and msg.kind == Kind.SHUFFLE else frame

    t = LocalTable(4, TOY, relay=relay)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2, 3)))
    # every guest that received the altered frame names the host (seat 0)
    honest_named(t, 0, [2, 3])
    assert all((0, E.BAD_SIGNATURE) in t.codes_by(s) for s in (2, 3))


def test_host_forging_bad_content_for_a_background_checked_frame_is_named():
    """Seat 3 checks seat 1's shuffle signature in the background; a forged frame with
    duplicates must still name the host, not seat 1."""

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 1 and receiver == 3 and msg.kind == Kind.SHUFFLE:
            vals = list(msg.values)
            vals[1] = vals[0]
            forged = Message(msg.kind, msg.round_id, 1, msg.seq, 0, tuple(vals), b"", msg.sig)
            return forged.encode(TOY)
        return frame

    t = LocalTable(4, TOY, relay=relay)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2, 3)))
    assert (0, E.BAD_SIGNATURE) in t.codes_by(3)
    # Fails if seat 3 blames seat 1, the honest sender, for the host's forgery.
    assert 1 not in t.named_by(3)


def test_host_dropping_a_relayed_message_is_named():
    dropped = []

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 2 and msg.kind == Kind.SHUFFLE and receiver == 1:
            dropped.append(msg.seq)
            return None
        return frame

    t = LocalTable(4, TOY, relay=relay)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2, 3)))
    t.reveal([(j, j % 4) for j in range(8)], (0, 1, 2, 3))
    assert dropped
    # seat 3's shuffle pass (built on the dropped input) or seat 2's next frame arrives
    # at seat 1 out of sequence: only the relay can have lost the frame in between
    assert {(0, E.SEQ_GAP), (0, E.OUT_OF_ORDER)} & t.codes_by(1)
    honest_named(t, 0, [1])


def test_host_forging_a_seat_message_is_named():
    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 1 and msg.kind == Kind.SHUFFLE:
            forged = Message(msg.kind, msg.round_id, 1, msg.seq, 0, msg.values[::-1], b"", msg.sig)
            return forged.encode(TOY)
        return frame

    t = LocalTable(3, TOY, relay=relay)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    honest_named(t, 0, [2])
    assert (0, E.BAD_SIGNATURE) in t.codes_by(2)


def test_replayed_message_from_an_earlier_round_is_named():
    t = LocalTable(3, TOY)
    t.setup()
    t.play_round(1)
    old = [f for s, f in t.frames if s == 1 and Message.decode(f, TOY).round_id == 1]
    t.start(RoundSpec(2, (0, 1, 2)))
    # the host injects an old frame of seat 1 into round 2
    t._deliver(2, old[0])
    assert (0, E.REPLAY) in t.codes_by(2)
    # a seat replaying its own old frame is named by the host, which does not relay it
    t._send(1, Message.decode(old[1], TOY))
    assert (1, E.REPLAY) in t.codes_by(0)
    assert all(e.code != E.REPLAY or e.seat == 0 for e in t.errors[2])


def test_replay_within_a_round_is_named():
    t = dealt_table(2)
    frame = next(f for s, f in t.frames if s == 1 and Message.decode(f, TOY).round_id == 1)
    t._deliver(0, frame)  # the host itself receives a duplicate from seat 1
    assert (1, E.REPLAY) in t.codes_by(0)


def test_table_goes_on_without_the_cheater():
    t = LocalTable(3, TOY, seat_factory=factory(1, DuplicatingSeat))
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    honest_named(t, 1, [0, 2])
    t.play_round(2, (0, 2))
    assert all(t.seats[s].verdict(2).ok for s in (0, 2))
