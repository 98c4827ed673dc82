"""Red-team attacks on the SRA protocol, written after the protocol was finished.

Each test plays a malicious seat or host against honest seats. The attacks here
succeeded against the first version of the protocol; the tests keep the fixes in place
(docs/protocol.md, section 5, maps them to the claims they defend). Toy group: the
group itself is not the subject of any of these attacks.
"""

from __future__ import annotations

import pytest
from protocol_tools import TamperingSeat, claim_message, forged, send

from app.hands import oczko_total
from app.protocol import errors as E
from app.protocol import reveal
from app.protocol.errors import ProtocolUsageError
from app.protocol.group import unsafe_test_group
from app.protocol.harness import LocalTable
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import RoundSpec, Seat

TOY = unsafe_test_group()


def dealt(n: int = 3, *, seed: int = 0, **kw) -> LocalTable:
    t = LocalTable(n, TOY, seed=seed, **kw)
    t.setup()
    order = tuple(range(n))
    t.start(RoundSpec(1, order))
    t.reveal([(j, j % n) for j in range(2 * n)], order)
    return t


def claim_msg(seat: Seat, kind: ClaimKind, codes: list[int]) -> Message:
    rnd = seat.round(1)
    mine = sorted(p for p, d in rnd.owner.items() if d == seat.seat)
    mine = mine[:2] if kind == ClaimKind.PERSIAN else mine
    return claim_message(seat, rnd.round_id, kind, mine, codes, oczko_total(codes))


def only_named(t: LocalTable, cheater: int, code: str, honest: list[int]) -> None:
    for s in honest:
        assert (cheater, code) in t.codes_by(s), (s, t.codes_by(s))
        assert t.named_by(s) == {cheater}, (s, t.codes_by(s))


def seeds_known_to(t: LocalTable, seat: int, round_id: int = 1) -> set[int]:
    return set(t.seats[seat].round(round_id).audits)


def no_real_persian(t: LocalTable) -> int:
    return next(s.seat for s in t.seats if not all(c < 4 for c in s.hand(1).values()))


# ------------------------------------------------------------- claims


def test_false_persian_hidden_behind_a_true_showdown_claim_is_named():
    """A false Persian 21 followed at once by a true showdown claim: the showdown claim
    used to replace the Persian one before anybody checked it, so it passed unseen."""
    t = dealt(seed=1)
    bad = no_real_persian(t)
    seat = t.seats[bad]
    true_codes = [seat.hand(1)[p] for p in sorted(seat.hand(1))]
    t.post(
        bad,
        [
            claim_msg(seat, ClaimKind.PERSIAN, [0, 1]),
            claim_msg(seat, ClaimKind.SHOWDOWN, true_codes),
        ],
    )
    t.run()
    t.finish(range(3))
    honest = [s for s in range(3) if s != bad]
    only_named(t, bad, E.FALSE_CLAIM, honest)
    assert all(not t.seats[s].verdict(1).ok for s in honest)


def test_true_showdown_after_a_caught_false_persian_does_not_blame_the_checkers():
    """The honest seats complain about a false Persian 21; a later true showdown claim
    replaced it (a cheater that delays its own AUDIT gets it in before the audit), and
    the audit then named the honest complainers. Every claim is now audited."""
    t = dealt(seed=1)
    bad = no_real_persian(t)
    seat = t.seats[bad]
    t.post(bad, [claim_msg(seat, ClaimKind.PERSIAN, [0, 1])])
    t.run()
    honest = [s for s in range(3) if s != bad]
    assert all(t.seats[s].round(1).complaints for s in honest)  # the check failed
    t.post(
        bad, [claim_msg(seat, ClaimKind.SHOWDOWN, [seat.hand(1)[p] for p in sorted(seat.hand(1))])]
    )
    t.run()
    t.finish([bad])
    only_named(t, bad, E.FALSE_CLAIM, honest)


