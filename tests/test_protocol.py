"""SRA protocol: the group, encodings, keys, messages, honest rounds, dropouts, validation."""

from __future__ import annotations

import hashlib
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from protocol_tools import send

from app.native.sra import jacobi
from app.protocol import errors as E
from app.protocol import escrow
from app.protocol.encoding import DECK_SIZE, CardEncoding
from app.protocol.errors import ProtocolUsageError, ProtocolViolation
from app.protocol.group import (
    FFDHE2048,
    FFDHE3072,
    UnknownGroup,
    group_by_id,
    group_by_name,
    group_for_prime,
    unsafe_test_group,
)
from app.protocol.harness import LocalTable
from app.protocol.keys import DeterministicRng, Identity, RoundSecret, verify
from app.protocol.messages import ClaimKind, Kind, Message
from app.protocol.seat import RoundSpec, Seat, TableConfig

TOY = unsafe_test_group()


# ---------------------------------------------------------------- the group


def _miller_rabin(n: int, rounds: int = 16) -> bool:
    if n % 2 == 0:
        return n == 2
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    rng = random.Random(n)
    for _ in range(rounds):
        x = pow(rng.randrange(2, n - 1), d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _rfc7919_prime(bits: int, x: int) -> int:
    """p = 2^b - 2^(b-64) + ([2^(b-130) e] + X) * 2^64 - 1 (RFC 7919, appendix A)."""
    s, t, k = 0, 1 << (bits - 130 + 64), 0
    while t:  # floor(2^(b-130) e) via the series of 1/k!, with 64 guard bits
        s += t
        k += 1
        t //= k
    return 2**bits - 2 ** (bits - 64) + ((s >> 64) + x) * 2**64 - 1


@pytest.mark.parametrize(
    ("group", "x", "head", "tail"),
    [
        (FFDHE2048, 560316, "FFFFFFFFFFFFFFFFADF85458A2BB4A9A", "886B423861285C97FFFFFFFFFFFFFFFF"),
        (
            FFDHE3072,
            2625351,
            "FFFFFFFFFFFFFFFFADF85458A2BB4A9A",
            "25E41D2B66C62E37FFFFFFFFFFFFFFFF",
        ),
    ],
)
def test_rfc7919_primes_are_the_published_safe_primes(group, x, head, tail):
    assert group.p == _rfc7919_prime(group.bits, x)
    text = f"{group.p:X}"
    assert text.startswith(head) and text.endswith(tail)
    assert _miller_rabin(group.p, 8) and _miller_rabin(group.q, 8)
    assert group.p == 2 * group.q + 1 and group.production
    assert pow(group.g, group.q, group.p) == 1 and group.g != 1  # g generates the QR subgroup


def test_only_the_fixed_primes_are_accepted():
    assert group_by_name("ffdhe2048") is FFDHE2048 and group_by_name("ffdhe3072") is FFDHE3072
    assert group_for_prime(FFDHE3072.p) is FFDHE3072
    assert group_by_id(FFDHE2048.gid) is FFDHE2048
    for bad in (TOY.p, FFDHE2048.p + 2, 2**127 - 1):
        with pytest.raises(UnknownGroup):
            group_for_prime(bad)
    with pytest.raises(UnknownGroup):
        group_by_name(TOY.name)
    with pytest.raises(UnknownGroup):
        group_by_id(TOY.gid)
    assert not TOY.production and _miller_rabin(TOY.p) and _miller_rabin(TOY.q)


@given(st.integers(min_value=-5, max_value=2**600))
def test_is_element_is_the_legendre_test(c):
    p = TOY.p
    expected = 1 < c < p - 1 and pow(c, TOY.q, p) == 1
    assert TOY.is_element(c) == expected
    if 0 < c < p:
        assert jacobi(c, p) == (1 if pow(c, TOY.q, p) == 1 else -1)


def test_is_element_on_the_real_group_edges():
    p = FFDHE2048.p
    assert not any(FFDHE2048.is_element(v) for v in (0, 1, p - 1, p, p + 4, -4, 4.0))
    assert FFDHE2048.is_element(4) and not FFDHE2048.is_element(p - 4)


# ---------------------------------------------------------------- encodings and keys


def test_card_encodings_are_distinct_squares_from_the_joint_seed():
    enc = CardEncoding.derive(FFDHE2048, b"s" * 32, 7)
    assert len(set(enc.values)) == DECK_SIZE
    assert all(FFDHE2048.is_element(v) and v.bit_length() > 2000 for v in enc.values)
    assert [enc.card_of(v) for v in enc.values] == list(range(DECK_SIZE))
    assert CardEncoding.derive(FFDHE2048, b"s" * 32, 7) == enc
    assert CardEncoding.derive(FFDHE2048, b"s" * 32, 8).values != enc.values
    assert CardEncoding.derive(FFDHE2048, b"t" * 32, 7).values != enc.values


@given(st.binary(min_size=32, max_size=32), st.integers(0, 51))
def test_round_keys_are_invertible_and_fuse_unlock_and_lock(seed, j):
    sec = RoundSecret(TOY, seed, 3)
    q = TOY.q
    k, e = sec.shuffle_key, sec.card_key(j)
    assert 0 < k < q and 0 < e < q
    assert k * sec.shuffle_key_inv % q == 1 and e * sec.card_key_inv(j) % q == 1
    m = 4
    assert pow(pow(m, k, TOY.p), sec.lock_exponent(j), TOY.p) == pow(m, e, TOY.p)
    assert sorted(sec.permutation(DECK_SIZE)) == list(range(DECK_SIZE))


@given(st.binary(min_size=32, max_size=32), st.integers(0, 51))
def test_every_released_exponent_is_even_so_non_residues_come_out_as_squares(seed, j):
    sec = RoundSecret(TOY, seed, 1)
    x = TOY.p - 4  # a non-residue
    for e in (sec.shuffle_key, sec.card_key(j), sec.lock_exponent(j)):
        assert e % 2 == 0
        assert TOY.is_element(pow(x, e, TOY.p))
    assert RoundSecret(TOY, seed, 1, shuffle_bits=256).shuffle_key % 2 == 0


def test_short_shuffle_keys_have_the_requested_length():
    sec = RoundSecret(FFDHE2048, b"k" * 32, 1, shuffle_bits=320)
    assert sec.shuffle_key.bit_length() == 320
    with pytest.raises(ValueError):
        _ = RoundSecret(FFDHE2048, b"k" * 32, 1, shuffle_bits=128).shuffle_key


def test_schnorr_signatures():
    a = Identity.generate(TOY, DeterministicRng(1))
    b = Identity.generate(TOY, DeterministicRng(2))
    sig = a.sign(b"ctx", b"msg")
    assert verify(TOY, a.sign_pub, b"ctx", b"msg", sig)
    assert not verify(TOY, b.sign_pub, b"ctx", b"msg", sig)
    assert not verify(TOY, a.sign_pub, b"ctx2", b"msg", sig)
    assert not verify(TOY, a.sign_pub, b"ctx", b"msh", sig)
    assert not verify(TOY, a.sign_pub, b"ctx", b"msg", sig[:-1])
    assert a.pairwise_key(b.dh_pub) == b.pairwise_key(a.dh_pub)


def test_schnorr_signature_on_the_real_group():
    a = Identity.generate(FFDHE2048, DeterministicRng(1))
    a.precompute(1)
    sig = a.sign(b"ctx", b"msg")
    assert a.nonces_left == 0 and len(sig) == 16 + 256
    assert verify(FFDHE2048, a.sign_pub, b"ctx", b"msg", sig)


# ---------------------------------------------------------------- messages


@given(
    kind=st.sampled_from(list(Kind)),
    round_id=st.integers(0, 2**64 - 1),
    sender=st.integers(0, 6),
    seq=st.integers(0, 65535),
    start=st.integers(0, 65535),
    values=st.lists(st.integers(0, TOY.p - 1), max_size=5),
    data=st.binary(max_size=60),
)
def test_message_round_trip(kind, round_id, sender, seq, start, values, data):
    msg = Message(kind, round_id, sender, seq, start, tuple(values), data, bytes(80))
    frame = msg.encode(TOY)
    assert len(frame) == msg.wire_len(TOY)
    assert Message.decode(frame, TOY) == msg


@pytest.mark.parametrize(
    "mangle",
    [
        lambda f: f[:10],
        lambda f: f[:-1],
        lambda f: f + b"\0",
        lambda f: bytes([9]) + f[1:],  # version
        lambda f: f[:1] + bytes([FFDHE2048.gid]) + f[2:],  # another group
        lambda f: f[:2] + bytes([99]) + f[3:],  # kind
        lambda f: b"",
    ],
)
def test_malformed_frames_are_rejected(mangle):
    frame = Message(Kind.SHUFFLE, 1, 2, 0, 0, (4, 9), b"", bytes(80)).encode(TOY)
    with pytest.raises(ProtocolViolation) as exc:
        Message.decode(mangle(frame), TOY)
    assert exc.value.code == E.BAD_FRAME


# ---------------------------------------------------------------- honest rounds


def _check_round(t: LocalTable, round_id: int, order: tuple[int, ...]) -> None:
    verdicts = t.verdicts(round_id)
    decks = {v.deck for s, v in verdicts.items() if s in order}
    assert all(verdicts[s].ok for s in order), {s: t.codes_by(s) for s in order}
    assert len(decks) == 1
    deck = decks.pop()
    assert sorted(deck) == list(range(DECK_SIZE))  # every card exactly once
    dealt = []
    for s in order:
        hand = t.seats[s].round(round_id).hand
        owned = sorted(p for p, d in t.seats[s].round(round_id).owner.items() if d == s)
        assert sorted(hand) == owned  # each seat opened exactly its own positions
        assert all(hand[p] == deck[p] for p in hand)
        dealt += list(hand.values())
    assert len(dealt) == len(set(dealt)) == 2 * len(order)
    assert all(not t.errors[s] for s in order)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_honest_rounds_toy_group(n):
    t = LocalTable(n, TOY, seed=n)
    t.setup()
    assert len({s.fingerprint for s in t.seats}) == 1
    t.play_round(1)
    _check_round(t, 1, tuple(range(n)))
    order = tuple((i + 1) % n for i in range(n))  # next round, next first seat
    t.play_round(2, order)
    _check_round(t, 2, order)


# (seven seats in the real group cost seconds: the `net` tier, with the tables over TCP
# that pay the same; two seats in the real group stay in the unit tier)
@pytest.mark.parametrize("n", [2, pytest.param(7, marks=pytest.mark.net)])
def test_honest_round_ffdhe2048(n):
    t = LocalTable(n, FFDHE2048, seed=11)
    t.setup()
    t.play_round(1)
    _check_round(t, 1, tuple(range(n)))


def test_nobody_else_learns_a_card_before_the_showdown():
    t = LocalTable(3, TOY, seed=5)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    rnds = [s.round(1) for s in t.seats]
    for s in range(3):
        for p, owner in rnds[s].owner.items():
            if owner != s:
                # only the owner's own key is missing, and without it the value is no card
                assert owner not in rnds[s].keys[p]
                exp = TOY.prod_exp(rnds[s].keys[p].values())
                assert rnds[s].enc.card_of(pow(rnds[s].final[p], exp, TOY.p)) is None
    # after the showdown claims everyone agrees on every hand
    for s in range(3):
        t.claim(s)
    for s in range(3):
        for other in range(3):
            if other != s:  # a seat does not record its own claim
                assert dict(rnds[s].claims[other].pairs) == t.seats[other].hand(1)
    assert all(s.verdict(1) is None or s.verdict(1).ok for s in t.seats)


def test_shuffle_pass_in_parts_is_encrypted_as_it_arrives():
    t = LocalTable(3, TOY, seed=6)
    t.setup()
    spec = RoundSpec(1, (0, 1, 2), shuffle_parts=3)
    t.commit_only(spec)  # every seat binds its seed first
    first = []
    while t.seats[0].has_work():
        first += t.seats[0].work()
    assert [len(m.values) for m in first] == [17, 17, 18]  # released together
    nxt = t.seats[1]
    nxt.handle(first[0])
    t.seats[2].handle(first[0])
    while nxt.has_work():  # (in bounded steps: shuffle.ENCRYPT_PER_STEP cards each)
        nxt.work()
    assert len(nxt.round(1).my_encrypted) == 17  # part 1 encrypted, parts 2-3 in flight
    assert not nxt.round(1).shuffle_sent
    for m in first[1:]:
        nxt.handle(m)
        t.seats[2].handle(m)
    t.run()
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    t.finish((0, 1, 2))
    assert all(s.verdict(1).ok for s in t.seats)


def test_lock_only_what_is_needed_and_extend_on_demand():
    t = LocalTable(2, TOY, seed=3)
    t.setup()
    t.start(RoundSpec(1, (0, 1), lock_ahead=4))
    assert all(len(s.round(1).final) == 4 for s in t.seats)
    t.reveal([(j, j % 2) for j in range(4)], (0, 1))
    t.reveal([(9, 0)], (0, 1))  # a draw beyond the locked region locks up to it
    assert all(len(s.round(1).final) == 10 for s in t.seats)
    assert 9 in t.seats[0].hand(1)
    t.finish((0, 1))
    assert all(s.verdict(1).ok for s in t.seats)


def test_persian_21_claim_is_accepted_when_true():
    # (a seat holds two aces in about 1 deal of 110: 353 is the first seed that deals them,
    # found by this loop run from 0, which cost 350 set-ups each run; should the dealing
    # change, the search goes on from there)
    for seed in range(353, 2353):
        t = LocalTable(2, TOY, seed=seed)
        t.setup()
        t.start(RoundSpec(1, (0, 1), lock_ahead=4))
        t.reveal([(j, j % 2) for j in range(4)], (0, 1))
        holder = [s.seat for s in t.seats if all(c < 4 for c in s.hand(1).values())]
        if holder:
            break
    t.claim(holder[0], ClaimKind.PERSIAN)
    t.finish((0, 1))
    assert all(s.verdict(1).ok for s in t.seats) and not any(t.errors.values())
    other = 1 - holder[0]
    assert t.seats[other].round(1).claims[holder[0]].kind == ClaimKind.PERSIAN


def test_next_round_preshuffled_while_the_current_round_is_played():
    t = LocalTable(3, TOY, seed=8)
    t.setup()
    order = (0, 1, 2)
    t.start(RoundSpec(1, order))
    t.start(RoundSpec(2, (1, 2, 0)))  # round 2 shuffles in the background
    assert all(len(s.round(2).stages[1]) == DECK_SIZE for s in t.seats)
    t.reveal([(j, j % 3) for j in range(6)], order)  # defaults to the latest round...
    t2 = [s.hand(2) for s in t.seats]
    assert all(len(h) == 2 for h in t2)
    for s in t.seats:  # ...so name round 1 explicitly while it is played
        t.post(s.seat, s.reveal(1, [(j, j % 3) for j in range(6)]))
    t.run()
    assert all(len(s.hand(1)) == 2 for s in t.seats)
    for s in t.seats:
        t.post(s.seat, s.finish_round(1))
    t.run()
    assert all(s.verdict(1).ok for s in t.seats)
    assert all(s.verdict(2) is None for s in t.seats)


def test_dropout_fresh_shuffle_and_escrowed_held_result():
    t = LocalTable(3, TOY, seed=21)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    # turn order 1, 2, 0: seat 1 holds; then seat 2 holds and escrows to seat 1
    t.post(2, t.seats[2].escrow(1, [1]))
    t.run()
    hand2 = tuple(t.seats[2].hand(1)[p] for p in sorted(t.seats[2].hand(1)))
    t.drop(2)  # seat 2 disconnects while seat 0 is still to act
    for s in (0, 1):
        t.seats[s].suspend_round(1)
    assert t.seats[0].round(1).held.get(2) is None
    assert 2 not in t.seats[0].round(1).released
    # the others go on from a fresh shuffle among themselves
    t.start(RoundSpec(2, (0, 1)))
    t.reveal([(0, 0)], (0, 1))
    assert 0 in t.seats[0].hand(1)
    # showdown: the finished seat releases the escrow, everyone opens seat 2's hand
    t.post(1, t.seats[1].release(1, 2))
    t.run()
    assert t.seats[0].round(1).held.get(2) == hand2
    assert t.seats[1].round(1).held.get(2) == hand2
    for s in (0, 1):
        t.post(s, t.seats[s].claim(1, ClaimKind.SHOWDOWN))
    t.claim(0)
    t.finish((0, 1))
    for s in (0, 1):
        assert t.seats[s].verdict(2).ok
        t.seats[s].close_round(1)
        assert not t.seats[s].verdict(1).ok and not t.errors[s]


def test_a_card_a_dropout_cut_off_is_voided_and_the_drawer_still_proves_his_hand():
    t = LocalTable(3, TOY, seed=23)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    # Seat 0 draws position 6; seat 2 drops before its key for it goes out.
    for s in (0, 1):
        t.post(s, t.seats[s].reveal(1, [(6, 0)]))
    t.drop(2)
    t.run()
    assert 6 not in t.seats[0].hand(1)  # it can never open
    assert not t.seats[0].gave_key(1, 6, 2) and t.seats[0].gave_key(1, 6, 1)
    with pytest.raises(ProtocolUsageError):
        t.seats[0].claim(1, ClaimKind.SHOWDOWN)  # unprovable as it stands
    for s in (0, 1):
        with pytest.raises(ProtocolUsageError):  # only a dealt position can be voided
            t.seats[s].suspend_round(1, [7])
        t.seats[s].suspend_round(1, [6])
    assert t.seats[1].round(1).owner.get(6) is None
    # The drawer proves the two cards he kept; the other seat accepts the proof.
    t.post(0, t.seats[0].claim(1, ClaimKind.SHOWDOWN))
    t.run()
    assert t.seats[1].claimed_cards(1, 0) == t.seats[0].hand(1)
    assert sorted(t.seats[1].claimed_cards(1, 0)) == [0, 3]
    assert not t.errors[0] and not t.errors[1]


def test_a_claim_of_a_voided_card_is_a_false_claim():
    t = LocalTable(3, TOY, seed=24)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    t.reveal([(6, 0)], (0, 1, 2))  # this card opens for seat 0...
    assert 6 in t.seats[0].hand(1)
    t.seats[1].suspend_round(1, [6])  # ...but seat 1 was told it is voided
    t.post(0, t.seats[0].claim(1, ClaimKind.SHOWDOWN))
    t.run()
    assert (0, E.FALSE_CLAIM) in t.codes_by(1)


def test_escrow_only_reaches_the_named_holders():
    t = LocalTable(3, TOY, seed=4)
    t.setup()
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    t.post(2, t.seats[2].escrow(1, [1]))
    t.run()
    assert t.seats[0].release(1, 2) == []  # seat 0 holds no record for seat 2
    ct = t.seats[0].round(1).escrows[(2, 1)]
    key = hashlib.shake_256(b"guess").digest(32)
    with pytest.raises(ProtocolViolation):
        escrow.apply_release(t.seats[0].core, t.seats[0].round(1), 2, 1, key)
    assert len(ct) == 2 * (1 + TOY.byte_len)
    # the only record keys seat 0 can derive (its own pairs with 2 and 1) do not open it
    rnd0 = t.seats[0].round(1)
    for mine in (t.seats[0].core.record_key(1, 2, 0), t.seats[0].core.record_key(1, 0, 1)):
        assert escrow.open_record(t.seats[0].core, rnd0, 2, ct, mine) is None
    # while holder 1's key does
    assert escrow.open_record(
        t.seats[1].core, t.seats[1].round(1), 2, ct, t.seats[1].core.record_key(1, 2, 1)
    )


# ---------------------------------------------------------------- validation


def _table_at_shuffle(n: int = 3) -> LocalTable:
    t = LocalTable(n, TOY, seed=2)
    t.setup()
    return t


def _signed(seat: Seat, kind: Kind, round_id: int, **fields) -> Message:
    return send(seat, kind, round_id, **fields)


@pytest.mark.parametrize(
    ("values", "code"),
    [
        ((0,), E.NOT_ELEMENT),
        ((1,), E.NOT_ELEMENT),
        ((TOY.p - 1,), E.NOT_ELEMENT),
        ((TOY.p - 4,), E.NOT_ELEMENT),  # Jacobi symbol -1
        ((TOY.p + 4,), E.NOT_ELEMENT),
        ((), E.BAD_LENGTH),
        ((16, 16), E.DUPLICATE_VALUE),
        (tuple(pow(4, k, TOY.p) for k in range(2, 55)), E.BAD_LENGTH),
    ],
)
def test_shuffle_values_are_validated(values, code):
    t = _table_at_shuffle()
    t.commit_only(RoundSpec(1, (0, 1, 2)))
    msg = _signed(t.seats[0], Kind.SHUFFLE, 1, values=values)
    # range, length and duplicates are checked on arrival; the Jacobi test may run in
    # the background (even keys keep a non-residue from leaking meanwhile)
    for seat in t.seats[1:]:
        try:
            seat.handle(msg)
            while seat.has_work():
                seat.work()
            found = {(e.seat, e.code) for e in seat.accusations}
        except ProtocolViolation as exc:
            found = {(exc.seat, exc.code)}
        assert (0, code) in found


def test_message_order_and_senders_are_validated():
    t = _table_at_shuffle()
    t.commit_only(RoundSpec(1, (0, 1, 2)))
    # seat 1 cannot shuffle before seat 0
    early = _signed(t.seats[1], Kind.SHUFFLE, 1, values=(16,))
    with pytest.raises(ProtocolViolation) as exc:
        t.seats[0].handle(early)
    assert exc.value.code == E.OUT_OF_ORDER
    # the last shuffler never locks
    lock = _signed(t.seats[2], Kind.LOCK, 1, values=(16,))
    with pytest.raises(ProtocolViolation) as exc:
        t.seats[0].handle(lock)
    assert (exc.value.seat, exc.value.code) == (2, E.WRONG_SENDER)
    # a seat outside the round
    t2 = _table_at_shuffle(4)
    t2.commit_only(RoundSpec(1, (0, 1, 2)))
    with pytest.raises(ProtocolViolation) as exc:
        t2.seats[0].handle(_signed(t2.seats[3], Kind.SHUFFLE, 1, values=(16,)))
    assert (exc.value.seat, exc.value.code) == (3, E.WRONG_SENDER)


@pytest.mark.parametrize(
    ("values", "data", "code"),
    [
        ((0,), bytes([0]), E.NOT_EXPONENT),
        ((TOY.q,), bytes([0]), E.NOT_EXPONENT),
        ((5, 6), bytes([0]), E.BAD_LENGTH),
        ((5, 6), bytes([0, 0]), E.BAD_LENGTH),
        ((5,), bytes([60]), E.BAD_LENGTH),
    ],
)
def test_keys_are_validated(values, data, code):
    t = _table_at_shuffle()
    t.commit_only(RoundSpec(1, (0, 1, 2)))
    with pytest.raises(ProtocolViolation) as exc:
        t.seats[0].handle(_signed(t.seats[1], Kind.KEYS, 1, values=values, data=data))
    assert (exc.value.seat, exc.value.code) == (1, code)


def test_a_rejected_message_is_not_applied_and_the_seat_goes_on():
    t = _table_at_shuffle()
    t.commit_only(RoundSpec(1, (0, 1, 2)))
    bad = _signed(t.seats[1], Kind.KEYS, 1, values=(0,), data=bytes([0]))
    with pytest.raises(ProtocolViolation):
        t.seats[0].handle(bad)
    # Fails if the refused KEYS were stored anyway: seat 1 would have a key for position 0.
    assert 1 not in t.seats[0].round(1).keys.get(0, {})
    good = _signed(t.seats[1], Kind.KEYS, 1, values=(5,), data=bytes([0]))
    assert t.seats[0].handle(good) == []
    assert t.seats[0].round(1).keys[0][1] == 5


def test_host_substituting_keys_at_set_up_changes_the_fingerprint():
    """A man-in-the-middle host gives guest 2 a fake key for guest 1 and vice versa,
    and re-signs every frame it relays under the receiver's view; both guests finish
    set-up, but their fingerprints differ."""
    fakes = {
        1: Identity.generate(TOY, DeterministicRng(98)),
        2: Identity.generate(TOY, DeterministicRng(99)),
    }
    table: list[LocalTable] = []

    class MitmHost(Seat):
        def authenticate(self, msg, link=None):  # relays everything
            return None

        def process(self, msg):
            try:
                return super().process(msg)
            except ProtocolViolation:
                return []

    def relay(frame, sender, receiver):
        msg = Message.decode(frame, TOY)
        signer = fakes[sender] if sender in fakes else table[0].seats[0].identity
        if msg.kind == Kind.HELLO:
            if sender in fakes:
                msg = Message(
                    Kind.HELLO, 0, sender, 0, 0, (signer.sign_pub, signer.dh_pub), msg.data
                )
            return msg.signed(signer.sign(b"blu21/hello/v1", msg.body(TOY))).encode(TOY)
        ctx = table[0].seats[receiver].table_id
        return msg.signed(signer.sign(ctx, msg.body(TOY))).encode(TOY)

    t = LocalTable(
        3, TOY, relay=relay, seat_factory=lambda s, c, r: (MitmHost if s == 0 else Seat)(s, c, r)
    )
    table.append(t)
    t.setup()
    assert t.seats[1].ready and t.seats[2].ready and not t.errors[1] and not t.errors[2]
    assert t.seats[2].core.setup.pubs[1][0] == fakes[1].sign_pub
    assert t.seats[1].fingerprint != t.seats[2].fingerprint


def test_configuration_is_validated():
    with pytest.raises(ValueError):
        TableConfig(1)
    with pytest.raises(ValueError):
        TableConfig(8)
    with pytest.raises(ValueError):
        TableConfig(3, host=3)


# ---------------------------------------------------------------- fuzzing


@given(st.binary(max_size=400))
def test_random_bytes_only_ever_raise_protocol_violations(frame):
    try:
        Message.decode(frame, TOY)
    except ProtocolViolation as exc:
        assert exc.code == E.BAD_FRAME


_FUZZ = LocalTable(3, TOY, seed=12)
_FUZZ.setup()


@given(
    kind=st.sampled_from([k for k in Kind if k not in (Kind.HELLO, Kind.SEED)]),
    start=st.integers(0, 60),
    values=st.lists(
        st.one_of(st.integers(0, TOY.p + 5), st.sampled_from([2, 4, 16, TOY.q - 1])),
        max_size=6,
    ),
    data=st.binary(max_size=50),
    round_offset=st.integers(-1, 1),
)
def test_signed_garbage_is_rejected_cleanly_and_loses_nothing(
    kind, start, values, data, round_offset
):
    """A seat's validly signed nonsense never crashes a receiver or changes its state."""
    t = _FUZZ
    rid = max(s.core.current for s in t.seats) + 1
    t.start(RoundSpec(rid, (0, 1, 2)))
    sender, receiver = t.seats[1], t.seats[2]
    msg = send(
        sender,
        kind,
        rid + round_offset if round_offset >= 0 else rid - 1,
        start=start,
        values=tuple(values),
        data=data,
    )
    rnd = receiver.round(rid)
    before = (len(rnd.keys), len(rnd.claims), len(rnd.complaints), len(rnd.audits))
    try:
        receiver.handle(msg)
    except ProtocolViolation as exc:
        assert exc.seat in (0, 1) and exc.code
        assert (len(rnd.keys), len(rnd.claims), len(rnd.complaints), len(rnd.audits)) == before


_DEALT = LocalTable(3, TOY, seed=13)
_DEALT.setup()
_DEALT.start(RoundSpec(1, (0, 1, 2)))
_DEALT.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))


