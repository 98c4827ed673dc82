"""Rounds of 1-8 decks and positions opened to everybody, at the protocol level
(app/protocol): a 52-card round is bit for bit what it was, a shoe's encodings are its
own, the audit of a shoe costs one exponentiation per locked position."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.protocol.encoding import (
    DECK_SIZE,
    CardEncoding,
    pack_positions,
    position_width,
    round_sizes,
    unpack_positions,
)
from app.protocol.errors import ProtocolUsageError
from app.protocol.group import FFDHE2048, Group, unsafe_test_group
from app.protocol.harness import LocalTable
from app.protocol.keys import RoundSecret
from app.protocol.seat import RoundSpec

G = unsafe_test_group()

# Computed with main's code before multi-deck rounds (commit 0dd9d68): a 3-seat round's
# every frame, and ffdhe2048 encodings, card keys and a permutation. The frames' digest
# was computed again when signing nonces came to be precomputed in idle time (issue 17):
# a seat now draws them from its RNG ahead of the frames they sign, so the signatures
# and the round seeds drawn after them are other ones; the encodings, keys and
# permutations of given seeds (KEYS_DIGEST) are unchanged. Again when signatures came
# to cover a digest of the frame and AUDIT frames to carry input attestations (issue
# 30): every signature changed, and the AUDIT of the seat computing on the host's frames.
TRANSCRIPT_DIGEST = "2c3bcaf45c71efba4d93d2a4378b369ea86fefc2f5a17fa16309f59c7a12db5a"
KEYS_DIGEST = "05a94d60d313d6c9197d3c4384c7811f16f1fc5968fbd5527cf243f3a2229eda"


def test_a_52_card_round_is_bit_for_bit_what_it_was() -> None:
    t = LocalTable(3, G, seed=42)
    t.setup()
    t.play_round(1)
    h = hashlib.sha256()
    for sender, frame in t.frames:
        h.update(bytes([sender]) + len(frame).to_bytes(4, "big") + frame)
    assert h.hexdigest() == TRANSCRIPT_DIGEST


def test_52_card_encodings_keys_and_permutations_are_unchanged() -> None:
    enc = CardEncoding.derive(FFDHE2048, b"\x07" * 32, 9)
    sec = RoundSecret(FFDHE2048, b"\x05" * 32, 9)
    h = hashlib.sha256()
    for v in enc.values:
        h.update(v.to_bytes(256, "big"))
    for j in range(DECK_SIZE):
        h.update(sec.card_key(j).to_bytes(256, "big"))
    h.update(bytes(sec.permutation(DECK_SIZE)))
    assert h.hexdigest() == KEYS_DIGEST


def test_a_shoe_has_encodings_of_its_own() -> None:
    seed = b"\x01" * 32
    one = CardEncoding.derive(G, seed, 3)
    shoes = {size: CardEncoding.derive(G, seed, 3, size) for size in round_sizes()[1:]}
    assert all(e.size == size for size, e in shoes.items())
    every = [v for e in (one, *shoes.values()) for v in e.values]
    assert len(set(every)) == len(every)  # no value shared by two sizes or codes
    assert all(G.is_element(v) for v in every)
    big = shoes[8 * DECK_SIZE]
    assert [big.card_of(v) for v in big.values] == list(range(8 * DECK_SIZE))
    for bad in (0, 51, 53, 9 * DECK_SIZE):
        with pytest.raises(ValueError):
            CardEncoding.derive(G, seed, 3, bad)


def test_card_keys_and_permutations_beyond_255_are_distinct_and_uniform() -> None:
    sec = RoundSecret(G, b"\x02" * 32, 4)
    keys = [sec.card_key(j) for j in range(8 * DECK_SIZE)]
    assert len(set(keys)) == len(keys) and all(k % 2 == 0 for k in keys)
    assert sorted(sec.permutation(416)) == list(range(416))
    assert sec.permutation(416)[:52] != sec.permutation(52)


@given(size=st.sampled_from(round_sizes()), data=st.data())
def test_positions_pack_and_unpack(size: int, data: st.DataObject) -> None:
    positions = data.draw(st.lists(st.integers(0, size - 1), max_size=20))
    packed = pack_positions(positions, size)
    assert len(packed) == len(positions) * position_width(size)
    assert unpack_positions(packed, size) == positions
    if position_width(size) == 2:
        assert unpack_positions(packed + b"\x00", size) is None


def _shoe(n: int, decks: int, margin: int, seed: int = 3) -> LocalTable:
    t = LocalTable(n, G, seed=seed)
    t.setup()
    t.start(RoundSpec.shoe(1, tuple(range(n)), decks, margin))
    return t


def test_public_positions_open_on_every_seat_and_lock_lazily() -> None:
    t = _shoe(3, 8, margin=10)
    rnd = t.seats[0].round(1)
    assert rnd.size == 416 and len(rnd.final) == 10 and len(rnd.stages[-1]) < 20
    for s in t.seats:
        t.post(s.seat, s.open_public(1, [0, 1, 2]))
    t.run()
    opened = [s.public(1) for s in t.seats]
    assert opened[0] == opened[1] == opened[2] and len(opened[0]) == 3
    assert all(s.hand(1) == {} for s in t.seats)  # nobody's private card
    for s in t.seats:
        t.post(s.seat, s.open_public(1, [300, 301]))  # far ahead: locked on demand
    t.run()
    assert len(rnd.final) == 302 and len(t.seats[1].public(1)) == 5
    for s in t.seats:
        with pytest.raises(ProtocolUsageError):
            s.open_public(1, [0])  # already opened
        with pytest.raises(ProtocolUsageError):
            s.reveal(1, [(260, s.seat)])  # a private card beyond 255


def test_the_audit_of_a_shoe_costs_one_modexp_per_locked_position(monkeypatch) -> None:
    t = _shoe(3, 8, margin=5)
    for s in t.seats:
        t.post(s.seat, s.open_public(1, range(40)))
    t.run()
    locked = len(t.seats[0].round(1).final)
    counted: list[int] = []
    real = Group.pow_many

    def counting(self: Group, bases, exps):  # type: ignore[no-untyped-def]
        counted.append(len(bases))
        return real(self, bases, exps)

    monkeypatch.setattr(Group, "pow_many", counting)
    t.finish([0, 1, 2])
    assert all(v is not None and v.ok for v in t.verdicts(1).values())
    audits = [c for c in counted if c == locked]
    assert len(audits) == 3  # one batch of `locked` per seat, and nothing bigger
    assert max(counted) == locked  # (the other calls: the AUDIT frames' signatures)


def test_waiting_for_a_shoe_names_the_missing_pass_before_any_card() -> None:
    t = LocalTable(3, G, seed=5)
    t.setup()
    spec = RoundSpec.shoe(1, (0, 1, 2), 2, 20)
    for i in (0, 2):  # seat 1 has not started the shoe: its commitment is missing
        t.post(i, t.seats[i].start_round(spec))
    t.run()
    assert t.seats[0].waiting_for(1) == set()  # (nothing dealt, nothing asked for)
    assert t.seats[0].waiting_for(1, upto=20) == {1}
    t.post(1, t.seats[1].start_round(spec))
    t.run()
    assert all(s.waiting_for(1, upto=20) == set() for s in t.seats)