def test_claim_key_that_contradicts_an_earlier_key_is_named_on_sight():
    t = dealt(seed=2)
    seat = t.seats[1]
    wrong = seat.round(1).secret.card_key_inv(1) % (TOY.q - 1) + 1
    first = send(seat, Kind.KEYS, 1, values=(wrong,), data=bytes([1]))  # own position 1
    good = claim_msg(seat, ClaimKind.SHOWDOWN, [seat.hand(1)[p] for p in sorted(seat.hand(1))])
    t.post(1, [first, good])
    t.run()
    only_named(t, 1, E.BAD_KEY, [0, 2])


# ------------------------------------------------------------- seed reveals


def test_an_early_audit_does_not_make_anybody_reveal():
    """A seat sends its AUDIT mid-round: everybody used to answer with its round seed,
    opening every hand and the undealt deck to a seat still to act."""
    t = dealt()
    bad = t.seats[2]
    t.post(2, reveal.send_audit(bad.core, bad.round(1)))
    t.run()
    assert seeds_known_to(t, 2) == {2}
    assert not any(t.seats[s].round(1).audit_sent for s in (0, 1))
    # the round goes on: a draw still opens for its drawer
    t.reveal([(6, 0)], (0, 1, 2))
    assert 6 in t.seats[0].hand(1)


def test_a_complainer_that_keeps_its_seed_learns_no_seed():
    """A false COMPLAIN without the complainer's own AUDIT: the honest seats used to
    reveal at once; the complainer could then keep its seed and never be judged."""
    t = dealt()
    t.post(2, [send(t.seats[2], Kind.COMPLAIN, 1, data=bytes([0]))])
    t.run()
    assert seeds_known_to(t, 2) == set()
    assert all(t.seats[s].round(1).complaints for s in (0, 1))  # the round is void
    t.reveal([(6, 0)], (0, 1, 2))
    assert 6 not in t.seats[0].hand(1)  # no more dealing in a void round
    # once it reveals its own seed, everybody reveals and it is named
    t.finish([2])
    only_named(t, 2, E.FALSE_COMPLAINT, [0, 1])


def test_a_complaint_in_a_suspended_round_reveals_nothing():
    """After a dropout the dealt cards of the suspended round stay in play; a
    complaint there (even with the complainer's seed) must not open them."""
    t = dealt(4, seed=5)
    t.drop(3)
    for s in (0, 1, 2):
        t.seats[s].suspend_round(1)
    t.start(RoundSpec(2, (0, 1, 2)))
    bad = t.seats[2]
    t.post(
        2,
        [send(bad, Kind.COMPLAIN, 1, data=bytes([0])), *reveal.send_audit(bad.core, bad.round(1))],
    )
    t.run()
    assert seeds_known_to(t, 2) == {2}
    assert not any(t.seats[s].round(1).audit_sent for s in (0, 1))


# ------------------------------------------------------------- frames for a later round


def _early_first_pass(t: LocalTable, spec: RoundSpec, seat: int) -> list[Message]:
    out = t.seats[seat].start_round(spec)
    while t.seats[seat].has_work():
        out += t.seats[seat].work()
    return out


def test_a_guest_duplicating_an_early_frame_cannot_get_the_host_blamed():
    """A guest sends a frame of a round the others have not started, twice. The host
    used to relay both (no sequence check before the round), and every other guest
    then named the honest host for the replay."""
    t = LocalTable(3, TOY, seed=6)
    t.setup()
    spec = RoundSpec(1, (1, 0, 2))
    out = _early_first_pass(t, spec, 1)
    t._send(1, out[0])
    t._send(1, out[0])
    for s in (0, 2):
        t.post(s, t.seats[s].start_round(spec))
    t.run()
    assert (1, E.REPLAY) in t.codes_by(0)
    assert t.named_by(2) <= {1}
    t.reveal([(j, (1, 0, 2)[j % 3]) for j in range(6)], (0, 1, 2), round_id=1)
    t.finish((0, 1, 2), round_id=1)
    assert all(t.seats[s].verdict(1).ok for s in (0, 2))