@given(
    kind=st.sampled_from([k for k in Kind if k not in (Kind.HELLO, Kind.SEED)]),
    start=st.integers(0, 60),
    values=st.lists(
        st.one_of(st.integers(0, TOY.p + 5), st.sampled_from([2, 4, 16, TOY.q - 1])),
        max_size=6,
    ),
    data=st.binary(max_size=50),
)
def test_signed_garbage_mid_round_never_crashes_a_seat(kind, start, values, data):
    """Mid-round, a seat's signed nonsense is rejected or recorded; work() never crashes."""
    sender, receiver = _DEALT.seats[1], _DEALT.seats[2]
    msg = send(sender, kind, 1, start=start, values=tuple(values), data=data)
    try:
        receiver.handle(msg)
    except ProtocolViolation as exc:
        assert exc.seat in (0, 1) and exc.code
        sender.core.my_seq[1] -= 1  # not applied: the sequence number is free again
        receiver.round(1).recv_seq[1] -= 1
    while receiver.has_work():
        receiver.work()


@pytest.mark.parametrize("sent", ["nothing", "hello", "hello+seed"])
def test_a_seat_gone_in_the_set_up_is_left_out_alike_everywhere(sent: str) -> None:
    t = LocalTable(4, TOY, seed=31)
    gone = 3
    for s in t.seats:
        if s.seat != gone or sent != "nothing":
            t.post(s.seat, s.hello())
    if sent == "hello":  # his keys are in, his seed is not: he left before revealing it
        for _ in range(4):
            t._send(*t.queue.pop(0))
        t.drop(gone)
        t.run()
    elif sent == "hello+seed":  # the set-up finished before he left
        t.run()
        t.drop(gone)
    else:
        t.drop(gone)
        t.run()
    assert all(not s.ready for s in t.seats[:3]) or sent == "hello+seed"
    assert all(s.waiting_for(0) <= {gone} for s in t.seats[:3])
    for s in t.seats[:3]:
        t.post(s.seat, s.leave_out(gone))
    t.run()
    assert all(s.ready for s in t.seats[:3]) and all(not t.errors[s] for s in range(3))
    assert len({s.fingerprint for s in t.seats[:3]}) == 1
    assert all(s.waiting_for(0) == set() for s in t.seats[:3])
    if sent != "hello+seed":  # (after the set-up, rounds simply leave him out)
        with pytest.raises(ProtocolUsageError):
            t.seats[0].start_round(RoundSpec(1, (0, 1, gone)))
    t.start(RoundSpec(1, (0, 1, 2)))
    t.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    assert all(len(s.hand(1)) == 2 for s in t.seats[:3])