def test_a_guest_flooding_early_frames_is_named_not_the_host():
    t = LocalTable(3, TOY, seed=7)
    t.setup()
    spam = [send(t.seats[1], Kind.KEYS, 9, values=(5,), data=bytes([k % 52])) for k in range(300)]
    t.post(1, spam)
    t.run()
    for s in (0, 2):
        assert (1, E.OUT_OF_ORDER) in t.codes_by(s)
        assert t.named_by(s) == {1}


# ------------------------------------------------------------- escrow


def _escrow_frame(owner: Seat, holder: int, plain: bytes) -> Message:
    from app.protocol.keys import keystream

    rnd = owner.round(1)
    key = owner.core.record_key(rnd.spec.round_id, owner.seat, holder)
    ct = bytes(a ^ b for a, b in zip(plain, keystream(key, len(plain)), strict=True))
    data = bytes([1, holder]) + len(ct).to_bytes(2, "big") + ct
    return send(owner, Kind.ESCROW, rnd.spec.round_id, data=data)


def _wrong_keys_record(owner: Seat) -> bytes:
    rnd = owner.round(1)
    mine = sorted(p for p, d in rnd.owner.items() if d == owner.seat)
    return b"".join(
        bytes([p]) + (rnd.secret.card_key_inv(p) % (TOY.q - 1) + 1).to_bytes(TOY.byte_len, "big")
        for p in mine
    )


def test_an_owner_escrowing_garbage_cannot_get_its_honest_holder_named():
    """Seat 2 escrows records that do not open (random bytes; wrong keys) to seat 1,
    then drops. Seat 1 used to release them and be named ``bad_key`` everywhere (it
    even named itself); now it refuses them on arrival and names the owner."""
    for plain in (bytes(2 * (1 + TOY.byte_len)), _wrong_keys_record):
        t = dealt(seed=8)
        body = plain if isinstance(plain, bytes) else plain(t.seats[2])
        t.post(2, [_escrow_frame(t.seats[2], 1, body)])
        t.run()
        assert (2, E.BAD_KEY) in t.codes_by(1)
        t.drop(2)
        for s in (0, 1):
            t.seats[s].suspend_round(1)
        t.post(1, t.seats[1].release(1, 2))
        t.run()
        assert t.named_by(0) == set() and t.named_by(1) == {2}
        assert t.seats[0].round(1).held.get(2) is None


# ------------------------------------------------------------- host equivocation


def _equivocating_host(kind: Kind, victim: int, index: int):
    """A relay hook: the host (seat 0) sends ``victim`` another signed version of its
    own ``kind`` frame starting at position 0 (value ``index`` changed)."""
    table: list[LocalTable] = []

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 0 and receiver == victim and msg.kind == kind and msg.start == 0:
            host = table[0].seats[0]
            vals = list(msg.values)
            vals[index] = pow(vals[index], 3, TOY.p)
            alt = Message(kind, msg.round_id, 0, msg.seq, 0, tuple(vals), msg.data)
            return alt.signed(host.identity.sign(host.table_id, alt.body(TOY))).encode(TOY)
        return frame

    return table, relay


def test_host_equivocating_its_final_locks_cannot_get_the_victim_named():
    """The host, last locker, sends guest 1 a bad final lock for guest 1's card and
    guest 2 the right one. Guest 1 cannot open it and complains; guest 2's clean copy
    used to name guest 1 for a false complaint. Guest 1 now publishes the host's
    signed frame and every seat names the host."""
    table, relay = _equivocating_host(Kind.LOCK, victim=1, index=1)
    t = LocalTable(3, TOY, relay=relay, seed=9)
    table.append(t)
    t.setup()
    order = (1, 0, 2)  # lockers 1 then 0: the host's locks are the final ones
    t.start(RoundSpec(1, order))
    t.reveal([(j, j % 3) for j in range(6)], order)
    assert t.seats[1].hand(1)[1] == -1
    t.finish(order)
    assert (0, E.BAD_LOCK) in t.codes_by(1)
    assert (0, E.EQUIVOCATION) in t.codes_by(2)
    for s in (1, 2):
        assert t.named_by(s) == {0}, t.codes_by(s)
        assert (1, E.FALSE_COMPLAINT) not in set(t.seats[s].verdict(1).cheaters)


class _WrongFirstLock(TamperingSeat):
    """Locks position 0 wrongly (the same frame for everybody)."""

    def tamper(self, rnd, msg):
        if msg.kind != Kind.LOCK or msg.start != 0:
            return None
        vals = list(msg.values)
        vals[0] = pow(vals[0], 7, self.group.p)
        rnd.locks[rnd.order.index(self.seat)][0] = vals[0]
        return forged(self, msg, values=tuple(vals))


def test_host_equivocating_its_shuffle_cannot_get_the_next_shuffler_named():
    """The host shuffles first and sends guest 2 (not the next shuffler) another signed
    version of its pass, then locks a card wrongly so that the full transcript check
    runs. Guest 2 used to compare guest 1's honest pass with its own copy of the
    host's pass and name guest 1 ``bad_shuffle``."""
    table, relay = _equivocating_host(Kind.SHUFFLE, victim=2, index=5)
    t = LocalTable(
        3,
        TOY,
        relay=relay,
        seed=10,
        seat_factory=lambda s, c, r: (_WrongFirstLock if s == 0 else Seat)(s, c, r),
    )
    table.append(t)
    t.setup()
    order = (0, 1, 2)
    t.start(RoundSpec(1, order))
    t.reveal([(j, (j + 1) % 3) for j in range(6)], order)  # position 0 is guest 1's
    assert t.seats[1].hand(1)[0] == -1
    t.finish(order)
    for s in (1, 2):
        assert t.named_by(s) == {0}, t.codes_by(s)
    assert (0, E.BAD_LOCK) in t.codes_by(1)
    assert {(0, E.BAD_SHUFFLE), (0, E.BAD_LOCK)} <= t.codes_by(2)


def _versions(kind: Kind, versions: dict[int, tuple[int, int]]):
    """A relay hook: the host (seat 0) sends each receiver in ``versions`` its own
    signed version of the host's first ``kind`` frame, two values swapped (valid
    cards, only their order changed); the others get the honest frame."""
    table: list[LocalTable] = []

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if sender == 0 and receiver in versions and msg.kind == kind and msg.start == 0:
            host = table[0].seats[0]
            a, b = versions[receiver]
            vals = list(msg.values)
            vals[a], vals[b] = vals[b], vals[a]
            alt = Message(kind, msg.round_id, 0, msg.seq, 0, tuple(vals), msg.data)
            return alt.signed(host.identity.sign(host.table_id, alt.body(TOY))).encode(TOY)
        return frame

    return table, relay


@pytest.mark.parametrize(
    ("versions", "order"),
    [
        ({1: (0, 1)}, (0, 1, 2, 3)),  # the next shuffler gets another pass (issue 30)
        ({1: (0, 1), 2: (2, 3)}, (0, 1, 2, 3)),  # and an onlooker a third version
        ({1: (0, 1)}, (2, 3, 0, 1)),  # the host's pass is the last shuffler's input
    ],
)
def test_host_sending_the_next_shuffler_another_pass_is_named_not_him(versions, order):
    """Issue 30, finding 3: the host sends the seat that computes next on its pass one
    signed version and the onlookers another (the honest one). The audit of every
    other seat used to name the honest next shuffler ``bad_shuffle``. He now attests,
    in his AUDIT, the host's frames as he got them (digest and the host's signature):
    every seat judges him on that, and names the host."""
    table, relay = _versions(Kind.SHUFFLE, versions)
    t = LocalTable(4, TOY, relay=relay, seed=12)
    table.append(t)
    t.setup()
    t.start(RoundSpec(1, order))
    t.reveal([(j, order[j % 4]) for j in range(8)], order)
    t.finish(order)
    victim = order[order.index(0) + 1]
    for s in (1, 2, 3):
        assert t.named_by(s) == {0}, (s, t.codes_by(s))
        assert victim not in {c for c, _ in t.seats[s].verdict(1).cheaters}
    assert (0, E.BAD_SHUFFLE) in t.codes_by(victim)
    assert all((0, E.EQUIVOCATION) in t.codes_by(s) for s in (1, 2, 3) if s != victim)