def test_waiting_for_names_who_holds_the_deck_up() -> None:
    t = LocalTable(3, TOY, seed=32)
    t.setup()
    for s in t.seats:  # seat 1 never does its shuffle pass
        if s.seat != 1:
            t.post(s.seat, s.start_round(RoundSpec(1, (0, 1, 2))))
    t.drop(1)
    t.run()
    t.seats[0].reveal(1, [(0, 0), (1, 2)])
    t.seats[2].reveal(1, [(0, 0), (1, 2)])
    assert t.seats[0].waiting_for(1) == {1} == t.seats[2].waiting_for(1)
    # All there but one key: its owner is named.
    u = LocalTable(3, TOY, seed=33)
    u.setup()
    u.start(RoundSpec(1, (0, 1, 2)))
    u.reveal([(j, j % 3) for j in range(6)], (0, 1, 2))
    assert all(s.waiting_for(1) == set() for s in u.seats)
    for s in (0, 1):
        u.post(s, u.seats[s].reveal(1, [(6, 0)]))
    u.drop(2)
    u.run()
    assert u.seats[0].waiting_for(1) == {2} and not u.seats[0].gave_key(1, 6, 2)


def test_progress_runs_from_zero_to_one_through_the_set_up_and_the_shuffle() -> None:
    t = LocalTable(3, TOY, seed=34)
    assert t.seats[0].progress(0) == 0.0
    t.setup()
    assert all(s.progress(0) == 1.0 for s in t.seats)
    seen: list[float] = []
    for s in t.seats:
        t.post(s.seat, s.start_round(RoundSpec(1, (0, 1, 2))))
    while t.queue or any(s.has_work() for s in t.seats):
        if t.queue:
            t._send(*t.queue.pop(0))
        else:
            s = next(s for s in t.seats if s.has_work())
            t.post(s.seat, s.work())
        seen.append(t.seats[2].progress(1))
    assert seen == sorted(seen) and seen[-1] == 1.0  # never backwards, ends full
    assert len({round(p, 2) for p in seen if 0 < p < 1}) >= 3  # real steps between