def test_host_sending_the_first_locker_another_last_pass_is_named_not_him():
    """The host shuffles last: its streamed pass is the first locker's input (it was
    not chained into the first lock). Another version of its first chunk to the first
    locker: every seat names the host, nobody the first locker."""
    order = (2, 1, 0)  # the host shuffles last; seat 2 is the first locker
    table, relay = _versions(Kind.SHUFFLE, {2: (0, 1)})
    t = LocalTable(3, TOY, relay=relay, seed=13)
    table.append(t)
    t.setup()
    t.start(RoundSpec(1, order))
    t.reveal([(j, order[j % 3]) for j in range(6)], order)
    t.finish(order)
    for s in (1, 2):
        assert t.named_by(s) == {0}, (s, t.codes_by(s))
    assert (0, E.EQUIVOCATION) in t.codes_by(1)


def test_a_seat_attesting_a_frame_the_host_never_signed_is_named():
    """An attestation is checked against the host's signature: a guest that attests a
    made-up version of the host's pass (to escape the judgement of its own) is named."""

    class Liar(Seat):
        def work(self):
            out = super().work()
            fixed = []
            for m in out:
                if m.kind == Kind.AUDIT and len(m.data) > 32:
                    data = bytearray(m.data)
                    data[40] ^= 1  # one bit of the first attested digest
                    m = forged(self, m, data=bytes(data))
                fixed.append(m)
            return fixed

    t = LocalTable(
        3, TOY, seed=14, seat_factory=lambda s, c, r: (Liar if s == 1 else Seat)(s, c, r)
    )
    t.setup()
    order = (0, 1, 2)
    t.play_round(1, order)
    assert (1, E.BAD_AUDIT) in t.codes_by(2)
    assert t.named_by(2) == {1}, t.codes_by(2)


def test_an_audit_with_a_torn_attestation_is_named_on_sight():
    """An AUDIT's attestations are whole (sequence number, digest, signature each): a
    byte more or less is ``bad_length`` on every seat, naming its sender."""

    class Torn(Seat):
        def work(self):
            out = super().work()
            return [
                forged(self, m, data=m.data + b"\x00") if m.kind == Kind.AUDIT else m for m in out
            ]

    t = LocalTable(
        3, TOY, seed=15, seat_factory=lambda s, c, r: (Torn if s == 2 else Seat)(s, c, r)
    )
    t.setup()
    t.play_round(1, (0, 1, 2))
    for s in (0, 1):
        assert (2, E.BAD_LENGTH) in t.codes_by(s), t.codes_by(s)
        assert t.named_by(s) == {2}, t.codes_by(s)


def test_host_forging_a_background_checked_input_cannot_get_the_next_pass_named():
    """Guest 3 checks seat 1's shuffle signature in the background. The host holds
    seat 1's pass back from guest 3 until seat 2's pass is out, then forges seat 1's
    pass with a value of seat 2's: guest 3 used to reject seat 2's honest pass as
    ``value passed through unencrypted`` and name seat 2."""
    held: dict[int, bytes] = {}

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        if receiver == 3 and msg.kind == Kind.SHUFFLE and sender == 1:
            held[1] = frame
            return None
        if receiver == 3 and msg.kind == Kind.SHUFFLE and sender == 2 and 1 in held:
            real = Message.decode(held.pop(1), TOY)
            vals = list(real.values)
            vals[0] = msg.values[0]
            forged = Message(
                Kind.SHUFFLE, real.round_id, 1, real.seq, 0, tuple(vals), b"", real.sig
            )
            t._deliver(3, forged.encode(TOY))
        return frame

    t = LocalTable(4, TOY, relay=relay, seed=11)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2, 3)))
    assert (0, E.BAD_SIGNATURE) in t.codes_by(3)
    assert t.named_by(3) == {0}, t.codes_by(3)


def test_an_early_release_does_not_open_a_held_hand_before_the_dropout():
    """Holder 1 releases seat 2's escrow while seat 2 is still playing (seat 0 is still
    to act): seat 0's phone used to open seat 2's hand at once. It now keeps the
    release until the round is suspended for a dropout."""
    t = dealt(seed=12)
    t.post(2, t.seats[2].escrow(1, [1]))
    t.run()
    hand2 = tuple(t.seats[2].hand(1)[p] for p in sorted(t.seats[2].hand(1)))
    t.post(1, t.seats[1].release(1, 2))
    t.run()
    assert t.seats[0].round(1).held.get(2) is None
    assert 2 not in t.seats[0].round(1).keys[2]  # seat 2's own key is not applied
    t.drop(2)
    t.seats[0].suspend_round(1)
    t.run()
    assert t.seats[0].round(1).held.get(2) == hand2


def test_a_release_at_the_showdown_opens_once_the_owner_dropped_here():
    """At the showdown no round is suspended: the release is opened once this seat
    learns that the owner dropped (``dropped``), and not before."""
    t = dealt(seed=13)
    t.post(2, t.seats[2].escrow(1, [1]))
    t.run()
    hand2 = tuple(t.seats[2].hand(1)[p] for p in sorted(t.seats[2].hand(1)))
    t.post(1, t.seats[1].release(1, 2))
    t.run()
    assert t.seats[0].round(1).held.get(2) is None  # kept back: seat 2 has not dropped here
    t.drop(2)
    t.seats[0].dropped(2)
    t.run()
    assert t.seats[0].round(1).held.get(2) == hand2
    assert not t.seats[0].round(1).suspended


# ------------------------------------------------------------- links and tables


def test_a_guest_posing_as_another_seat_gets_itself_named_not_that_seat():
    """Guest 2 sends the host a frame that claims to come from seat 1 (it cannot sign
    it). The host used to name seat 1 for the bad signature; it now names the link the
    frame came in on, and relays nothing."""
    t = dealt()
    rnd = t.seats[2].round(1)
    fake = Message(Kind.KEYS, 1, 1, rnd.recv_seq.get(1, 0), 0, (5,), bytes([7]), bytes(80))
    t._send(2, fake)
    assert t.named_by(0) == {2}, t.codes_by(0)
    assert t.named_by(1) == set()


def test_frames_of_another_table_with_the_same_identities_are_rejected():
    """Seats that reuse their identities at a new table used to get the same table id:
    the host could replay the old table's signed frames, and the audit would name
    their honest senders. The table id now binds the fresh seed commitments too."""
    a = LocalTable(3, TOY, seed=13)
    a.setup()
    a.play_round(1)
    ids = [s.identity for s in a.seats]
    b = LocalTable(3, TOY, seed=14, seat_factory=lambda s, c, r: Seat(s, c, r, identity=ids[s]))
    b.setup()
    assert a.seats[0].table_id != b.seats[0].table_id
    b.start(RoundSpec(1, (0, 1, 2), lock_ahead=6))
    nxt = b.seats[2].round(1).recv_seq[1]
    old = next(
        f
        for s, f in a.frames
        if s == 1 and (Message.decode(f, TOY).round_id, Message.decode(f, TOY).seq) == (1, nxt)
    )
    b._deliver(2, old)  # the host injects seat 1's next frame from the old table
    assert b.codes_by(2) == {(0, E.BAD_SIGNATURE)}


def test_a_rogue_hello_with_another_seat_s_key_is_refused_by_the_host():
    """Guest 2 announces seat 1's signing key as its own (it cannot prove possession)."""
    t = LocalTable(3, TOY, seed=15)
    own = t.seats[2].hello()[0]
    victim_pub = t.seats[1].identity.sign_pub
    rogue = Message(Kind.HELLO, 0, 2, 0, 0, (victim_pub, own.values[1]), own.data, own.sig)
    t._send(2, rogue)
    assert t.named_by(0) == {2} and t.named_by(1) == set()
    assert 2 not in t.seats[1].core.setup.pubs


# ------------------------------------------------------------- exponent sizes


def test_default_exponents_are_full_size():
    """No exponent is shortened unless ``shuffle_bits`` asks for it: shuffle keys, card
    keys, lock exponents and signing nonces all have about the bit length of q."""
    from app.protocol.group import FFDHE2048
    from app.protocol.keys import DeterministicRng, Identity, RoundSecret

    qbits = FFDHE2048.q.bit_length()
    for i in range(16):
        sec = RoundSecret(FFDHE2048, bytes([i]) * 32, 1)
        exps = [sec.shuffle_key, sec.card_key(i), sec.lock_exponent(i), sec.card_key_inv(i)]
        assert all(e.bit_length() >= qbits - 24 for e in exps), [e.bit_length() for e in exps]
    me = Identity.generate(FFDHE2048, DeterministicRng(3))
    me.precompute(8)
    assert all(r.bit_length() >= qbits - 24 for r, _ in me.nonces._ready)
    assert me.sign_secret.bit_length() >= qbits - 24


def test_a_late_frame_after_the_audit_names_its_sender_not_the_host():
    """Seat 2 sends a new signed frame for a round a guest has already audited (the host
    relays it while its own audit still runs). The guest used to call it a replay and
    name the host."""
    t = LocalTable(3, TOY, seed=16)
    t.setup()
    t.play_round(1)
    late = send(t.seats[2], Kind.COMPLAIN, 1, data=bytes([0]))
    t._deliver(1, late.encode(TOY))  # as relayed by a host that has not closed round 1
    assert t.codes_by(1) == {(2, E.OUT_OF_ORDER)}
    t._deliver(1, late.encode(TOY))  # the same frame again: that is the relay's replay
    assert (0, E.REPLAY) in t.codes_by(1)


def test_a_false_claim_in_a_suspended_round_does_not_open_the_checkers_hands():
    """After a dropout, seat 2 makes a false claim in the suspended round; the honest
    seats' checks fail and they complain. They used to reveal their own seeds with
    the complaint - opening their own cards, still in play, to seat 2."""
    t = dealt(4, seed=17)
    t.drop(3)
    for s in (0, 1, 2):
        t.seats[s].suspend_round(1)
    seat = t.seats[2]
    real = [seat.hand(1)[p] for p in sorted(seat.hand(1))]
    fake = [c for c in range(4, 52) if c not in real][:2]
    t.post(2, [claim_msg(seat, ClaimKind.SHOWDOWN, fake)])
    t.run()
    assert all(t.seats[s].round(1).complaints for s in (0, 1))
    assert seeds_known_to(t, 2) == set()


def test_a_guest_sending_its_pass_before_its_input_cannot_get_the_host_named():
    """Guest 2 sends a (signed) shuffle pass before seat 1's pass, its input, exists.
    The host used to relay it (content is each seat's check) and every other guest,
    missing the input, named the host for a lost frame. The host now refuses to relay
    frames whose input it has not relayed itself, and names the sender."""
    t = LocalTable(3, TOY, seed=18)
    t.setup()
    spec = RoundSpec(1, (0, 1, 2))
    t.commit_only(spec)  # no pass sent yet
    early = send(t.seats[2], Kind.SHUFFLE, 1, values=tuple(pow(4, k, TOY.p) for k in range(2, 54)))
    t._send(2, early)
    assert (2, E.OUT_OF_ORDER) in t.codes_by(0)
    assert t.named_by(1) == set()


# ------------------------------------------------------------- set-up


def test_the_fingerprint_cannot_be_ground_from_the_public_keys():
    """The fingerprint used to be the table id mod 10^6, a function of the public keys
    the MITM host chooses: it could grind fake keys (one modular multiplication each)
    until both victims saw the same 6 digits. It now also covers the table seeds,
    which each seat reveals only after it has every HELLO (commit-reveal), so the host
    must fix its fake keys before it can compute any victim's code."""
    t = LocalTable(3, TOY, seed=19)
    for s in t.seats:
        t.post(s.seat, s.hello())
    # deliver the HELLOs only: every seat knows all keys, no seed is revealed yet
    hellos = [(s, m) for s, m in t.queue if m.kind == Kind.HELLO]
    t.queue = []
    for s, m in hellos:
        for r in range(3):
            if r != s:
                t.seats[r].handle(m)
    assert all(s.table_id for s in t.seats)
    with pytest.raises(ProtocolUsageError):
        _ = t.seats[1].fingerprint  # not computable from the keys alone
    # the same keys with other seeds give another code
    codes = []
    ids = [s.identity for s in t.seats]
    for seed in (20, 21):
        u = LocalTable(
            3, TOY, seed=seed, seat_factory=lambda s, c, r: Seat(s, c, r, identity=ids[s])
        )
        u.setup()
        assert len({s.fingerprint for s in u.seats}) == 1
        codes.append(u.seats[0].fingerprint)
    assert codes[0] != codes[1]


def test_escrow_works_while_the_next_round_is_preshuffled():
    t = dealt(seed=22)
    t.start(RoundSpec(2, (1, 2, 0)))  # the next deck shuffles in the background
    hand2 = tuple(t.seats[2].hand(1)[p] for p in sorted(t.seats[2].hand(1)))
    t.post(2, t.seats[2].escrow(1, [1]))
    t.run()
    assert t.seats[1].round(1).escrows[(2, 1)] and not t.errors[1]
    t.drop(2)
    for s in (0, 1):
        t.seats[s].suspend_round(1)
    t.post(1, t.seats[1].release(1, 2))
    t.run()
    assert t.seats[0].round(1).held.get(2) == hand2


# ------------------------------------------------------------- bound permutations


class _Swapped:
    """A round secret whose permutation swaps two positions (all else honest)."""

    def __init__(self, honest) -> None:
        self._honest = honest

    def __getattr__(self, name: str):
        return getattr(self._honest, name)

    def permutation(self, n: int) -> tuple[int, ...]:
        perm = list(self._honest.permutation(n))
        perm[0], perm[1] = perm[1], perm[0]
        return tuple(perm)


def test_a_pass_reordered_against_the_committed_seed_is_named():
    """Issue 13, finding 3: the audit compared each pass with its input only as a
    multiset, so a last shuffler could place cards where it liked (it found them by
    related values, or ground a seed). Each pass is now checked at its exact
    positions against the permutation of the seed bound before the shuffle."""

    class Reorders(Seat):
        def start_round(self, spec):
            out = super().start_round(spec)
            rnd = self.round(spec.round_id)
            rnd.secret = _Swapped(rnd.secret)
            return out

    t = LocalTable(
        3, TOY, seed=31, seat_factory=lambda s, c, r: (Reorders if s == 2 else Seat)(s, c, r)
    )
    t.setup()
    t.play_round(1)
    only_named(t, 2, E.BAD_SHUFFLE, [0, 1])


def test_a_seed_other_than_the_committed_one_is_refused_and_named():
    """A seat that reveals another seed than the one it bound itself to at the start of
    the round (one ground to fit what it saw) is named on sight."""
    from app.protocol.keys import RoundSecret

    t = dealt(3, seed=32)
    rnd = t.seats[2].round(1)
    rnd.secret = RoundSecret(TOY, bytes(32), 1)
    t.finish([0, 1, 2])
    for s in (0, 1):
        assert (2, E.COMMIT_MISMATCH) in t.codes_by(s)
        assert t.named_by(s) == {2}


def test_the_first_pass_waits_for_every_seed_to_be_bound():
    """The first shuffler releases nothing before every seat's commitment is in; a
    commitment after the first pass is refused (too late to bind anything)."""
    t = LocalTable(3, TOY, seed=33)
    t.setup()
    spec = RoundSpec(1, (0, 1, 2))
    first = t.seats[0].start_round(spec)
    late = [t.seats[s].start_round(spec) for s in (1, 2)]
    while t.seats[0].has_work():
        first += t.seats[0].work()
    assert [m.kind for m in first] == [Kind.COMMIT]  # no pass without the others' seeds
    for msgs in late:
        for m in msgs:
            t.seats[0].handle(m)
    while t.seats[0].has_work():
        first += t.seats[0].work()
    assert Kind.SHUFFLE in [m.kind for m in first]
